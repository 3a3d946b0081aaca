/**
 * Corrupt objects (issue 24): bytes that do not decode, written under a key straight to
 * the store, never stop the replica from serving the other objects. A GET of the corrupt
 * one, a LIST that meets it and a plain DELETE are 500 InternalError with the platform's
 * storage error text naming the key; a watch does not announce it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

let api: TestApiserver;
const base = "/api/v1/namespaces/default/configmaps";
const badKey = "/registry/core/configmaps/default/broken";
const otherBadKey = "/registry/core/configmaps/default/broken-too";

async function writeRaw(key: string, text: string): Promise<void> {
  const res = await api.kv.txn([], [{ type: "put", key, value: new TextEncoder().encode(text) }], []);
  expect(res.succeeded).toBe(true);
}

beforeAll(async () => {
  api = await startTestApiserver();
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
