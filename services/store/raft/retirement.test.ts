// A removed member's retirement (retirement.ts) and the commit hint of vote
// responses (election.ts), including the scenario of simulator seed 4400.
import { describe, expect, it } from "vitest";
import { ConfChangeTransition, ConfChangeType, MessageType, StateType, newMessage, type ConfChange, type Message } from "./types.ts";
import { Retirement } from "./retirement.ts";
import { TestCluster } from "./sim/test-cluster.ts";

const leaveJoint: ConfChange = { transition: ConfChangeTransition.Auto, changes: [] };

/** Feeds a node's retirement with the messages delivered to it since the last call. */
function observer(c: TestCluster, id: number, ret: Retirement): () => void {
  let cursor = c.trace.length;
  return () => {
    for (const m of c.trace.slice(cursor)) if (m.to === id) ret.observe(m);
    cursor = c.trace.length;
  };
}

describe("retirement of a removed member", () => {
  it("the scenario of seed 4400: the removed leader alone knows the joint config was left; it stays and its vote response tells the others", () => {
    // Voters {1, 2}, learner 3, leader 1; joint config: incoming {2, 3}, outgoing {1, 2}.
    const c = new TestCluster([1, 2], { checkQuorum: true, preVote: true }, [3]);
    c.campaign(1);
    c.proposeConfChange(1, {
      transition: ConfChangeTransition.JointExplicit,
      changes: [
        { type: ConfChangeType.RemoveNode, nodeId: 1 },
        { type: ConfChangeType.AddNode, nodeId: 3 },
      ],
    });
    expect(c.node(2).confState.votersOutgoing).toEqual([1, 2]);

    // Node 1 commits the leave; nodes 2 and 3 acknowledge it but every message
    // telling them it committed (and the hand-over) is lost.
    c.node(1).rn.proposeConfChange(leaveJoint);
    const appends = c.process(1);
    const acks: Message[] = [];
    for (const m of appends) {
      c.node(m.to).rn.step(m);
      acks.push(...c.process(m.to));
    }
    for (const m of acks) c.node(1).rn.step(m);
    c.process(1); // commits and applies the leave: node 1 is no longer a member
    c.process(1);
    expect(c.node(1).confState.voters).toEqual([2, 3]);
    expect(c.node(2).confState.votersOutgoing).toEqual([1, 2]);
    const retirement = new Retirement(10);
    retirement.markRemoved(c.raft(1));
    const observe = observer(c, 1, retirement);
    const tick = (times: number, ids?: number[]): void => {
      for (let i = 0; i < times; i++) {
        c.tick(1, ids);
        observe();
        retirement.tick();
      }
    };

    // Cut off, node 1 steps down (check-quorum); the others cannot elect
    // anyone under the joint config without node 1's vote.
    c.isolate(1);
    tick(25);
    expect(c.raft(1).state).toBe(StateType.Follower);
    expect(c.leaders()).toEqual([]);
    expect(retirement.reason(c.raft(1))).toBeUndefined();

    // Reconnected, node 1 answers the others' (pre-)vote requests with its
    // commit index; they learn that the leave committed, apply it and elect a
    // leader of {2, 3}. Meanwhile node 1 stays.
    c.heal();
    for (let i = 0; i < 40 && c.leader() === undefined; i++) {
      tick(1);
      expect(retirement.reason(c.raft(1))).toBeUndefined();
    }
    const leader = c.leader();
    expect([2, 3]).toContain(leader);
    expect(c.node(2).confState).toMatchObject({ voters: [2, 3], votersOutgoing: [] });
    expect(c.delivered(MessageType.PreVoteResp).some((m) => m.from === 1 && m.commit >= c.committed(1))).toBe(true);

    // Nobody needs node 1 any more: it may leave after the quiet period.
    tick(30);
    expect(retirement.reason(c.raft(1))).toBe("unneeded");
    c.node(leader as number).rn.propose(new TextEncoder().encode("after"));
    c.stabilize();
    expect(c.node(2).applied).toContain("after");
    expect(c.node(3).applied).toContain("after");
  });

  it("is established once an entry of a later term commits, never while leading, and a vote request resets the quiet period", () => {
    const c = new TestCluster([1, 2, 3]);
    c.campaign(1);
    const r = new Retirement(10, 2);
    expect(r.reason(c.raft(2))).toBeUndefined();
    r.markRemoved(c.raft(1));
    for (let i = 0; i < 25; i++) r.tick();
    expect(r.reason(c.raft(1))).toBeUndefined(); // leading
    const f = new Retirement(10, 2);
    f.markRemoved(c.raft(2));
    for (let i = 0; i < 19; i++) f.tick();
    f.observe(newMessage({ type: MessageType.PreVote, from: 3, to: 2, term: 2 }));
    for (let i = 0; i < 19; i++) f.tick();
    expect(f.reason(c.raft(2))).toBeUndefined();
    f.tick();
    expect(f.reason(c.raft(2))).toBe("unneeded");

    const g = new Retirement(10);
    g.markRemoved(c.raft(3));
    c.campaign(2); // a later term; its empty entry commits
    expect(c.raft(3).log.term(c.raft(3).log.committed)).toBe(c.raft(2).term);
    expect(g.reason(c.raft(3))).toBe("established");
  });

  it("marked with a teller's term, is established only by a commit of a term above it", () => {
    const c = new TestCluster([1, 2, 3]);
    c.campaign(1);
    const term = c.raft(3).term;
    const told = new Retirement(10);
    told.markRemoved(c.raft(3), term + 1); // the teller was one term ahead
    const plain = new Retirement(10);
    plain.markRemoved(c.raft(3));
    c.campaign(2); // term + 1; its empty entry commits
    expect(c.raft(3).log.term(c.raft(3).log.committed)).toBe(term + 1);
    expect(plain.reason(c.raft(3))).toBe("established");
    expect(told.reason(c.raft(3))).toBeUndefined();
    c.campaign(1); // term + 2
    expect(told.reason(c.raft(3))).toBe("established");
  });
});

