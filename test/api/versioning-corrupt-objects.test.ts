/**
 * Corrupt objects (issue 24): bytes that do not decode, written under a key straight to
 * the store, never stop the replica from serving the other objects. A GET of the corrupt
 * one, a LIST that meets it and a plain DELETE are 500 InternalError with the platform's
 * storage error text naming the key; a watch does not announce it. With
 * AllowUnsafeMalformedObjectDeletion on, DELETE with
 * ignoreStoreReadErrorWithClusterBreakingPotential=true removes it once the requester is
 * also allowed "unsafe-delete-ignore-read-errors" (403 otherwise), watches see DELETED,
 * and the option is refused on a readable object and with the other delete options.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { statusError } from "../../shared/api/status.ts";
import { FeatureGates } from "../../services/apiserver/server/feature-gates.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

let api: TestApiserver;
const base = "/api/v1/namespaces/default/configmaps";
const badKey = "/registry/core/configmaps/default/broken";
const otherBadKey = "/registry/core/configmaps/default/broken-too";

async function writeRaw(key: string, text: string): Promise<void> {
  const res = await api.kv.txn([], [{ type: "put", key, value: new TextEncoder().encode(text) }], []);
  expect(res.succeeded).toBe(true);
}

let unsafeDeleteAllowed = false;
const UNSAFE = { ignoreStoreReadErrorWithClusterBreakingPotential: true };

/** DELETE with a DeleteOptions body, sent with its length as kubectl sends it. */
function deleteWith(path: string, options: Record<string, unknown>) {
  const raw = JSON.stringify({ kind: "DeleteOptions", apiVersion: "v1", ...options });
  return api.admin.request("DELETE", path, { raw, headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(raw)) } });
}

beforeAll(async () => {
  const gates = new FeatureGates();
  gates.set(["AllowUnsafeMalformedObjectDeletion=true"]);
  api = await startTestApiserver({
    gates,
    authorize: async (user, info) => {
      if (info.verb === "unsafe-delete-ignore-read-errors" && !unsafeDeleteAllowed) {
        throw statusError({ code: 403, reason: "Forbidden", message: `User "${user.username}" cannot unsafe-delete-ignore-read-errors resource "${info.resource}"` });
      }
    },
  });
  expect((await api.admin.post(base, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "good" }, data: { a: "1" } })).status).toBe(201);
}, 30_000);
afterAll(async () => {
  await api?.close();
});

interface StatusBody {
  code: number;
  reason: string;
  message: string;
}

describe("a corrupt object in the store", () => {
  it("leaves every other object readable and is never announced to a watch", async () => {
    const watch = api.admin.watch(`${base}?watch=true&resourceVersion=0`);
    try {
      await writeRaw(badKey, "\u0000not json{");
      const after = await api.admin.post(base, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "after" } });
      expect(after.status).toBe(201);
      expect((await api.admin.get(`${base}/good`)).status).toBe(200);
      await expect.poll(() => watch.events.map((e) => `${e.type} ${String((e.object.metadata as { name?: string } | undefined)?.name)}`), { timeout: 5000 }).toContain("ADDED after");
      expect(watch.events.some((e) => (e.object.metadata as { name?: string } | undefined)?.name === "broken")).toBe(false);
    } finally {
      watch.stop();
    }
  });

  it("GET and a plain DELETE are 500 with the platform's storage error naming the key", async () => {
    for (const res of [await api.admin.get(`${base}/broken`), await api.admin.delete(`${base}/broken`)]) {
      expect(res.status).toBe(500);
      const status = res.json<StatusBody>();
      expect(status.reason).toBe("InternalError");
      expect(status.message).toMatch(new RegExp(`^Internal error occurred: StorageError: corrupt object, Code: 7, Key: ${badKey}, ResourceVersion: 0, AdditionalErrorMsg: `));
    }
  });

  it("a LIST that meets corrupt objects is 500 naming every corrupt key; a list that does not is served", async () => {
    await writeRaw(otherBadKey, "{\"half\":");
    const res = await api.admin.get(base);
    expect(res.status).toBe(500);
    const message = res.json<StatusBody>().message;
    expect(message).toContain(`Key: ${badKey},`);
    expect(message).toContain(`Key: ${otherBadKey},`);
    expect((await api.admin.get("/api/v1/namespaces/default/secrets")).status).toBe(200);
  });
});

