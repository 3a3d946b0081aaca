import { afterEach, describe, expect, it } from "vitest";
import { NodeCluster, get, memberOf, put, waitFor } from "./testing/cluster.ts";

describe("RaftNode: membership", () => {
  let c: NodeCluster | undefined;
  afterEach(async () => {
    await c?.close();
    c = undefined;
  });

  it("adds a learner, promotes it, and removes a member", async () => {
    c = await NodeCluster.create(3);
    const leader = await c.leader();
    await Promise.all(Array.from({ length: 20 }, (_, i) => put(leader, `m${i}`, `${i}`)));

    const follower = c.follower(leader);
    const afterAdd = await follower.addMember(4, ["mem://4"], true, { name: "n4", clientUrls: ["mem://client-4"] });
    expect(afterAdd.find((m) => m.id === 4)).toEqual({ id: 4, name: "n4", peerUrls: ["mem://4"], clientUrls: ["mem://client-4"], isLearner: true });
    await expect(leader.addMember(4, ["mem://4"])).rejects.toMatchObject({ code: "invalid-member" });

    const joined = await c.start(4, { join: true, initialMembers: c.members, clusterId: leader.clusterId });
    await c.converge();
    expect(get(joined, "m19")).toBe("19");
    expect(joined.members()).toEqual(leader.members());
    expect(joined.status().clusterId).toBe(leader.status().clusterId);

    await waitFor(() => (leader.raftStatus().progress?.[4]?.match ?? 0) >= leader.status().raftIndex, "the learner to catch up");
    const promoted = await leader.promoteMember(4);
    expect(promoted.find((m) => m.id === 4)?.isLearner).toBe(false);
    expect(leader.raftStatus().confState.voters.sort()).toEqual([1, 2, 3, 4]);

    // Remove a follower other than the new member. It stops itself once
    // nobody needs its vote (raft/retirement.ts), whether it applied its
    // removal or, when the leader stopped sending to it first, heard of it
    // from the members refusing its messages (removal notice).
    const victim = c.running().find((n) => n.id !== leader.id && n.id !== 4)!;
    const afterRemove = await leader.removeMember(victim.id);
    expect(afterRemove.map((m) => m.id)).not.toContain(victim.id);
    await waitFor(() => victim.isStopped, "the removed member to stop", 10_000);
    c.nodes.delete(victim.id);
    await expect(leader.removeMember(victim.id)).rejects.toMatchObject({ code: "invalid-member" });

    await put(leader, "after", "remove");
    await c.converge();
    for (const n of c.running()) {
      expect(get(n, "after")).toBe("remove");
      expect(n.members().map((m) => m.id)).toEqual([1, 2, 3, 4].filter((id) => id !== victim.id));
    }
    expect(leader.raftStatus().confState.voters.sort()).toEqual([1, 2, 3, 4].filter((id) => id !== victim.id));
  });

  it("a member added after the log was compacted joins through a snapshot", async () => {
    c = await NodeCluster.create(3, { snapshotThreshold: 20, snapshotCatchUpEntries: 5 });
    const leader = await c.leader();
    for (let i = 0; i < 4; i++) await Promise.all(Array.from({ length: 25 }, (_, j) => put(leader, `j${i}-${j}`, `${j}`)));
    // Stop right after a snapshot, so the one the core would send predates the new member.
    for (let i = 0; leader.appliedIndex - leader.snapshotIndex > 2; i++) await put(leader, `pad${i}`, "x");
    const snapshotBefore = leader.snapshotIndex;
    expect(snapshotBefore).toBeGreaterThan(0);
    await leader.addMember(4, ["mem://4"], true);
    const joined = await c.start(4, { join: true, initialMembers: c.members, clusterId: leader.clusterId });
    await waitFor(() => joined.stats.snapshotsInstalled > 0, "the joiner's snapshot");
    expect(leader.snapshotIndex).toBe(snapshotBefore);
    await c.converge();
    expect(get(joined, "j3-24")).toBe("24");
    expect(joined.members().map((m) => m.id)).toEqual([1, 2, 3, 4]);
    await waitFor(() => (leader.raftStatus().progress?.[4]?.match ?? 0) >= leader.status().raftIndex, "the learner to catch up");
    await leader.promoteMember(4);
    await put(leader, "four", "4");
    await c.converge();
    expect(get(joined, "four")).toBe("4");
  });

  it("removing the leader hands over to a new leader", async () => {
    c = await NodeCluster.create(3);
    const leader = await c.leader();
    await leader.removeMember(leader.id).catch(() => undefined);
    await waitFor(() => leader.isStopped, "the removed leader to stop", 3000);
    c.nodes.delete(leader.id);
    const next = await c.leader();
    // The others apply the removal once the new leader commits an entry of its term.
    await waitFor(() => c!.running().every((n) => !n.members().some((m) => m.id === leader.id)), "the removal everywhere");
    await put(next, "k", "v");
    await c.converge();
  });

  it("updates a member's attributes", async () => {
    c = await NodeCluster.create(3);
    // Propose once every member has applied the leader's first entry of its term.
    await c.converge();
    const leader = await c.leader();
    await leader.updateMember(2, { clientUrls: ["https://10.0.0.2:2379"] });
    await c.converge();
    for (const n of c.running()) expect(n.members().find((m) => m.id === 2)).toEqual({ ...memberOf(2), clientUrls: ["https://10.0.0.2:2379"] });
  });
});
