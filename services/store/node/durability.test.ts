import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { NodeCluster, get, put, waitFor } from "./testing/cluster.ts";

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

describe("RaftNode: restart, snapshots and compaction", () => {
  let c: NodeCluster | undefined;
  afterEach(async () => {
    await c?.close();
    c = undefined;
  });

  it("restarts every node from disk (WAL + snapshot) with the same state", async () => {
    c = await NodeCluster.create(3, { snapshotThreshold: 100, snapshotCatchUpEntries: 20 });
    const leader = await c.leader();
    for (let round = 0; round < 5; round++) {
      await Promise.all(Array.from({ length: 70 }, (_, i) => put(leader, `k${round}-${i}`, `v${round}-${i}`)));
    }
    await leader.propose({ type: "deleteRange", request: { key: new TextEncoder().encode("k0-1") } });
    await leader.propose({ type: "leaseGrant", request: { id: 77n, ttl: 600 } });
    await c.converge();
    const applied = Math.max(...c.running().map((n) => n.appliedIndex));
    // A snapshot is skipped while the previous one is still being written; the next Ready (a heartbeat at the latest) takes it.
    await waitFor(() => c?.running().every((n) => n.snapshotsTaken >= 2) ?? false, "two snapshots on every node");
    const before = new Map(c.running().map((n) => [n.id, hex(n.mvcc.snapshot())]));
    expect(new Set(before.values()).size).toBe(1);
    const members = leader.members();
    for (const id of [1, 2, 3]) await c.stop(id);
    for (const id of [1, 2, 3]) {
      const files = await readdir(join(c.dataDir(id), "snap"));
      expect(files.some((f) => f.endsWith(".snap"))).toBe(true);
    }
    // Restart one at a time: a node alone re-applies its committed tail from disk.
    const first = await c.start(1);
    expect(first.appliedIndex).toBeGreaterThanOrEqual(first.status().raftIndex);
    await c.start(2);
    await c.start(3);
    await c.leader();
    await c.converge(applied);
    for (const n of c.running()) {
      expect(hex(n.mvcc.snapshot())).toBe(before.get(n.id));
      expect(n.members()).toEqual(members);
    }
    const l2 = await c.leader();
    await put(l2, "after", "restart");
    await c.converge();
    for (const n of c.running()) expect(get(n, "after")).toBe("restart");
  });

  it("sends a snapshot to a follower that lags behind the compacted log", async () => {
    c = await NodeCluster.create(3, { snapshotThreshold: 50, snapshotCatchUpEntries: 10 });
    let leader = await c.leader();
    const lagging = c.follower(leader).id;
    await c.stop(lagging);
    for (let i = 0; i < 6; i++) await Promise.all(Array.from({ length: 40 }, (_, j) => put(leader, `s${i}-${j}`, `${i * j}`)));
    leader = await c.leader();
    expect(leader.snapshotsTaken).toBeGreaterThan(0);
    const back = await c.start(lagging);
    const seen: number[] = [];
    const startRevision = back.mvcc.currentRevision;
    back.onApplied((ch) => seen.push(ch.revision));
    await waitFor(() => back.stats.snapshotsInstalled > 0, "the snapshot install");
    await c.converge();
    expect(hex(back.mvcc.snapshot())).toBe(hex(leader.mvcc.snapshot()));
    expect(back.members()).toEqual(leader.members());
    // It keeps up with new writes after the install, and restarts from the installed snapshot.
    await put(leader, "later", "x");
    await c.converge();
    expect(get(back, "later")).toBe("x");
    // The applied feed stayed contiguous across the install.
    expect(seen[0]).toBe(startRevision + 1);
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBe(seen[i - 1] + 1);
    expect(seen[seen.length - 1]).toBe(back.mvcc.currentRevision);
    await c.stop(lagging);
    const again = await c.start(lagging);
    await c.converge();
    expect(hex(again.mvcc.snapshot())).toBe(hex(leader.mvcc.snapshot()));
  });

  it("fails waiting requests when stopped and refuses new ones", async () => {
    c = await NodeCluster.create(1);
    const n = c.node(1);
    await waitFor(() => n.isLeader, "leader");
    const pending = put(n, "a", "b").then(
      () => "applied",
      (e: unknown) => (e as { code: string }).code,
    );
    await n.stop();
    expect(["applied", "stopped"]).toContain(await pending);
    await expect(put(n, "c", "d")).rejects.toMatchObject({ code: "stopped" });
    await expect(n.readBarrier()).rejects.toMatchObject({ code: "stopped" });
  });
});
