// lazyCommitBroadcast: a moved commit index sends appends only to followers
// with entries to receive or committed forwarded proposals; the others learn
// it from the next heartbeat.
import { describe, expect, it } from "vitest";
import { ConfChangeTransition, ConfChangeType, MessageType, newMessage, type Message } from "./types.ts";
import { bytes, drain, soloNode, type Solo } from "./sim/test-cluster.ts";

/** Node 1 leading [1, 2, 3] at term 1, its empty entry (index 1) acknowledged and committed. */
function leader(lazyCommitBroadcast: boolean): Solo {
  const s = soloNode(1, [1, 2, 3], { overrides: { lazyCommitBroadcast } });
  s.rn.campaign();
  for (const id of [2, 3]) s.rn.raft.step(newMessage({ type: MessageType.VoteResp, from: id, to: 1, term: 1 }));
  for (const id of [2, 3]) s.rn.raft.step(newMessage({ type: MessageType.AppResp, from: id, to: 1, term: 1, index: 1 }));
  drain(s);
  return s;
}

const appends = (ms: Message[]) => ms.filter((m) => m.type === MessageType.App).map((m) => ({ to: m.to, entries: m.entries.length, commit: m.commit }));
const ack = (s: Solo, from: number, index: number) => s.rn.raft.step(newMessage({ type: MessageType.AppResp, from, to: 1, term: 1, index }));

describe("lazyCommitBroadcast", () => {
  it("a commit moved by one follower's answer sends no empty appends; the next heartbeat carries it", () => {
    const s = leader(true);
    s.rn.propose(bytes("a"));
    expect(appends(drain(s))).toEqual([
      { to: 2, entries: 1, commit: 1 },
      { to: 3, entries: 1, commit: 1 },
    ]);
    ack(s, 2, 2);
    expect(s.rn.raft.log.committed).toBe(2);
    expect(appends(drain(s))).toEqual([]);
    s.rn.tick();
    const beats = drain(s).filter((m) => m.type === MessageType.Heartbeat);
    expect(beats.map((m) => [m.to, m.commit])).toEqual([
      [2, 2],
      [3, 1], // capped at what 3 is known to hold
    ]);
  });

  it("without it (etcd's order) every follower gets an append with the new commit at once", () => {
    const s = leader(false);
    s.rn.propose(bytes("a"));
    drain(s);
    ack(s, 2, 2);
    expect(appends(drain(s))).toEqual([
      { to: 2, entries: 0, commit: 2 },
      { to: 3, entries: 0, commit: 2 },
    ]);
  });

  it("a follower whose forwarded proposal is committed is told at once, the other is not", () => {
    const s = leader(true);
    s.rn.raft.step(newMessage({ type: MessageType.Prop, from: 3, to: 1, entries: [{ term: 0, index: 0, type: 0, data: bytes("via-3") }] }));
    drain(s);
    ack(s, 2, 2);
    expect(appends(drain(s))).toEqual([{ to: 3, entries: 0, commit: 2 }]);
    // told once: the next commit (of the leader's own proposal) is lazy again for 3
    s.rn.propose(bytes("b"));
    drain(s);
    ack(s, 2, 3);
    expect(appends(drain(s))).toEqual([]);
  });

  it("a committed conf change is told to every member at once (the one being removed must learn it)", () => {
    const s = leader(true);
    s.rn.proposeConfChange({ transition: ConfChangeTransition.Auto, changes: [{ type: ConfChangeType.RemoveNode, nodeId: 3 }] });
    drain(s);
    ack(s, 2, 2);
    expect(s.rn.raft.log.committed).toBe(2);
    expect(appends(drain(s))).toEqual([
      { to: 2, entries: 0, commit: 2 },
      { to: 3, entries: 0, commit: 2 },
    ]);
    // the next ordinary commit is lazy again
    s.rn.propose(bytes("a"));
    drain(s);
    ack(s, 2, 3);
    expect(appends(drain(s))).toEqual([]);
  });

  it("entries not yet sent still go out with the commit", () => {
    const s = soloNode(1, [1, 2, 3], { overrides: { lazyCommitBroadcast: true, maxInflightMsgs: 1 } });
    s.rn.campaign();
    for (const id of [2, 3]) s.rn.raft.step(newMessage({ type: MessageType.VoteResp, from: id, to: 1, term: 1 }));
    for (const id of [2, 3]) ack(s, id, 1);
    drain(s);
    s.rn.propose(bytes("a"));
    drain(s);
    s.rn.propose(bytes("b")); // 2 and 3 are paused: one append in flight each
    expect(appends(drain(s))).toEqual([]);
    ack(s, 2, 2);
    expect(appends(drain(s))).toEqual([{ to: 2, entries: 1, commit: 2 }]);
  });

  describe("unsent commits (the node shell's bounded delay)", () => {
    it("a follower holding a commit it was not told of is owed one empty append, once", () => {
      const s = leader(true);
      s.rn.propose(bytes("a"));
      drain(s);
      expect(s.rn.hasUnsentCommit()).toBe(false); // nothing is committed beyond what was sent
      ack(s, 2, 2);
      expect(appends(drain(s))).toEqual([]);
      expect(s.rn.hasUnsentCommit()).toBe(true); // 2 holds index 2, told commit 1
      s.rn.sendUnsentCommits();
      expect(appends(drain(s))).toEqual([{ to: 2, entries: 0, commit: 2 }]); // 3 has not acknowledged index 2
      expect(s.rn.hasUnsentCommit()).toBe(false);
      ack(s, 3, 2); // now 3 holds it too
      expect(appends(drain(s))).toEqual([]);
      expect(s.rn.hasUnsentCommit()).toBe(true);
      s.rn.sendUnsentCommits();
      expect(appends(drain(s))).toEqual([{ to: 3, entries: 0, commit: 2 }]);
      s.rn.sendUnsentCommits();
      expect(appends(drain(s))).toEqual([]);
    });

    it("the next proposal's append carries the commit, so nothing is owed after it", () => {
      const s = leader(true);
      s.rn.propose(bytes("a"));
      drain(s);
      for (const id of [2, 3]) ack(s, id, 2);
      drain(s);
      expect(s.rn.hasUnsentCommit()).toBe(true);
      s.rn.propose(bytes("b"));
      expect(appends(drain(s))).toEqual([
        { to: 2, entries: 1, commit: 2 },
        { to: 3, entries: 1, commit: 2 },
      ]);
      expect(s.rn.hasUnsentCommit()).toBe(false);
    });

    it("a heartbeat's commit counts as told", () => {
      const s = leader(true);
      s.rn.propose(bytes("a"));
      drain(s);
      for (const id of [2, 3]) ack(s, id, 2);
      drain(s);
      s.rn.tick();
      expect(drain(s).filter((m) => m.type === MessageType.Heartbeat).map((m) => m.commit)).toEqual([2, 2]);
      expect(s.rn.hasUnsentCommit()).toBe(false);
    });

    it("is never owed on a follower", () => {
      const s = soloNode(2, [1, 2, 3], { overrides: { lazyCommitBroadcast: true } });
      expect(s.rn.hasUnsentCommit()).toBe(false);
      s.rn.sendUnsentCommits();
      expect(drain(s)).toEqual([]);
    });
  });
});
