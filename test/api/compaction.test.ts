// The replica's periodic compaction (--etcd-compaction-interval), seen through HTTPS:
// history older than one interval becomes 410 Expired for exact reads, while the latest
// revision stays readable (the compactor only compacts a revision seen one tick earlier).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

let api: TestApiserver;
const base = "/api/v1/namespaces/default/configmaps";
const cm = (name: string) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { k: "v" } });
const rvOf = (body: { metadata: { resourceVersion: string } }) => body.metadata.resourceVersion;

beforeAll(async () => {
  api = await startTestApiserver({ compactIntervalMs: 100 });
});
afterAll(async () => {
  await api?.close();
});

describe("periodic compaction", () => {
  it("compacts old history and keeps the latest revision readable", async () => {
    const a = await api.admin.post(base, cm("compact-a"));
    expect(a.status).toBe(201);
    const rvA = rvOf(a.json());
    const b = await api.admin.post(base, cm("compact-b"));
    expect(b.status).toBe(201);
    const rvB = rvOf(b.json());

    let old = await api.admin.get(`${base}?resourceVersion=${rvA}&resourceVersionMatch=Exact`);
    for (let i = 0; i < 400 && old.status === 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
      old = await api.admin.get(`${base}?resourceVersion=${rvA}&resourceVersionMatch=Exact`);
    }
    expect(old.status).toBe(410);
    expect(old.json()).toMatchObject({ kind: "Status", status: "Failure", reason: "Expired", code: 410 });

    const latest = await api.admin.get(`${base}?resourceVersion=${rvB}&resourceVersionMatch=Exact`);
    expect(latest.status).toBe(200);
    expect(latest.json<{ items: Array<{ metadata: { name: string } }> }>().items.map((i) => i.metadata.name)).toContain("compact-b");
  });
});
