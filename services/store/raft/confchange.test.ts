// Membership changes: the changer's rules, and conf changes in a running group
// (one voter at a time, joint consensus with automatic and explicit leave,
// learners and their promotion, removal of the leader).
import { describe, expect, it } from "vitest";
import type { ConfChange, ConfChangeSingle, ConfState } from "./types.ts";
import { ConfChangeTransition, ConfChangeType, EntryType, MessageType, StateType } from "./types.ts";
import { Changer, applyChange, decodeConfChange, encodeConfChange, restoreConfState } from "./confchange.ts";
import type { ChangeResult } from "./confchange.ts";
import { describeConfig } from "./tracker.ts";
import { MemoryStorage } from "./storage.ts";
import { ProposalDroppedError, RaftError } from "./errors.ts";
import { TestCluster, bytes } from "./sim/test-cluster.ts";

const add = (nodeId: number): ConfChangeSingle => ({ type: ConfChangeType.AddNode, nodeId });
const remove = (nodeId: number): ConfChangeSingle => ({ type: ConfChangeType.RemoveNode, nodeId });
const learner = (nodeId: number): ConfChangeSingle => ({ type: ConfChangeType.AddLearnerNode, nodeId });
const simple = (c: ConfChangeSingle): ConfChange => ({ transition: ConfChangeTransition.Auto, changes: [c] });
const leave: ConfChange = { transition: ConfChangeTransition.Auto, changes: [] };
const cs = (voters: number[], learners: number[] = []): ConfState => ({ voters, learners, votersOutgoing: [], learnersNext: [], autoLeave: false });

function start(voters: number[], learners: number[] = []): ChangeResult {
  return restoreConfState({ maxInflight: 16 }, 10, cs(voters, learners));
}
function changer(r: ChangeResult): Changer {
  return new Changer({ config: r.config, progress: r.progress, maxInflight: 16 }, 10);
}

describe("changer", () => {
  it.each([
    { name: "add a voter", from: [1, 2, 3], changes: [add(4)], want: "voters=(1 2 3 4)" },
    { name: "remove a voter", from: [1, 2, 3], changes: [remove(3)], want: "voters=(1 2)" },
    { name: "add a learner and a voter", from: [1], changes: [learner(5), add(2)], want: "voters=(1 2) learners=(5)" },
    { name: "demote a voter to learner", from: [1, 2, 3], changes: [learner(3)], want: "voters=(1 2) learners=(3)" },
    { name: "promote a learner", from: [1], changes: [learner(2), add(2)], want: "voters=(1 2)" },
    { name: "re-add an existing voter", from: [1, 2], changes: [add(2)], want: "voters=(1 2)" },
  ])("simple: $name", ({ from, changes, want }) => {
    expect(describeConfig(changer(start(from)).simple(changes).config)).toBe(want);
  });

  it.each([
    { name: "two voters at once", from: [1, 2, 3], changes: [add(4), add(5)], err: /more than one voter/ },
    { name: "replace a voter", from: [1, 2, 3], changes: [add(4), remove(3)], err: /more than one voter/ },
    { name: "remove the last voter", from: [1], changes: [remove(1)], err: /removed all voters/ },
  ])("simple refuses $name", ({ from, changes, err }) => {
    expect(() => changer(start(from)).simple(changes)).toThrow(err);
  });

  it("a new member is probed from the last index and counted as active", () => {
    const r = changer(start([1, 2, 3])).simple([add(4)]);
    const pr = r.progress.get(4);
    expect(pr?.next).toBe(10);
    expect(pr?.match).toBe(0);
    expect(pr?.recentActive).toBe(true);
  });

  it("enters and leaves a joint config", () => {
    const joint = changer(start([1, 2, 3])).enterJoint(true, [add(4), remove(3)]);
    expect(describeConfig(joint.config)).toBe("voters=(1 2 4)&&(1 2 3) autoleave");
    // 3 is still an outgoing voter: its progress is kept until the joint config is left.
    expect(joint.progress.has(3)).toBe(true);
    expect(() => changer(joint).simple([add(5)])).toThrow(/joint/);
    expect(() => changer(joint).enterJoint(false, [add(5)])).toThrow(/already joint/);
    const left = changer(joint).leaveJoint();
    expect(describeConfig(left.config)).toBe("voters=(1 2 4)");
    expect(left.progress.has(3)).toBe(false);
    expect(() => changer(left).leaveJoint()).toThrow(/non-joint/);
  });

  it("stages a demoted outgoing voter in learnersNext until leaving", () => {
    const joint = changer(start([1, 2, 3])).enterJoint(false, [learner(3)]);
    expect(describeConfig(joint.config)).toBe("voters=(1 2)&&(1 2 3) learners_next=(3)");
    const left = changer(joint).leaveJoint();
    expect(describeConfig(left.config)).toBe("voters=(1 2) learners=(3)");
    expect(left.progress.get(3)?.isLearner).toBe(true);
  });

  it("does not modify its input", () => {
    const base = start([1, 2, 3]);
    changer(base).enterJoint(true, [add(4), remove(1)]);
    expect(describeConfig(base.config)).toBe("voters=(1 2 3)");
    expect(base.progress.has(4)).toBe(false);
  });

  it("restores a joint ConfState exactly", () => {
    const joint: ConfState = { voters: [1, 2, 4], learners: [5], votersOutgoing: [1, 2, 3], learnersNext: [3], autoLeave: true };
    const r = restoreConfState({ maxInflight: 4 }, 1, joint);
    expect(describeConfig(r.config)).toBe("voters=(1 2 4)&&(1 2 3) learners=(5) learners_next=(3) autoleave");
  });

  it("maps a ConfChange to simple, joint or leave", () => {
    const base = start([1, 2, 3]);
    expect(describeConfig(applyChange(changer(base), simple(add(4))).config)).toBe("voters=(1 2 3 4)");
    expect(describeConfig(applyChange(changer(base), { transition: ConfChangeTransition.Auto, changes: [add(4), remove(3)] }).config)).toBe(
      "voters=(1 2 4)&&(1 2 3) autoleave",
    );
    expect(describeConfig(applyChange(changer(base), { transition: ConfChangeTransition.JointExplicit, changes: [add(4)] }).config)).toBe(
      "voters=(1 2 3 4)&&(1 2 3)",
    );
    expect(() => applyChange(changer(base), leave)).toThrow(RaftError);
  });

  it("encodes and decodes conf changes", () => {
    const cc: ConfChange = { transition: ConfChangeTransition.JointImplicit, changes: [add(7), remove(2 ** 40), learner(9)], context: bytes("ctx") };
    expect(decodeConfChange(encodeConfChange(cc))).toEqual(cc);
    expect(decodeConfChange(new Uint8Array(0))).toEqual(leave);
    expect(() => decodeConfChange(bytes("garbage!garbage"))).toThrow(/malformed/);
    const truncated = encodeConfChange(cc).slice(0, 12);
    expect(() => decodeConfChange(truncated)).toThrow(/malformed/);
  });
});

