/**
 * Controllers started in the background by a host process (the embedded default): while
 * the API refuses them (403) they retry instead of failing the host, and they start and
 * work once the API lets them in.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { statusError } from "../../shared/api/status.ts";
import { HttpsObjectClient } from "../../shared/client/https-object-client.ts";
import { ensurePki } from "../../services/apiserver/server/certs.ts";
import { runControllersInBackground } from "../../services/controller-manager/controllers.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

let api: TestApiserver;
let denyAll = true;
beforeAll(async () => {
  api = await startTestApiserver({
    authorize: async (user) => {
      if (denyAll && user.username === "admin") throw statusError({ code: 403, reason: "Forbidden", message: "denied for the test" });
    },
  });
});
afterAll(async () => {
  await api?.close();
});

describe("controllers in the background", () => {
  it("retry while refused, then start and delete a namespace's content", async () => {
    const pki = await ensurePki(api.dir, { profile: api.profile });
    const client = new HttpsObjectClient({ server: api.replica.url, ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem, insecureSkipTlsVerify: false });
    const failures: string[] = [];
    const bg = runControllersInBackground(client, { namespaceFinalizer: api.profile.namespaceFinalizer, log: (_level, msg, fields) => failures.push(`${msg}: ${String(fields?.error)}`) });
    try {
      await new Promise((r) => setTimeout(r, 1500));
      expect(failures.length).toBeGreaterThanOrEqual(1);
      expect(failures.every((f) => f.includes("denied for the test"))).toBe(true);
      denyAll = false;
      const running = await bg.started;
      expect(running?.names).toEqual(expect.arrayContaining(["garbage-collector-controller", "namespace-controller", "serviceaccount-controller"]));
      // The admin client (tests) is the same user: now allowed, the namespace goes away.
      expect((await api.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "late" } })).status).toBe(201);
      expect((await api.admin.delete("/api/v1/namespaces/late")).status).toBe(200);
      const deadline = Date.now() + 10_000;
      while ((await api.admin.get("/api/v1/namespaces/late")).status !== 404 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect((await api.admin.get("/api/v1/namespaces/late")).status).toBe(404);
    } finally {
      bg.stop();
      client.close();
    }
  });

  it("stop() while refused ends the attempts", async () => {
    denyAll = true;
    const pki = await ensurePki(api.dir, { profile: api.profile });
    const client = new HttpsObjectClient({ server: api.replica.url, ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem, insecureSkipTlsVerify: false });
    const bg = runControllersInBackground(client, { namespaceFinalizer: api.profile.namespaceFinalizer });
    await new Promise((r) => setTimeout(r, 300));
    bg.stop();
    expect(await bg.started).toBeUndefined();
    client.close();
    denyAll = false;
  });
});
