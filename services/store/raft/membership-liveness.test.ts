// Regressions found by the simulator's membership schedules: two ways a group
// could be left without any electable node after a membership change.
import { describe, expect, it } from "vitest";
import { ConfChangeTransition, ConfChangeType, MessageType, StateType, newMessage, type ConfChange } from "./types.ts";
import { TestCluster, bytes } from "./sim/test-cluster.ts";

const removeNode = (nodeId: number): ConfChange => ({ transition: ConfChangeTransition.Auto, changes: [{ type: ConfChangeType.RemoveNode, nodeId }] });

describe("membership liveness", () => {
  it("a leader that removes itself hands over to a voter of the new config instead of just stepping down", () => {
    // Voters 1 and 2, leader 1. Node 1 removes itself; node 2 acknowledges the
    // change, but every message telling it the change committed is lost, and
    // node 1 holds one more (uncommitted) entry. Had node 1 simply stepped
    // down, node 2 would still use the old config {1, 2}, whose quorum needs
    // node 1's vote, which node 1 refuses (its log is longer): no leader ever.
    const c = new TestCluster([1, 2]);
    c.campaign(1);
    c.node(1).rn.proposeConfChange(removeNode(1));
    const appendConfChange = c.process(1);
    c.node(1).rn.propose(bytes("x"));
    c.process(1); // the append of "x" is lost
    for (const m of appendConfChange) c.node(2).rn.step(m);
    const ack = c.process(2);
    for (const m of ack) c.node(1).rn.step(m);
    c.process(1); // commits and applies the removal; the append carrying the commit index is lost

    // Node 1 is still leader, catching node 2 up before handing over.
    expect(c.raft(1).state).toBe(StateType.Leader);
    expect(c.raft(1).leadTransferee).toBe(2);
    c.stabilize();
    expect(c.delivered(MessageType.TimeoutNow).map((m) => [m.from, m.to])).toEqual([[1, 2]]);
    expect(c.raft(1).state).toBe(StateType.Follower);

    c.tick(40, [1, 2]);
    expect(c.leader()).toBe(2);
    expect(c.node(2).confState.voters).toEqual([2]);
    expect(c.node(2).applied).toContain("x");
  });

  it("a learner with a higher term answers a stale leader, which steps down so the group reaches that term", () => {
    // Without check-quorum or pre-vote a node with a higher term normally
    // brings the group to it by campaigning; a learner cannot campaign.
    const c = new TestCluster([1, 2], {}, [3]);
    c.campaign(1);
    c.node(3).rn.step(newMessage({ type: MessageType.Vote, from: 2, to: 3, term: 5 }));
    c.stabilize();
    expect(c.raft(3).term).toBe(5);

    c.propose(1, "y");
    expect(c.raft(1).state).toBe(StateType.Follower);
    expect(c.raft(1).term).toBe(5);
    c.tick(40, [1, 2, 3]);
    const leader = c.leader();
    expect([1, 2]).toContain(leader);
    expect(c.raft(leader as number).term).toBeGreaterThan(5);
    expect(c.node(3).applied).toContain("y");
  });
});