describe("commit hint of vote responses", () => {
  it("a candidate commits up to a voter's commit index when its log holds that entry, and only then", () => {
    const c = new TestCluster([1, 2, 3]);
    c.campaign(1);
    // Node 2 holds "a" but never learns that it committed.
    c.node(1).rn.propose(new TextEncoder().encode("a"));
    const acks: Message[] = [];
    for (const m of c.process(1)) {
      c.node(m.to).rn.step(m);
      acks.push(...c.process(m.to));
    }
    for (const m of acks) c.node(1).rn.step(m);
    c.process(1);
    const committedAt1 = c.committed(1);
    expect(c.committed(2)).toBeLessThan(committedAt1);
    const r2 = c.raft(2);
    const hint = { commit: committedAt1, logTerm: c.raft(1).log.term(committedAt1) as number };
    r2.step(newMessage({ type: MessageType.Hup, from: 2 }));
    r2.step(newMessage({ type: MessageType.VoteResp, from: 3, to: 2, term: r2.term, reject: true, commit: hint.commit, logTerm: hint.logTerm + 1 }));
    expect(c.committed(2)).toBeLessThan(committedAt1); // a term that does not match: nothing learned
    r2.step(newMessage({ type: MessageType.VoteResp, from: 3, to: 2, term: r2.term, reject: true, ...hint }));
    expect(c.committed(2)).toBe(committedAt1);
  });

  it("a candidate that learns a conf change committed abandons its campaign until it applied it", () => {
    const c = new TestCluster([1, 2, 3]);
    c.campaign(1);
    c.autoApplyConfChanges = true;
    c.node(1).rn.proposeConfChange({ transition: ConfChangeTransition.Auto, changes: [{ type: ConfChangeType.RemoveNode, nodeId: 3 }] });
    const appends = c.process(1);
    for (const m of appends) if (m.to === 2) c.node(2).rn.step(m);
    c.process(2); // node 2 holds the conf change, not knowing it committed
    const r2 = c.raft(2);
    r2.step(newMessage({ type: MessageType.Hup, from: 2 }));
    expect(r2.state).toBe(StateType.Candidate);
    const idx = c.raft(1).log.lastIndex();
    r2.step(newMessage({ type: MessageType.VoteResp, from: 3, to: 2, term: r2.term, commit: idx, logTerm: c.raft(1).log.term(idx) as number }));
    expect(r2.state).toBe(StateType.Follower);
    expect(r2.vote).toBe(2);
    expect(c.committed(2)).toBe(idx);
  });
});
