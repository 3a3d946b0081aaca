import { afterEach, describe, expect, it } from "vitest";
import { NodeCluster, get, put, sleep, waitFor } from "./testing/cluster.ts";

describe("RaftNode: 3 nodes over the in-memory network with real WALs", () => {
  let c: NodeCluster | undefined;
  afterEach(async () => {
    await c?.close();
    c = undefined;
  });

  it("elects a leader and applies proposals from leader and followers on every node", async () => {
    c = await NodeCluster.create(3);
    const leader = await c.leader();
    const follower = c.follower(leader);
    const results = await Promise.all([
      ...Array.from({ length: 50 }, (_, i) => put(leader, `k${i}`, `v${i}`)),
      ...Array.from({ length: 50 }, (_, i) => put(follower, `f${i}`, `w${i}`)),
    ]);
    expect(results.every((r) => r.result.type === "put")).toBe(true);
    const revisions = results.map((r) => r.revision).sort((x, y) => x - y);
    expect(new Set(revisions).size).toBe(100);
    await c.converge();
    const snaps = c.running().map((n) => Buffer.from(n.mvcc.snapshot()).toString("hex"));
    expect(new Set(snaps).size).toBe(1);
    for (const n of c.running()) {
      expect(get(n, "k7")).toBe("v7");
      expect(get(n, "f49")).toBe("w49");
    }
    // Many proposals in one turn share few Readies and fsyncs.
    expect(leader.stats.proposalBatches).toBeLessThan(60);
    const st = follower.status();
    expect(st.leader).toBe(BigInt(leader.id));
    expect(st.memberId).toBe(BigInt(follower.id));
    expect(st.clusterId).toBe(leader.status().clusterId);
    expect(st.appliedIndex).toBeGreaterThanOrEqual(100);
  });

  it("returns the state machine's result, including request errors", async () => {
    c = await NodeCluster.create(3);
    const leader = await c.leader();
    const follower = c.follower(leader);
    const grant = await follower.propose({ type: "leaseGrant", request: { id: 5n, ttl: 30 } });
    expect(grant.result).toEqual({ type: "leaseGrant", response: { id: 5n, ttl: 30 } });
    const dup = await leader.propose({ type: "leaseGrant", request: { id: 5n, ttl: 30 } });
    expect(dup.result.type).toBe("error");
    const changes: number[] = [];
    const off = follower.onApplied((ch) => changes.push(ch.revision));
    const r = await put(leader, "a", "1");
    await waitFor(() => changes.includes(r.revision), "the follower's applied feed");
    off();
  });

  it("serves linearizable reads on followers after readBarrier", async () => {
    c = await NodeCluster.create(3);
    const leader = await c.leader();
    const followers = c.running().filter((n) => n !== leader);
    for (let i = 0; i < 30; i++) {
      await put(leader, "x", `v${i}`);
      const f = followers[i % 2];
      await f.readBarrier();
      expect(get(f, "x")).toBe(`v${i}`);
    }
    // Concurrent barriers share requests.
    await Promise.all(Array.from({ length: 100 }, () => followers[0].readBarrier()));
  });

  it("reads asked for in one turn of the event loop share one ReadIndex round, also those asked after the node's loop ran", async () => {
    c = await NodeCluster.create(3);
    const leader = await c.leader();
    const follower = c.follower(leader);
    for (const n of [leader, follower]) {
      await n.readBarrier();
      const before = n.readIndexRounds;
      const first = n.readBarrier();
      // Later in the same turn: after the first call's microtasks (where the node's loop runs) and nextTicks.
      await new Promise<void>((r) => process.nextTick(r));
      await Promise.resolve();
      const second = n.readBarrier();
      await Promise.all([first, second]);
      expect(n.readIndexRounds - before).toBe(1);
    }
  });

  it("re-elects after the leader crashes without losing an acknowledged write", async () => {
    c = await NodeCluster.create(3);
    const cluster = c;
    const leader = await c.leader();
    const acked = new Set<string>();
    let stop = false;
    const writer = async (id: number): Promise<void> => {
      for (let i = 0; !stop; i++) {
        const target = cluster.running()[i % cluster.running().length];
        if (!target) return;
        const key = `w${id}-${i}`;
        try {
          await put(target, key, key);
          acked.add(key);
        } catch {
          await sleep(5);
        }
      }
    };
    const writers = [1, 2, 3, 4].map(writer);
    await sleep(150);
    await c.stop(leader.id);
    const before = acked.size;
    const next = await c.leader();
    expect(next.id).not.toBe(leader.id);
    await waitFor(() => acked.size > before + 20, "writes after the new leader");
    stop = true;
    await Promise.all(writers);
    await c.converge();
    for (const n of c.running()) for (const key of acked) expect(get(n, key)).toBe(key);
    // The old leader comes back and catches up.
    const back = await c.start(leader.id);
    await c.converge();
    for (const key of acked) expect(get(back, key)).toBe(key);
  });

  it("proposals fail with a clear error when there is no leader", async () => {
    c = await NodeCluster.create(3, { requestTimeoutMs: 600 });
    const leader = await c.leader();
    const survivor = c.follower(leader);
    for (const n of c.running()) if (n !== survivor) await c.stop(n.id);
    const t0 = Date.now();
    const err = await put(survivor, "a", "b").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(Date.now() - t0).toBeLessThan(1500);
    expect(err).toMatchObject({ name: "NodeError" });
    expect(["no-leader", "timeout"]).toContain((err as { code: string }).code);
    await waitFor(() => survivor.leaderId === 0, "the survivor to give up the leader");
    await expect(put(survivor, "a", "b")).rejects.toThrow("store: no leader");
    await expect(survivor.readBarrier()).rejects.toMatchObject({ code: "no-leader" });
    await expect(survivor.addMember(9, ["mem://9"])).rejects.toMatchObject({ code: "no-leader" });
  });

  it("a minority leader steps down (check quorum) and the majority keeps writing", async () => {
    c = await NodeCluster.create(3);
    const leader = await c.leader();
    const others = c.running().filter((n) => n !== leader).map((n) => n.id);
    c.net.partition([leader.id], others);
    await waitFor(() => !leader.isLeader, "the isolated leader to step down", 3000);
    const majority = c.running().filter((n) => n !== leader);
    await waitFor(() => majority.some((n) => n.isLeader), "a majority leader", 3000);
    const newLeader = majority.find((n) => n.isLeader);
    await put(newLeader!, "p", "1");
    c.net.heal();
    await c.converge();
    expect(get(leader, "p")).toBe("1");
  });

  it("keeps every acknowledged write through message loss and partitions, and converges", async () => {
    c = await NodeCluster.create(3, { requestTimeoutMs: 500 });
    const cluster = c;
    const acked = new Set<string>();
    let stop = false;
    const writer = async (w: number): Promise<void> => {
      for (let i = 0; !stop; i++) {
        const nodes = cluster.running();
        const key = `c${w}-${i}`;
        try {
          await put(nodes[i % nodes.length], key, key);
          acked.add(key);
        } catch {
          await sleep(10);
        }
      }
    };
    const writers = [1, 2, 3, 4].map(writer);
    c.net.setDropRate(0.2);
    await sleep(400);
    const l = c.running().find((n) => n.isLeader);
    if (l) c.net.isolate(l.id, [1, 2, 3]);
    await sleep(400);
    c.net.heal();
    c.net.partition([1], [2, 3]);
    await sleep(300);
    c.net.heal();
    await c.leader();
    const before = acked.size;
    await waitFor(() => acked.size > before + 10, "writes after healing");
    stop = true;
    await Promise.all(writers);
    await c.converge();
    await waitFor(() => new Set(c!.running().map((n) => n.appliedIndex)).size === 1, "equal applied indexes");
    expect(new Set(c.running().map((n) => Buffer.from(n.mvcc.snapshot()).toString("hex"))).size).toBe(1);
    for (const n of c.running()) for (const key of acked) expect(get(n, key)).toBe(key);
    expect(acked.size).toBeGreaterThan(10);
  });

  it("a group of one elects itself at once and serves writes and reads", async () => {
    c = await NodeCluster.create(1, { electionMs: 1000, heartbeatMs: 100 });
    const n = c.node(1);
    await waitFor(() => n.isLeader, "self-election", 500);
    await put(n, "solo", "1");
    await n.readBarrier();
    expect(get(n, "solo")).toBe("1");
    expect(n.members()).toEqual([{ id: 1, name: "n1", peerUrls: ["mem://1"], clientUrls: ["mem://client-1"], isLearner: false }]);
  });
});
