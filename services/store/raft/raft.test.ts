// Feature tests: pre-vote, check-quorum and the leader lease, ReadIndex,
// leadership transfer, snapshots, flow control and batching, fast
// backtracking, proposal forwarding and typed drop errors.
import { describe, expect, it } from "vitest";
import type { Message } from "./types.ts";
import { MessageType, ReadOnlyOption, SnapshotStatus, StateType, newMessage } from "./types.ts";
import { ProposalDroppedError } from "./errors.ts";
import { TestCluster, bytes, drain, logTerms, soloNode, storageWithTerms, str } from "./sim/test-cluster.ts";
import type { Solo } from "./sim/test-cluster.ts";

const byType = (ms: Message[], t: number) => ms.filter((m) => m.type === t);

function dropReason(f: () => void): string | undefined {
  try {
    f();
  } catch (e) {
    if (e instanceof ProposalDroppedError) return e.reason;
    throw e;
  }
  return undefined;
}

/** A solo node made leader of [1..size] by votes; followers have acknowledged the empty entry when ack=true. */
function soloLeader(size: number, overrides = {}, ack = true): Solo {
  const ids = Array.from({ length: size }, (_, i) => i + 1);
  const s = soloNode(1, ids, { overrides });
  s.rn.campaign();
  for (const id of ids.slice(1)) s.rn.raft.step(newMessage({ type: MessageType.VoteResp, from: id, to: 1, term: 1 }));
  if (ack) for (const id of ids.slice(1)) s.rn.raft.step(newMessage({ type: MessageType.AppResp, from: id, to: 1, term: 1, index: 1 }));
  drain(s);
  return s;
}

describe("pre-vote", () => {
  it("an isolated node does not increase its term with pre-vote, and does without", () => {
    for (const preVote of [true, false]) {
      const c = new TestCluster([1, 2, 3], { preVote });
      c.campaign(1);
      c.isolate(3);
      c.tick(60, [3]);
      if (preVote) {
        expect(c.raft(3).term).toBe(1);
        expect(c.raft(3).state).toBe(StateType.PreCandidate);
      } else {
        expect(c.raft(3).term).toBeGreaterThan(2);
      }
    }
  });

  it("a rejoining node with a stale log does not disrupt the leader", () => {
    const c = new TestCluster([1, 2, 3], { preVote: true });
    c.campaign(1);
    c.isolate(3);
    c.propose(1, "a");
    c.tick(60, [3]);
    c.heal();
    c.node(3).rn.campaign();
    c.stabilize();
    expect(c.leader()).toBe(1);
    expect(c.raft(1).term).toBe(1);
    const rejects = c.delivered(MessageType.PreVoteResp).filter((m) => m.to === 3 && m.reject);
    expect(rejects.length).toBeGreaterThan(0);
    c.tick(5);
    expect(c.node(3).applied).toEqual(["a"]);
  });

  it("a pre-vote win leads to a real election", () => {
    const c = new TestCluster([1, 2, 3], { preVote: true });
    c.campaign(1);
    expect(c.leader()).toBe(1);
    expect(c.delivered(MessageType.PreVote).length).toBe(2);
    expect(c.delivered(MessageType.Vote).length).toBe(2);
  });
});

describe("check-quorum and leader lease", () => {
  it("an isolated leader steps down after an election timeout", () => {
    const c = new TestCluster([1, 2, 3], { checkQuorum: true });
    c.campaign(1);
    c.isolate(1);
    c.tick(10, [1]);
    c.tick(10, [1]);
    expect(c.raft(1).state).toBe(StateType.Follower);
  });

  it("a leader in contact with a quorum stays leader", () => {
    const c = new TestCluster([1, 2, 3], { checkQuorum: true });
    c.campaign(1);
    c.isolate(3);
    c.tick(50, [1, 2]);
    expect(c.raft(1).state).toBe(StateType.Leader);
    expect(c.raft(1).term).toBe(1);
  });

  it("followers in the lease ignore a disruptive candidate; without check-quorum it wins", () => {
    for (const checkQuorum of [true, false]) {
      const c = new TestCluster([1, 2, 3], { checkQuorum });
      c.campaign(1);
      c.node(3).rn.campaign();
      c.stabilize();
      if (checkQuorum) {
        expect(c.raft(2).term).toBe(1);
        expect(c.leader()).toBe(1);
      } else {
        expect(c.leader()).toBe(3);
      }
    }
  });
});

