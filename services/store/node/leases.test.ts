import { afterEach, describe, expect, it } from "vitest";
import type { LeaderPublisher } from "./options.ts";
import { NodeCluster, b, get, waitFor } from "./testing/cluster.ts";

describe("RaftNode: leader duties", () => {
  let c: NodeCluster | undefined;
  afterEach(async () => {
    await c?.close();
    c = undefined;
  });

  it("the leader revokes expired leases; keep-alive extends them; followers refuse lease timing", async () => {
    c = await NodeCluster.create(3, { leaseCheckMs: 20 });
    const leader = await c.leader();
    const follower = c.follower(leader);
    await follower.propose({ type: "leaseGrant", request: { id: 1n, ttl: 1 } });
    await follower.propose({ type: "leaseGrant", request: { id: 2n, ttl: 1 } });
    await follower.propose({ type: "put", request: { key: b("short"), value: b("1"), lease: 1n } });
    await follower.propose({ type: "put", request: { key: b("kept"), value: b("2"), lease: 2n } });
    expect(leader.leaseTimeToLive(1n)).toBe(1);
    expect(() => follower.leaseKeepAlive(2n)).toThrow(/not the leader/);
    const keep = setInterval(() => leader.leaseKeepAlive(2n), 200);
    try {
      await c.converge();
      await waitFor(() => c!.running().every((n) => get(n, "short") === undefined), "the expired lease's key to go", 3000);
      for (const n of c.running()) {
        expect(n.mvcc.lease(1n)).toBeUndefined();
        expect(get(n, "kept")).toBe("2");
      }
    } finally {
      clearInterval(keep);
    }
    expect(leader.leaseKeepAlive(1n)).toBeUndefined();
  });

  it("tells the publisher and the callback about leadership", async () => {
    const events: string[] = [];
    const publishers = new Map<number, { leading: boolean; notified: number }>();
    c = await NodeCluster.create(3);
    // Restart each node with a publisher to observe it.
    for (const id of [1, 2, 3]) {
      await c.stop(id);
      const p = { leading: false, notified: 0 };
      publishers.set(id, p);
      const publisher: LeaderPublisher = { setLeader: (l) => (p.leading = l), notify: () => p.notified++ };
      await c.start(id, { publisher, onLeaderChange: (leading, lead) => events.push(`${id}:${leading}:${lead}`) });
    }
    const leader = await c.leader();
    await leader.propose({ type: "put", request: { key: b("x"), value: b("y") } });
    await c.converge();
    expect(publishers.get(leader.id)!.leading).toBe(true);
    expect([...publishers.values()].filter((p) => p.leading)).toHaveLength(1);
    for (const p of publishers.values()) expect(p.notified).toBeGreaterThan(0);
    expect(events).toContain(`${leader.id}:true:${leader.id}`);
    const follower = c.follower(leader);
    expect(events).toContain(`${follower.id}:false:${leader.id}`);
    await c.stop(leader.id);
    const next = await c.leader();
    expect(publishers.get(next.id)!.leading).toBe(true);
    expect(publishers.get(leader.id)!.leading).toBe(false);
  });
});