describe("unsafe deletion (AllowUnsafeMalformedObjectDeletion)", () => {
  it("refuses the option on a readable object and together with other delete options", async () => {
    const readable = await deleteWith(`${base}/good`, UNSAFE);
    expect(readable.status).toBe(422);
    expect(readable.json<StatusBody>().message).toContain(
      "ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: is exclusively used to delete corrupt object(s), try again by removing this option",
    );
    expect((await api.admin.get(`${base}/good`)).status).toBe(200);
    // The option in the query string, as the platform's DELETE also takes it.
    const byQuery = await api.admin.delete(`${base}/good?ignoreStoreReadErrorWithClusterBreakingPotential=true`);
    expect(byQuery.status).toBe(422);
    expect(byQuery.json<StatusBody>().message).toContain("is exclusively used to delete corrupt object(s)");
    // Each of the five other options is refused on its own, in the platform's words and order, before anything is read.
    const option = "ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: cannot be set together with";
    const combined = await deleteWith(`${base}/broken`, { ...UNSAFE, gracePeriodSeconds: 0 });
    expect(combined.status).toBe(422);
    expect(combined.json<StatusBody>().message).toBe(`DeleteOptions.${api.profile.metaGroup} "" is invalid: ${option} .gracePeriodSeconds`);
    const all = await deleteWith(`${base}/broken`, { ...UNSAFE, dryRun: ["All"], propagationPolicy: "Background", orphanDependents: false, gracePeriodSeconds: 5, preconditions: { uid: "x" } });
    expect(all.status).toBe(422);
    expect(all.json<StatusBody>().message).toBe(
      `DeleteOptions.${api.profile.metaGroup} "" is invalid: [propagationPolicy: Invalid value: "Background": orphanDependents and deletionPropagation cannot be both set, ${["dryRun", "propagationPolicy", "orphanDependents", "gracePeriodSeconds", "preconditions"].map((o) => `${option} .${o}`).join(", ")}]`,
    );
  });

  it("needs the unsafe-delete-ignore-read-errors verb, then removes the object and watches see DELETED", async () => {
    const denied = await deleteWith(`${base}/broken`, UNSAFE);
    expect(denied.status).toBe(403);
    expect(denied.json<StatusBody>().message).toBe('configmaps "broken" is forbidden: not permitted to do "unsafe-delete-ignore-read-errors"');
    const watch = api.admin.watch(`${base}?watch=true&resourceVersion=${(await api.admin.get("/api/v1/namespaces/default/secrets")).json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion}`);
    try {
      unsafeDeleteAllowed = true;
      const deleted = await deleteWith(`${base}/broken`, UNSAFE);
      expect(deleted.status, deleted.text).toBe(200);
      expect(deleted.json<{ kind: string; metadata: { name: string } }>()).toMatchObject({ kind: "ConfigMap", metadata: { name: "broken" } });
      expect((await api.admin.get(`${base}/broken`)).status).toBe(404);
      await expect.poll(() => watch.events.map((e) => `${e.type} ${String((e.object.metadata as { name?: string } | undefined)?.name)}`), { timeout: 5000 }).toContain("DELETED broken");
    } finally {
      watch.stop();
      unsafeDeleteAllowed = false;
    }
    // The other corrupt object still fails the list; once it is gone too the list is served again.
    expect((await api.admin.get(base)).status).toBe(500);
    unsafeDeleteAllowed = true;
    expect((await deleteWith(`${base}/broken-too`, UNSAFE)).status).toBe(200);
    const list = await api.admin.get(base);
    expect(list.status).toBe(200);
    expect(list.json<{ items: Array<{ metadata: { name: string } }> }>().items.map((i) => i.metadata.name).sort()).toEqual(["after", "good"]);
  });
});