describe("ReadIndex", () => {
  it("the leader answers after a heartbeat round with its commit index", () => {
    const c = new TestCluster([1, 2, 3]);
    c.campaign(1);
    c.propose(1, "a");
    c.node(1).rn.readIndex(bytes("ctx1"));
    c.stabilize();
    expect(c.node(1).readStates).toEqual([{ index: 2, requestCtx: bytes("ctx1") }]);
    const hbs = c.delivered(MessageType.Heartbeat).filter((m) => m.context && str(m.context) === "ctx1");
    expect(hbs.length).toBe(2);
  });

  it("a follower forwards the request to the leader", () => {
    const c = new TestCluster([1, 2, 3]);
    c.campaign(1);
    c.propose(1, "a");
    c.node(2).rn.readIndex(bytes("f"));
    c.stabilize();
    expect(c.node(2).readStates).toEqual([{ index: 2, requestCtx: bytes("f") }]);
    expect(c.node(1).readStates).toEqual([]);
  });

  it("a new leader answers only after committing an entry of its term", () => {
    const c = new TestCluster([1, 2, 3]);
    c.dropTypes.add(MessageType.AppResp);
    c.campaign(1);
    expect(c.committed(1)).toBe(0);
    c.node(1).rn.readIndex(bytes("early"));
    c.stabilize();
    expect(c.node(1).readStates).toEqual([]);
    c.heal();
    c.tick(1);
    expect(c.committed(1)).toBe(1);
    expect(c.node(1).readStates).toEqual([{ index: 1, requestCtx: bytes("early") }]);
  });

  it("a leader cut off from the quorum cannot answer", () => {
    const c = new TestCluster([1, 2, 3]);
    c.campaign(1);
    c.isolate(1);
    c.node(1).rn.readIndex(bytes("x"));
    c.tick(3);
    expect(c.node(1).readStates).toEqual([]);
  });

  it("with no leader the request fails with a typed error", () => {
    const c = new TestCluster([1, 2, 3]);
    expect(dropReason(() => c.node(1).rn.readIndex(bytes("x")))).toBe("no-leader");
  });

  it("lease-based reads answer without a heartbeat round", () => {
    const c = new TestCluster([1, 2, 3], { checkQuorum: true, readOnlyOption: ReadOnlyOption.LeaseBased });
    c.campaign(1);
    const before = c.delivered(MessageType.Heartbeat).length;
    c.node(1).rn.readIndex(bytes("lease"));
    c.stabilize();
    expect(c.node(1).readStates).toEqual([{ index: 1, requestCtx: bytes("lease") }]);
    expect(c.delivered(MessageType.Heartbeat).length).toBe(before);
  });

  it("a single-node group answers at once", () => {
    const c = new TestCluster([1]);
    c.campaign(1);
    c.node(1).rn.readIndex(bytes("solo"));
    c.stabilize();
    expect(c.node(1).readStates).toEqual([{ index: 1, requestCtx: bytes("solo") }]);
  });
});

