import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storeStatus } from "../../services/store/server/node-process.ts";
import { startProcessCluster, type ProcessCluster } from "../support/process-cluster.ts";

/**
 * Two apiserver replicas, one Redis, three store nodes — all real processes.
 * Writes go through one replica, watches through the other.
 */
let cluster: ProcessCluster;
beforeAll(async () => {
  cluster = await startProcessCluster({ stores: 3, replicas: 2 });
}, 180_000);
afterAll(async () => {
  await cluster?.stop();
}, 60_000);

const cm = (name: string) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { n: name } });
const base = "/api/v1/namespaces/default/configmaps";

describe("replicas over a 3-node store and a Redis revision stream", () => {
  it("delivers writes made on one replica to a watch on the other, each once and in order", async () => {
    const a = cluster.admin(0);
    const b = cluster.admin(1);
    const start = (await a.get(base)).json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
    const w = b.watch(`${base}?watch=1&resourceVersion=${start}`);
    for (let i = 0; i < 30; i++) expect((await a.post(base, cm(`r${i}`))).status).toBe(201);
    const evs = await w.waitFor(30, 20_000);
    w.stop();
    expect(evs.map((e) => (e.object.metadata as { name: string }).name)).toEqual(Array.from({ length: 30 }, (_, i) => `r${i}`));
    const revs = evs.map((e) => Number((e.object.metadata as { resourceVersion: string }).resourceVersion));
    expect([...revs].sort((x, y) => x - y)).toEqual(revs);
    // A consistent read on the other replica sees the last write at once.
    const list = await b.get(`${base}?labelSelector=`);
    expect(list.json<{ items: unknown[] }>().items.length).toBeGreaterThanOrEqual(30);
    a.close();
    b.close();
  }, 60_000);

  it("loses and doubles no event across a Redis restart during a watch", async () => {
    const a = cluster.admin(0);
    const b = cluster.admin(1);
    const start = (await a.get(base)).json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
    const w = b.watch(`${base}?watch=1&resourceVersion=${start}`);
    for (let i = 0; i < 10; i++) await a.post(base, cm(`before-${i}`));
    await cluster.redis.restart();
    for (let i = 0; i < 10; i++) await a.post(base, cm(`after-${i}`));
    const evs = await w.waitFor(20, 30_000);
    w.stop();
    const names = evs.map((e) => (e.object.metadata as { name: string }).name);
    expect(names).toEqual([...Array.from({ length: 10 }, (_, i) => `before-${i}`), ...Array.from({ length: 10 }, (_, i) => `after-${i}`)]);
    a.close();
    b.close();
  }, 90_000);

  it("keeps serving writes when the store leader is SIGKILLed", async () => {
    const a = cluster.admin(0);
    let leader = -1;
    for (let i = 0; i < cluster.stores.length; i++) {
      const st = await storeStatus(cluster.storeEndpoints[i]);
      if (st.leader === st.header.member_id) leader = i;
    }
    expect(leader).toBeGreaterThanOrEqual(0);
    await cluster.stopStore(leader, "SIGKILL");
    let ok = 0;
    const deadline = Date.now() + 30_000;
    while (ok < 5 && Date.now() < deadline) {
      const res = await a.post(base, cm(`failover-${ok}-${Date.now()}`)).catch(() => undefined);
      if (res?.status === 201) ok++;
      else await new Promise((r) => setTimeout(r, 200));
    }
    expect(ok).toBe(5);
    await cluster.startStore(leader);
    a.close();
  }, 90_000);
});
