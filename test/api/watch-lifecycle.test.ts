/**
 * What an open watch holds and when it lets go: a client going away removes its
 * watcher from the cache (no abort listener: the cancelled body stops it), a long
 * `timeoutSeconds` ends on the shared deadline tick, events still flow to many idle
 * watches, a client that stops reading holds the stream back (the response's write and
 * drain) without losing events, its answer carries the Audit-ID and classification headers
 * (written with the head in one piece), and a bad `includeObject` is refused before the stream starts.
 */
import type { IncomingMessage } from "node:http";
import { request } from "node:https";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensurePki } from "../../services/apiserver/server/certs.ts";
import { flowControlHeaders } from "../../services/apiserver/server/filters/with-priority-and-fairness.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import type { WatchStream } from "../support/https-client.ts";

let api: TestApiserver;
const base = "/api/v1/namespaces/default/configmaps";

beforeAll(async () => {
  api = await startTestApiserver({ bookmarkIntervalMs: 60_000 });
});
afterAll(async () => {
  await api?.close();
});

async function until(cond: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

describe("an idle watch", () => {
  it("delivers events to many watches and leaves the cache when its client goes away", async () => {
    const before = api.replica.cache.watcherCount;
    const watches: WatchStream[] = Array.from({ length: 50 }, () => api.admin.watch(`${base}?watch=1&resourceVersion=0&labelSelector=life%3Dcycle`));
    await until(() => api.replica.cache.watcherCount >= before + 50);
    expect(api.replica.cache.watcherCount).toBe(before + 50);
    const created = await api.admin.post(base, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "life", labels: { life: "cycle" } } });
    expect(created.status).toBe(201);
    for (const w of watches) {
      const [ev] = await w.waitFor(1);
      expect(ev?.type).toBe("ADDED");
      expect((ev?.object.metadata as { name: string }).name).toBe("life");
    }
    for (const w of watches) w.stop();
    await until(() => api.replica.cache.watcherCount === before);
    expect(api.replica.cache.watcherCount).toBe(before);
  });

  it("ends after a long timeoutSeconds on the shared deadline tick", async () => {
    const started = Date.now();
    const w = api.admin.watch(`${base}?watch=1&resourceVersion=0&timeoutSeconds=11&labelSelector=none%3Dhere`);
    await w.waitFor(1_000_000, 20_000);
    expect(w.ended).toBe(true);
    expect(w.status).toBe(200);
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(10_500);
    expect(took).toBeLessThan(16_000);
  }, 30_000);

  it("holds events back while its client stops reading and delivers all of them in order once it reads again", async () => {
    const count = 48;
    const value = "v".repeat(256 * 1024); // 12 MiB of events: more than the socket buffers hold
    const pki = await ensurePki(api.dir, { profile: api.profile });
    const tls = { ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem };
    const received: string[] = [];
    let text = "";
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request(new URL(`${base}?watch=1&resourceVersion=0&labelSelector=held%3Dback`, api.admin.baseUrl), tls, resolve);
      req.on("error", reject);
      req.end();
    });
    expect(res.statusCode).toBe(200);
    res.pause();
    for (let i = 0; i < count; i++) {
      const created = await api.admin.post(base, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `held-${i}`, labels: { held: "back" } }, data: { v: value } });
      expect(created.status).toBe(201);
    }
    await new Promise((r) => setTimeout(r, 500));
    res.setEncoding("utf8");
    res.on("data", (chunk: string) => {
      text += chunk;
      let nl = text.indexOf("\n");
      while (nl >= 0) {
        const ev = JSON.parse(text.slice(0, nl)) as { type: string; object: { metadata: { name: string } } };
        if (ev.type === "ADDED") received.push(ev.object.metadata.name);
        text = text.slice(nl + 1);
        nl = text.indexOf("\n");
      }
    });
    res.resume();
    await until(() => received.length >= count, 20_000);
    res.destroy();
    expect(received).toEqual(Array.from({ length: count }, (_, i) => `held-${i}`));
  }, 60_000);

  it("answers with its Audit-ID and priority-and-fairness classification headers, served or refused", async () => {
    const names = flowControlHeaders(api.profile);
    const uid = /^[0-9a-f-]{36}$/;
    const served = await api.admin.get(`${base}?watch=1&timeoutSeconds=1&labelSelector=none%3Dhere`, { "audit-id": "watch-headers-served" });
    const refused = await api.admin.get(`${base}?watch=1&includeObject=All`, { accept: `application/json;as=Table;g=${api.profile.metaGroup};v=v1`, "audit-id": "watch-headers-refused" });
    expect([served.status, refused.status]).toEqual([200, 400]);
    expect(served.headers["content-type"]).toMatch(/^application\/json/);
    expect(served.headers["audit-id"]).toBe("watch-headers-served");
    expect(refused.headers["audit-id"]).toBe("watch-headers-refused");
    for (const res of [served, refused]) {
      expect(res.headers[names.flowSchemaUid.toLowerCase()]).toMatch(uid);
      expect(res.headers[names.priorityLevelUid.toLowerCase()]).toMatch(uid);
    }
  });

  it("refuses a bad includeObject on a Table watch with a 400 Status before streaming", async () => {
    const res = await api.admin.get(`${base}?watch=1&includeObject=All`, { accept: `application/json;as=Table;g=${api.profile.metaGroup};v=v1` });
    expect(res.status).toBe(400);
    expect(res.json()).toMatchObject({ kind: "Status", status: "Failure", reason: "BadRequest", code: 400 });
  });
});