describe("leadership transfer", () => {
  it("hands leadership to an up-to-date follower with MsgTimeoutNow", () => {
    const c = new TestCluster([1, 2, 3], { checkQuorum: true });
    c.campaign(1);
    c.node(1).rn.transferLeader(2);
    c.stabilize();
    expect(c.leader()).toBe(2);
    expect(c.raft(2).term).toBe(2);
    expect(c.delivered(MessageType.TimeoutNow)).toHaveLength(1);
  });

  it("catches a lagging transferee up first", () => {
    const c = new TestCluster([1, 2, 3]);
    c.campaign(1);
    c.isolate(3);
    c.propose(1, "a");
    c.heal();
    c.node(1).rn.transferLeader(3);
    c.stabilize();
    expect(c.leader()).toBe(3);
    expect(c.node(3).applied).toEqual(["a"]);
  });

  it("drops proposals during a transfer and aborts it after an election timeout", () => {
    const c = new TestCluster([1, 2, 3]);
    c.campaign(1);
    c.isolate(3);
    c.propose(1, "a");
    c.node(1).rn.transferLeader(3);
    c.stabilize();
    expect(c.raft(1).leadTransferee).toBe(3);
    expect(dropReason(() => c.node(1).rn.propose(bytes("b")))).toBe("transfer-in-progress");
    c.tick(10, [1, 2]);
    expect(c.raft(1).leadTransferee).toBe(0);
    expect(c.raft(1).state).toBe(StateType.Leader);
    c.propose(1, "c");
    expect(c.node(2).applied).toEqual(["a", "c"]);
  });

  it("forwards a transfer request from a follower to the leader", () => {
    const c = new TestCluster([1, 2, 3]);
    c.campaign(1);
    c.node(2).rn.transferLeader(2);
    c.stabilize();
    expect(c.leader()).toBe(2);
  });

  it("ignores a transfer to itself or to a learner", () => {
    const c = new TestCluster([1, 2, 3], {}, [4]);
    c.campaign(1);
    c.node(1).rn.transferLeader(1);
    c.node(1).rn.transferLeader(4);
    c.stabilize();
    expect(c.leader()).toBe(1);
    expect(c.raft(1).leadTransferee).toBe(0);
  });
});

describe("snapshots", () => {
  it("a follower whose next entries were compacted gets a snapshot and restores it", () => {
    const c = new TestCluster([1, 2, 3]);
    c.campaign(1);
    c.isolate(3);
    for (const d of ["a", "b", "c", "d"]) c.propose(1, d);
    const snapIndex = c.compact(1);
    expect(snapIndex).toBe(5);
    c.heal();
    c.propose(1, "e");
    expect(c.delivered(MessageType.Snap).filter((m) => m.to === 3)).toHaveLength(1);
    expect(c.node(3).applied).toEqual(["a", "b", "c", "d", "e"]);
    expect(c.node(3).storage.snapshot().metadata.index).toBe(5);
    expect(c.raft(3).log.firstIndex()).toBe(6);
    expect(logTerms(c.node(3).rn)).toEqual([1]);
  });

  it("a failed snapshot report returns the follower to probing from its match", () => {
    const c = new TestCluster([1, 2, 3]);
    c.campaign(1);
    c.isolate(3);
    c.propose(1, "a");
    c.compact(1);
    c.dropTypes.add(MessageType.Snap);
    c.heal();
    c.dropTypes.add(MessageType.Snap);
    c.tick(1);
    const st = () => c.node(1).rn.status().progress?.[3];
    expect(st()?.state).toBe("Snapshot");
    c.node(1).rn.reportSnapshot(3, SnapshotStatus.Failure);
    expect(st()?.state).toBe("Probe");
    expect(st()?.next).toBe((st()?.match ?? 0) + 1);
  });

  it("a follower ignores a snapshot older than its commit index", () => {
    const s = soloNode(2, [1, 2, 3], { terms: [1, 1, 1], term: 1, commit: 3 });
    drain(s);
    const snap = { data: new Uint8Array(0), metadata: { index: 2, term: 1, confState: { voters: [1, 2, 3], learners: [], votersOutgoing: [], learnersNext: [], autoLeave: false } } };
    s.rn.step(newMessage({ type: MessageType.Snap, from: 1, to: 2, term: 1, snapshot: snap }));
    const msgs = drain(s);
    expect(msgs[0]).toMatchObject({ type: MessageType.AppResp, index: 3 });
    expect(s.rn.raft.log.firstIndex()).toBe(1);
  });

  it("a restarted node resumes from its snapshot and log", () => {
    const c = new TestCluster([1, 2, 3]);
    c.campaign(1);
    for (const d of ["a", "b"]) c.propose(1, d);
    c.compact(2);
    c.propose(1, "c");
    const n2 = c.node(2);
    const restarted = c.addNode(2, n2.storage, { applied: n2.storage.snapshot().metadata.index });
    restarted.applied = JSON.parse(str(n2.storage.snapshot().data)) as string[];
    c.stabilize();
    expect(restarted.applied).toEqual(["a", "b", "c"]);
    expect(c.raft(2).term).toBe(1);
    c.propose(1, "d");
    expect(restarted.applied).toEqual(["a", "b", "c", "d"]);
  });
});

