// A member that applied its own removal keeps answering votes until the
// remaining members no longer need it, then stops (raft/retirement.ts).
//
// The case of etcd's documented caveat: two voters, the leader removes
// itself, and every message that would tell the other voter that the removal
// committed is lost (the commit-carrying appends and heartbeats, and the
// hand-over's MsgTimeoutNow). The other voter still uses the old config
// {1, 2}, whose quorum needs the removed member's vote: had the removed
// member stopped on applying its removal, no leader could ever be elected.
import { afterEach, describe, expect, it } from "vitest";
import { MessageType, type Message } from "../raft/index.ts";
import { filteredTransport, NodeCluster, put, waitFor, type NodeOverrides, type TransportWrap } from "./testing/cluster.ts";

/** Collects the reasons the nodes give for stopping after their removal. */
function stopReasons(): { reasons: string[]; log: NonNullable<NodeOverrides["log"]> } {
  const reasons: string[] = [];
  return { reasons, log: (_level, msg, fields) => void (msg.includes("removed from the cluster; stopping") && reasons.push(String(fields?.reason))) };
}

const carriesCommit = new Set<number>([MessageType.App, MessageType.Heartbeat, MessageType.TimeoutNow]);

describe("RaftNode: a removed member", () => {
  let c: NodeCluster | undefined;
  afterEach(async () => {
    await c?.close();
    c = undefined;
  });

  it("keeps answering votes until the other member leads the new config, then stops", async () => {
    // From the removal entry on, no commit index at or past it leaves the leader.
    let victim = 0;
    let dropFrom = Infinity;
    const sent: Message[] = [];
    const wrap: TransportWrap = (t) => filteredTransport(t, (m) => m.from === victim && carriesCommit.has(m.type) && m.commit >= dropFrom, sent);
    const stops = stopReasons();
    c = await NodeCluster.create(2, { removedLingerMaxMs: 60_000, log: stops.log }, wrap);
    const removed = await c.leader();
    const other = c.follower(removed);
    await put(removed, "before", "1");
    await c.converge();

    victim = removed.id;
    dropFrom = removed.status().raftIndex + 1;
    await removed.removeMember(removed.id).catch(() => undefined);
    await waitFor(() => removed.isRetiring, "the leader to apply its own removal");
    expect(other.members().map((m) => m.id)).toContain(removed.id);
    await expect(put(removed, "x", "y")).rejects.toMatchObject({ code: "stopped" });
    await expect(removed.readBarrier()).rejects.toMatchObject({ code: "stopped" });

    // The other member campaigns under the old config; the removed member
    // answers (its vote response carries the commit index), so the other one
    // learns that the removal committed and leads the new config alone.
    await waitFor(() => other.isLeader && other.members().length === 1, "the other member to lead the new config", 10_000);
    expect(other.raftStatus().confState.voters).toEqual([other.id]);
    const answers = sent.filter((m) => m.from === removed.id && (m.type === MessageType.PreVoteResp || m.type === MessageType.VoteResp));
    expect(answers.some((m) => m.commit >= dropFrom)).toBe(true);

    // Nobody asks for its vote any more: it stops long before the upper bound.
    await waitFor(() => removed.isStopped, "the removed member to stop", 10_000);
    c.nodes.delete(removed.id);
    expect(stops.reasons).toHaveLength(1);
    expect(["unneeded", "established"]).toContain(stops.reasons[0]);
    await put(other, "after", "2");
  });

  it("stops at the upper bound however it would otherwise wait", async () => {
    const stops = stopReasons();
    c = await NodeCluster.create(3, { removedLingerMaxMs: 0, log: stops.log });
    const leader = await c.leader();
    await leader.removeMember(leader.id).catch(() => undefined);
    await waitFor(() => leader.isStopped, "the removed leader to stop");
    c.nodes.delete(leader.id);
    expect(stops.reasons).toEqual(["upper bound"]);
    const next = await c.leader();
    await put(next, "k", "v");
  });
});
