/**
 * A watch from a compacted resourceVersion, over raw HTTPS: the platform answers HTTP 200
 * and a stream holding one ERROR event whose object is the 410 Expired Status
 * ("too old resource version: <requested> (<oldest>)"), then ends the stream. A watch from
 * a version still kept is unaffected.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

let api: TestApiserver;
const base = "/api/v1/namespaces/default/configmaps";
const cm = (name: string) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { k: "v" } });
const rvOf = (body: { metadata: { resourceVersion: string } }) => body.metadata.resourceVersion;

beforeAll(async () => {
  // the store compacts every 100 ms and the watch cache keeps only the last few events,
  // so an old version is gone from both
  api = await startTestApiserver({ profileId: "kubernetes", compactIntervalMs: 100, watchHistoryMaxEvents: 3 });
});
afterAll(async () => {
  await api?.close();
});

describe("watch from a compacted resourceVersion", () => {
  it("answers 200 with one ERROR event carrying the 410 Expired Status", async () => {
    const a = await api.admin.post(base, cm("expired-a"));
    expect(a.status).toBe(201);
    const rvA = rvOf(a.json());
    for (let i = 0; i < 5; i++) expect((await api.admin.post(base, cm(`expired-more-${i}`))).status).toBe(201);

    // wait for the compactor to pass rvA
    let old = await api.admin.get(`${base}?resourceVersion=${rvA}&resourceVersionMatch=Exact`);
    for (let i = 0; i < 400 && old.status === 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
      old = await api.admin.get(`${base}?resourceVersion=${rvA}&resourceVersionMatch=Exact`);
    }
    expect(old.status).toBe(410);

    const r = await api.admin.get(`${base}?watch=true&resourceVersion=${rvA}&timeoutSeconds=5`);
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toContain("application/json");
    const lines = r.text.trim().split("\n");
    expect(lines).toHaveLength(1);
    const ev = JSON.parse(lines[0]) as { type: string; object: { kind: string; apiVersion: string; status: string; reason: string; code: number; message: string } };
    expect(ev.type).toBe("ERROR");
    expect(ev.object).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", reason: "Expired", code: 410 });
    const m = /^too old resource version: (\d+) \((\d+)\)$/.exec(ev.object.message);
    expect(m, ev.object.message).not.toBeNull();
    expect(m?.[1]).toBe(rvA);
    expect(Number(m?.[2])).toBeGreaterThan(Number(rvA));
  });

  it("a watch from a version still kept streams its events", async () => {
    const created = await api.admin.post(base, cm("kept"));
    expect(created.status).toBe(201);
    const w = api.admin.watch(`${base}?watch=true&resourceVersion=${rvOf(created.json())}`);
    try {
      await new Promise((r) => setTimeout(r, 200));
      expect((await api.admin.post(base, cm("kept-next"))).status).toBe(201);
      const events = await w.waitFor(1, 10_000);
      expect(w.status).toBe(200);
      expect(events.map((e) => [e.type, (e.object.metadata as { name: string }).name])).toEqual([["ADDED", "kept-next"]]);
    } finally {
      w.stop();
    }
  });
});