describe("flow control and batching", () => {
  it("limits in-flight appends to maxInflightMsgs in replicate state", () => {
    const s = soloLeader(3, { maxInflightMsgs: 3, maxSizePerMsg: 0 });
    for (let i = 0; i < 10; i++) s.rn.propose(bytes(`e${i}`));
    let apps = byType(drain(s), MessageType.App).filter((m) => m.to === 2);
    expect(apps).toHaveLength(3);
    expect(apps.map((m) => m.entries.length)).toEqual([1, 1, 1]);
    // Acknowledging the first two frees two slots.
    s.rn.step(newMessage({ type: MessageType.AppResp, from: 2, to: 1, term: 1, index: 3 }));
    apps = byType(drain(s), MessageType.App).filter((m) => m.to === 2 && m.entries.length > 0);
    expect(apps).toHaveLength(2);
    expect(apps.map((m) => m.entries[0].index)).toEqual([5, 6]);
  });

  it("a heartbeat response frees a slot of a full window", () => {
    const s = soloLeader(3, { maxInflightMsgs: 2, maxSizePerMsg: 0 });
    for (let i = 0; i < 5; i++) s.rn.propose(bytes(`e${i}`));
    expect(byType(drain(s), MessageType.App).filter((m) => m.to === 2)).toHaveLength(2);
    s.rn.step(newMessage({ type: MessageType.HeartbeatResp, from: 2, to: 1, term: 1 }));
    const apps = byType(drain(s), MessageType.App).filter((m) => m.to === 2);
    expect(apps).toHaveLength(1);
    expect(apps[0].entries[0].index).toBe(4);
  });

  it("sends one probe at a time to a follower in probe state", () => {
    const s = soloLeader(3, {}, false);
    for (let i = 0; i < 3; i++) s.rn.propose(bytes(`e${i}`));
    expect(byType(drain(s), MessageType.App).filter((m) => m.to === 2)).toHaveLength(0);
    s.rn.tick();
    const out = drain(s);
    expect(byType(out, MessageType.Heartbeat).filter((m) => m.to === 2)).toHaveLength(1);
    s.rn.step(newMessage({ type: MessageType.HeartbeatResp, from: 2, to: 1, term: 1 }));
    const probes = byType(drain(s), MessageType.App).filter((m) => m.to === 2);
    expect(probes).toHaveLength(1);
  });

  it.each([
    { maxSizePerMsg: 1024 * 1024, messages: 1 },
    { maxSizePerMsg: 0, messages: 5 },
    // each entry counts 6 payload bytes + 16: two fit in 50
    { maxSizePerMsg: 50, messages: 3 },
  ])("batches entries by maxSizePerMsg=$maxSizePerMsg into $messages message(s)", ({ maxSizePerMsg, messages }) => {
    const s = soloLeader(3, { maxSizePerMsg }, false);
    for (let i = 0; i < 5; i++) s.rn.propose(bytes(`entry${i}`));
    drain(s);
    // The follower acknowledges the empty entry: it moves to replicate and gets the backlog.
    s.rn.step(newMessage({ type: MessageType.AppResp, from: 2, to: 1, term: 1, index: 1 }));
    const apps = byType(drain(s), MessageType.App).filter((m) => m.to === 2 && m.entries.length > 0);
    expect(apps).toHaveLength(messages);
    expect(apps.flatMap((m) => m.entries.map((e) => e.index))).toEqual([2, 3, 4, 5, 6]);
  });

  it("limits the leader's uncommitted tail", () => {
    const c = new TestCluster([1, 2, 3], { maxUncommittedEntriesSize: 10 });
    c.campaign(1);
    c.isolate(1);
    c.node(1).rn.propose(bytes("12345678"));
    expect(dropReason(() => c.node(1).rn.propose(bytes("12345678")))).toBe("uncommitted-size-exceeded");
    c.heal();
    c.tick(1);
    expect(c.committed(1)).toBe(2);
    c.propose(1, "12345678");
    expect(c.node(3).applied).toEqual(["12345678", "12345678"]);
  });
});