describe("conf changes in a running group", () => {
  // A joining node knows the group's initial membership (the bootstrap
  // ConfState) and learns later changes by replaying the log.
  function joinEmpty(c: TestCluster, id: number): void {
    c.addNode(id, new MemoryStorage(cs(c.voters)));
  }

  it("adds a voter that catches up and then counts for the quorum", () => {
    const c = new TestCluster([1, 2, 3]);
    c.campaign(1);
    c.propose(1, "a");
    joinEmpty(c, 4);
    c.proposeConfChange(1, simple(add(4)));
    c.tick(2);
    expect(c.node(1).confState.voters).toEqual([1, 2, 3, 4]);
    expect(c.node(4).confState.voters).toEqual([1, 2, 3, 4]);
    expect(c.node(4).applied).toEqual(["a"]);
    // Quorum is now 3 of 4.
    c.isolate(3);
    c.isolate(4);
    c.node(1).rn.propose(bytes("b"));
    c.stabilize();
    expect(c.node(2).applied).toEqual(["a"]);
    c.heal();
    c.tick(1);
    expect(c.node(2).applied).toEqual(["a", "b"]);
  });

  it("a new node with an empty storage joins through a snapshot that includes it", () => {
    const c = new TestCluster([1, 2, 3]);
    c.campaign(1);
    c.propose(1, "a");
    c.proposeConfChange(1, simple(add(4)));
    c.propose(1, "b");
    c.compact(1);
    c.addNode(4, new MemoryStorage());
    c.tick(2);
    expect(c.node(4).confState.voters).toEqual([1, 2, 3, 4]);
    expect(c.node(4).applied).toEqual(["a", "b"]);
    expect(c.delivered(MessageType.Snap).map((m) => m.to)).toEqual([4]);
  });

  it("removes a voter, after which two nodes form the quorum", () => {
    const c = new TestCluster([1, 2, 3]);
    c.campaign(1);
    c.proposeConfChange(1, simple(remove(3)));
    expect(c.node(1).confState.voters).toEqual([1, 2]);
    c.isolate(3);
    c.propose(1, "a");
    expect(c.node(2).applied).toEqual(["a"]);
  });

  it("neutralizes a second conf change while one is pending", () => {
    const c = new TestCluster([1, 2, 3]);
    c.campaign(1);
    c.node(1).rn.proposeConfChange(simple(add(4)));
    c.node(1).rn.proposeConfChange(simple(add(5)));
    const log = c.raft(1).log;
    const ents = log.slice(2, log.lastIndex() + 1, Number.MAX_SAFE_INTEGER);
    expect(ents.map((e) => e.type)).toEqual([EntryType.ConfChange, EntryType.Normal]);
    c.stabilize();
    expect(c.node(1).confState.voters).toEqual([1, 2, 3, 4]);
  });

  it("a removed leader steps down; with stepDownOnRemoval=false it keeps leading but refuses proposals", () => {
    const c = new TestCluster([1, 2, 3]);
    c.campaign(1);
    c.proposeConfChange(1, simple(remove(1)));
    expect(c.raft(1).state).toBe(StateType.Follower);
    c.tick(30, [2, 3]);
    expect([2, 3]).toContain(c.leader());

    const k = new TestCluster([1, 2, 3], { stepDownOnRemoval: false });
    k.campaign(1);
    k.proposeConfChange(1, simple(remove(1)));
    expect(k.raft(1).state).toBe(StateType.Leader);
    let reason: string | undefined;
    try {
      k.node(1).rn.propose(bytes("x"));
    } catch (e) {
      reason = e instanceof ProposalDroppedError ? e.reason : "other";
    }
    expect(reason).toBe("not-member");
  });

  it("replaces a voter through a joint config that is left automatically", () => {
    const c = new TestCluster([1, 2, 3]);
    c.campaign(1);
    joinEmpty(c, 4);
    c.proposeConfChange(1, { transition: ConfChangeTransition.Auto, changes: [add(4), remove(3)] });
    c.tick(2);
    for (const id of [1, 2, 4]) {
      expect(c.node(id).confState).toEqual({ voters: [1, 2, 4], learners: [], votersOutgoing: [], learnersNext: [], autoLeave: false });
    }
    const ccEntries = c.raft(1).log.allEntries().filter((e) => e.type === EntryType.ConfChange);
    expect(ccEntries).toHaveLength(2);
    expect(decodeConfChange(ccEntries[1].data).changes).toEqual([]);
  });

  it("a joint config needs both majorities, and an explicit leave ends it", () => {
    const c = new TestCluster([1, 2, 3]);
    c.campaign(1);
    joinEmpty(c, 4);
    c.proposeConfChange(1, { transition: ConfChangeTransition.JointExplicit, changes: [add(4), remove(3)] });
    c.tick(2);
    expect(c.node(1).confState).toMatchObject({ voters: [1, 2, 4], votersOutgoing: [1, 2, 3] });
    // {1, 4}: a majority of the incoming (1 2 4) but not of the outgoing (1 2 3).
    c.isolate(2);
    c.isolate(3);
    c.node(1).rn.propose(bytes("x"));
    c.stabilize();
    const before = c.committed(1);
    expect(c.node(4).rn.raft.log.lastIndex()).toBeGreaterThan(before);
    // {1, 3, 4}: majorities of both.
    c.heal();
    c.isolate(2);
    c.tick(1);
    expect(c.committed(1)).toBeGreaterThan(before);
    c.heal();
    c.proposeConfChange(1, leave);
    expect(c.node(1).confState).toEqual({ voters: [1, 2, 4], learners: [], votersOutgoing: [], learnersNext: [], autoLeave: false });
  });

  it("a learner receives the log, does not vote or count, and can be promoted", () => {
    const c = new TestCluster([1, 2, 3], {}, [4]);
    c.campaign(1);
    c.propose(1, "a");
    expect(c.node(4).applied).toEqual(["a"]);
    // Not promotable: it never campaigns, even when it hears nothing.
    c.isolate(4);
    c.tick(50, [4]);
    expect(c.raft(4).state).toBe(StateType.Follower);
    expect(c.raft(4).term).toBe(1);
    c.heal();
    // It does not count towards the quorum.
    c.isolate(2);
    c.isolate(3);
    c.node(1).rn.propose(bytes("b"));
    c.stabilize();
    expect(c.node(4).rn.raft.log.lastIndex()).toBe(c.raft(1).log.lastIndex());
    expect(c.committed(1)).toBe(2);
    c.heal();
    c.tick(1);
    // Promote it.
    c.proposeConfChange(1, simple(add(4)));
    expect(c.node(4).confState.voters).toEqual([1, 2, 3, 4]);
    expect(c.raft(4).isLearner).toBe(false);
    c.isolate(1);
    c.tick(40, [2, 3, 4]);
    expect(c.leaders().filter((id) => id !== 1).length).toBe(1);
  });
});
