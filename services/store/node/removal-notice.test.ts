// A member that never applies its own removal learns of it from the members
// that did: they refuse its messages with a removal notice (transport), and
// it stops by the retirement policy with the reason "removed by peers".
import { afterEach, describe, expect, it } from "vitest";
import type { RemovalNotice } from "../transport/types.ts";
import { boundTransport, NodeCluster, put, waitFor, type NodeOverrides, type TransportWrap } from "./testing/cluster.ts";

/** Records what the nodes log when they stop after a removal, and their onRemoved calls. */
function stopRecorder(): { reasons: string[]; removed: Map<number, string>; overrides: NodeOverrides } {
  const reasons: string[] = [];
  const removed = new Map<number, string>();
  return {
    reasons,
    removed,
    overrides: {
      log: (_level, msg, fields) => void (msg.includes("removed from the cluster; stopping") && reasons.push(String(fields?.reason))),
      removedLingerMaxMs: 60_000,
    },
  };
}

describe("RaftNode: a removed member that did not apply its removal", () => {
  let c: NodeCluster | undefined;
  afterEach(async () => {
    await c?.close();
    c = undefined;
  });

  it("hears it from the members, stops (removed by peers), and the cluster keeps serving", async () => {
    const rec = stopRecorder();
    c = await NodeCluster.create(3, rec.overrides);
    const leader = await c.leader();
    await put(leader, "before", "1");
    await c.converge();
    const victim = c.follower(leader);
    let onRemovedReason: string | undefined;
    // Restart the victim with an onRemoved hook (same data directory).
    await c.stop(victim.id);
    const restarted = await c.start(victim.id, { onRemoved: (r) => (onRemovedReason = r) });
    const current = await c.leader();
    await c.converge();

    // Cut it off, so that nothing it receives tells it that its removal committed.
    const others = c.running().filter((n) => n.id !== victim.id).map((n) => n.id);
    c.net.isolate(victim.id, others);
    const appliedBefore = restarted.appliedIndex;
    await current.removeMember(victim.id);
    await waitFor(() => c!.running().filter((n) => n.id !== victim.id).every((n) => !n.members().some((m) => m.id === victim.id)), "the others to apply the removal");
    c.net.heal();

    // Its campaigns reach the others, which refuse them with the notice.
    await waitFor(() => restarted.isStopped, "the removed member to stop", 15_000);
    c.nodes.delete(victim.id);
    expect(restarted.appliedIndex).toBe(appliedBefore);
    expect(restarted.members().some((m) => m.id === victim.id)).toBe(true);
    expect(rec.reasons).toEqual(["removed by peers"]);
    await waitFor(() => onRemovedReason !== undefined, "the onRemoved call");
    expect(onRemovedReason).toBe("removed by peers");

    const next = await c.leader();
    await put(next, "after", "2");
    await c.converge();
  });

  it("ignores a notice for an index it has applied already", async () => {
    const handlers = new Map<number, (peer: number, notice: RemovalNotice) => void>();
    const wrap: TransportWrap = (t) => ({ ...boundTransport(t), onRemoved: (h) => (handlers.set(t.id, h), t.onRemoved(h)) });
    const rec = stopRecorder();
    c = await NodeCluster.create(3, rec.overrides, wrap);
    const leader = await c.leader();
    await put(leader, "k", "v");
    await c.converge();
    const follower = c.follower(leader);
    handlers.get(follower.id)!(leader.id, { index: follower.appliedIndex, term: 1 });
    expect(follower.isRetiring).toBe(false);
    await put(follower, "still", "serving");
    await c.converge();
    expect(c.running()).toHaveLength(3);
    expect(rec.reasons).toEqual([]);
  });
});