describe("fast log backtracking", () => {
  function clusterWith(leaderTerms: number[], followerTerms: number[]): TestCluster {
    const c = new TestCluster([1, 2, 3]);
    const term = Math.max(...leaderTerms, ...followerTerms);
    for (const [id, terms] of [
      [1, leaderTerms],
      [2, followerTerms],
      [3, leaderTerms],
    ] as const) {
      const st = storageWithTerms([1, 2, 3], [...terms]);
      st.setHardState({ term, vote: 0, commit: 0 });
      c.addNode(id, st);
    }
    return c;
  }

  it.each([
    // follower log is behind with a lower-term tail: the leader skips its higher-term indexes
    { leader: [1, 3, 3, 3, 5, 5, 5, 5, 5], follower: [1, 1, 1, 1, 2, 2], maxRejects: 2 },
    // follower has a long divergent tail of higher terms: the follower skips it
    { leader: [1, 3, 3, 3, 3, 3, 3, 3, 7], follower: [1, 3, 3, 4, 4, 5, 5, 5, 6], maxRejects: 2 },
    { leader: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], follower: [1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2], maxRejects: 2 },
  ])("resolves a divergence with at most $maxRejects rejections", ({ leader, follower, maxRejects }) => {
    const c = clusterWith(leader, follower);
    c.cut(2, 3);
    c.campaign(1);
    expect(c.leader()).toBe(1);
    c.propose(1, "x");
    const rejects = c.delivered(MessageType.AppResp).filter((m) => m.from === 2 && m.reject);
    expect(rejects.length).toBeGreaterThan(0);
    expect(rejects.length).toBeLessThanOrEqual(maxRejects);
    expect(logTerms(c.node(2).rn)).toEqual(logTerms(c.node(1).rn));
  });

  it("a rejection carries a hint with the follower's conflicting term", () => {
    const s = soloNode(2, [1, 2, 3], { terms: [1, 3, 3, 4, 4, 5, 5, 5, 6], term: 7 });
    s.rn.step(newMessage({ type: MessageType.App, from: 1, to: 2, term: 8, index: 8, logTerm: 3 }));
    const [resp] = drain(s);
    expect(resp).toMatchObject({ type: MessageType.AppResp, reject: true, index: 8, rejectHint: 3, logTerm: 3 });
  });
});

describe("proposal forwarding and drop errors", () => {
  it("a follower forwards proposals to the leader", () => {
    const c = new TestCluster([1, 2, 3]);
    c.campaign(1);
    c.propose(3, "via-3");
    for (const id of [1, 2, 3]) expect(c.node(id).applied).toEqual(["via-3"]);
    expect(c.delivered(MessageType.Prop).map((m) => [m.from, m.to])).toEqual([[3, 1]]);
  });

  it("a follower with forwarding disabled drops with a typed error", () => {
    const c = new TestCluster([1, 2, 3], { disableProposalForwarding: true });
    c.campaign(1);
    expect(dropReason(() => c.node(2).rn.propose(bytes("x")))).toBe("forwarding-disabled");
    expect(dropReason(() => c.node(1).rn.propose(bytes("y")))).toBeUndefined();
  });

  it("without a leader proposals fail with no-leader (follower and candidate)", () => {
    const c = new TestCluster([1, 2, 3]);
    expect(dropReason(() => c.node(1).rn.propose(bytes("x")))).toBe("no-leader");
    c.isolate(1);
    c.node(1).rn.campaign();
    expect(c.raft(1).state).toBe(StateType.Candidate);
    const err = (() => {
      try {
        c.node(1).rn.propose(bytes("x"));
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(ProposalDroppedError);
    expect((err as ProposalDroppedError).code).toBe("ErrProposalDropped");
    expect((err as ProposalDroppedError).message).toMatch(/no leader/);
  });
});
