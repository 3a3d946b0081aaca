// The rules of the Raft paper (§5.1–§5.4), one table or case per rule.
import { describe, expect, it } from "vitest";
import type { Message } from "./types.ts";
import { EntryType, MessageType, None, StateType, newMessage } from "./types.ts";
import { TestCluster, bytes, drain, logTerms, soloNode, storageWithTerms } from "./sim/test-cluster.ts";

const ent = (term: number, index: number) => ({ term, index, type: EntryType.Normal, data: new Uint8Array(0) });
const byType = (ms: Message[], t: number) => ms.filter((m) => m.type === t);

describe("§5.1 terms", () => {
  // "If a server's current term is smaller than the other's, it updates its
  // current term to the larger value. If a candidate or leader discovers that
  // its term is out of date, it immediately reverts to follower state."
  it.each([
    ["follower", StateType.Follower],
    ["candidate", StateType.Candidate],
    ["pre-candidate", StateType.PreCandidate],
    ["leader", StateType.Leader],
  ])("a %s receiving a higher term becomes a follower of that term", (_name, state) => {
    const s = soloNode(1, [1, 2, 3], { overrides: { preVote: state === StateType.PreCandidate } });
    const r = s.rn.raft;
    if (state === StateType.Candidate || state === StateType.PreCandidate) s.rn.campaign();
    if (state === StateType.Leader) {
      s.rn.campaign();
      r.step(newMessage({ type: MessageType.VoteResp, from: 2, to: 1, term: r.term }));
    }
    expect(r.state).toBe(state);
    r.step(newMessage({ type: MessageType.App, from: 2, to: 1, term: 5 }));
    expect(r.state).toBe(StateType.Follower);
    expect(r.term).toBe(5);
    expect(r.lead).toBe(2);
  });

  // "If a server receives a request with a stale term number, it rejects the request."
  it("ignores a request with a stale term", () => {
    const s = soloNode(1, [1, 2, 3], { term: 3, terms: [1, 2] });
    drain(s);
    s.rn.step(newMessage({ type: MessageType.App, from: 2, to: 1, term: 2, index: 2, logTerm: 2, entries: [ent(2, 3)], commit: 3 }));
    expect(s.rn.raft.term).toBe(3);
    expect(s.rn.raft.log.lastIndex()).toBe(2);
    expect(s.rn.raft.lead).toBe(None);
    expect(drain(s)).toEqual([]);
  });
});

describe("§5.2 leader election", () => {
  // "If a follower receives no communication over a period of time called the
  // election timeout, then it ... begins an election": it increments its term,
  // votes for itself and sends RequestVote to every other server.
  it.each([["follower"], ["candidate"]])("a %s starts an election after the election timeout", (name) => {
    const s = soloNode(1, [1, 2, 3]);
    if (name === "candidate") {
      s.rn.campaign();
      drain(s);
    }
    const term0 = s.rn.raft.term;
    for (let i = 0; i < 2 * 10; i++) s.rn.tick();
    const r = s.rn.raft;
    expect(r.state).toBe(StateType.Candidate);
    expect(r.term).toBe(term0 + 1);
    expect(r.vote).toBe(1);
    const votes = byType(drain(s), MessageType.Vote);
    expect(votes.map((m) => m.to).sort()).toEqual([2, 3]);
    expect(votes.every((m) => m.term === term0 + 1)).toBe(true);
  });

  // "Raft uses randomized election timeouts" in [electionTick, 2*electionTick).
  it("randomizes the election timeout within [et, 2et)", () => {
    const seen = new Set<number>();
    for (let seed = 1; seed <= 60; seed++) {
      const s = soloNode(seed, [seed, 1000, 1001]);
      let ticks = 0;
      while (s.rn.raft.state === StateType.Follower && ticks < 100) {
        s.rn.tick();
        ticks++;
      }
      expect(ticks).toBeGreaterThanOrEqual(10);
      expect(ticks).toBeLessThan(20);
      seen.add(ticks);
    }
    expect(seen.size).toBeGreaterThan(5);
  });

  // "A candidate wins an election if it receives votes from a majority of the servers."
  it.each([
    { size: 1, granted: [], rejected: [], want: StateType.Leader },
    { size: 3, granted: [2], rejected: [], want: StateType.Leader },
    { size: 3, granted: [2, 3], rejected: [], want: StateType.Leader },
    { size: 3, granted: [], rejected: [], want: StateType.Candidate },
    { size: 5, granted: [2, 3], rejected: [], want: StateType.Leader },
    { size: 5, granted: [2], rejected: [], want: StateType.Candidate },
    { size: 5, granted: [2], rejected: [3], want: StateType.Candidate },
    { size: 5, granted: [], rejected: [2, 3, 4], want: StateType.Follower },
    { size: 3, granted: [], rejected: [2, 3], want: StateType.Follower },
  ])("election in a group of $size with grants $granted and rejections $rejected -> state $want", ({ size, granted, rejected, want }) => {
    const ids = Array.from({ length: size }, (_, i) => i + 1);
    const s = soloNode(1, ids);
    s.rn.campaign();
    const r = s.rn.raft;
    for (const id of granted) r.step(newMessage({ type: MessageType.VoteResp, from: id, to: 1, term: r.term }));
    for (const id of rejected) r.step(newMessage({ type: MessageType.VoteResp, from: id, to: 1, term: r.term, reject: true }));
    expect(r.state).toBe(want);
    expect(r.term).toBe(1);
  });

  // "Each server will vote for at most one candidate in a given term, on a first-come-first-served basis."
  it.each([
    { vote: None, from: 2, reject: false },
    { vote: 2, from: 2, reject: false },
    { vote: 3, from: 2, reject: true },
  ])("a follower that voted for $vote answers a vote from $from with reject=$reject", ({ vote, from, reject }) => {
    const s = soloNode(1, [1, 2, 3], { term: 1, vote });
    drain(s);
    s.rn.step(newMessage({ type: MessageType.Vote, from, to: 1, term: 1, index: 0, logTerm: 0 }));
    const resp = drain(s);
    expect(resp).toHaveLength(1);
    expect(resp[0]).toMatchObject({ type: MessageType.VoteResp, to: from, term: 1, reject });
    expect(s.rn.raft.vote).toBe(vote === None ? from : vote);
  });

  // "While waiting for votes, a candidate may receive an AppendEntries RPC from another server
  // claiming to be leader. If the leader's term is at least as large as the candidate's current term,
  // then the candidate ... returns to follower state."
  it("a candidate steps down on an append from a leader of its term", () => {
    const s = soloNode(1, [1, 2, 3]);
    s.rn.campaign();
    const r = s.rn.raft;
    r.step(newMessage({ type: MessageType.App, from: 2, to: 1, term: r.term }));
    expect(r.state).toBe(StateType.Follower);
    expect(r.lead).toBe(2);
    expect(r.term).toBe(1);
  });

  // "The third possible outcome is that a candidate neither wins nor loses the election ...
  // each candidate will time out and start a new election by incrementing its term."
  it("a split vote leads to a new election with a higher term", () => {
    const c = new TestCluster([1, 2, 3, 4]);
    // 1 and 3 campaign at once; 2 votes for 1, 4 for 3: nobody has 3 votes.
    c.cut(1, 4);
    c.cut(3, 2);
    c.node(1).rn.campaign();
    c.node(3).rn.campaign();
    c.stabilize();
    expect(c.leaders()).toEqual([]);
    expect(c.raft(1).state).toBe(StateType.Candidate);
    c.heal();
    for (let i = 0; i < 40 && c.leaders().length === 0; i++) c.tick();
    expect(c.leaders()).toHaveLength(1);
    expect(c.raft(c.leader() as number).term).toBeGreaterThanOrEqual(2);
  });

  // "Leaders send periodic heartbeats ... to all followers in order to maintain their authority."
  it("a leader sends heartbeats every heartbeat interval", () => {
    const s = soloNode(1, [1, 2, 3], { overrides: { heartbeatTick: 2 } });
    s.rn.campaign();
    const r = s.rn.raft;
    r.step(newMessage({ type: MessageType.VoteResp, from: 2, to: 1, term: r.term }));
    drain(s);
    s.rn.tick();
    expect(byType(drain(s), MessageType.Heartbeat)).toHaveLength(0);
    s.rn.tick();
    const hb = byType(drain(s), MessageType.Heartbeat);
    expect(hb.map((m) => m.to).sort()).toEqual([2, 3]);
  });
});

describe("§5.3 log replication", () => {
  // "The leader appends the command to its log as a new entry, then issues
  // AppendEntries RPCs in parallel to each of the other servers."
  it("a leader appends a proposal and sends it to every follower", () => {
    const c = new TestCluster([1, 2, 3]);
    c.campaign(1);
    c.dropTypes.add(MessageType.App);
    c.node(1).rn.propose(bytes("x"));
    const msgs = c.process(1);
    const apps = byType(msgs, MessageType.App);
    expect(apps.map((m) => m.to).sort()).toEqual([2, 3]);
    for (const m of apps) {
      expect(m.entries).toHaveLength(1);
      expect(m.entries[0]).toMatchObject({ index: 2, term: 1 });
      expect(m.index).toBe(1);
      expect(m.logTerm).toBe(1);
    }
  });

  // "A log entry is committed once the leader that created the entry has replicated it on a
  // majority of the servers." The leader then includes the commit index in later messages.
  it.each([
    { size: 1, acks: [], committed: true },
    { size: 3, acks: [], committed: false },
    { size: 3, acks: [2], committed: true },
    { size: 5, acks: [2], committed: false },
    { size: 5, acks: [2, 3], committed: true },
  ])("in a group of $size, acknowledgements from $acks commit: $committed", ({ size, acks, committed }) => {
    const ids = Array.from({ length: size }, (_, i) => i + 1);
    const s = soloNode(1, ids);
    s.rn.campaign();
    const r = s.rn.raft;
    for (const id of ids.slice(1)) r.step(newMessage({ type: MessageType.VoteResp, from: id, to: 1, term: 1 }));
    expect(r.state).toBe(StateType.Leader);
    // Everyone acknowledged the leader's empty entry (index 1).
    for (const id of ids.slice(1)) r.step(newMessage({ type: MessageType.AppResp, from: id, to: 1, term: 1, index: 1 }));
    drain(s);
    s.rn.propose(bytes("x"));
    for (const id of acks) r.step(newMessage({ type: MessageType.AppResp, from: id, to: 1, term: 1, index: 2 }));
    expect(r.log.committed).toBe(committed ? 2 : 1);
    if (committed && size > 1) {
      const apps = byType(drain(s), MessageType.App);
      expect(apps.some((m) => m.commit === 2)).toBe(true);
    }
  });

  // "If the follower does not find an entry in its log with the same index and term [as prevLog],
  // then it refuses the new entries." (consistency check)
  it.each([
    { index: 2, logTerm: 2, reject: false },
    { index: 2, logTerm: 3, reject: true },
    { index: 3, logTerm: 2, reject: true },
    { index: 0, logTerm: 0, reject: false },
    { index: 1, logTerm: 1, reject: false },
  ])("a follower with log [1 2] answers an append after ($index, $logTerm) with reject=$reject", ({ index, logTerm, reject }) => {
    const s = soloNode(1, [1, 2, 3], { terms: [1, 2], term: 2 });
    s.rn.step(newMessage({ type: MessageType.App, from: 2, to: 1, term: 2, index, logTerm, entries: [] }));
    const resp = drain(s);
    expect(resp).toHaveLength(1);
    expect(resp[0]).toMatchObject({ type: MessageType.AppResp, reject });
  });

  // "If an existing entry conflicts with a new one (same index but different terms), delete the
  // existing entry and all that follow it; append any new entries not already in the log."
  it.each([
    { index: 2, logTerm: 2, ents: [[3, 3]], want: [1, 2, 3] },
    { index: 1, logTerm: 1, ents: [[3, 2], [4, 3]], want: [1, 3, 4] },
    { index: 0, logTerm: 0, ents: [[1, 1]], want: [1, 2] },
    { index: 0, logTerm: 0, ents: [[3, 1]], want: [3] },
  ])("a follower with [1 2] given an append after ($index,$logTerm) of $ents ends with $want", ({ index, logTerm, ents, want }) => {
    const s = soloNode(1, [1, 2, 3], { terms: [1, 2], term: 2 });
    const entries = ents.map(([term, i]) => ent(term, i));
    s.rn.step(newMessage({ type: MessageType.App, from: 2, to: 1, term: 4, index, logTerm, entries }));
    drain(s);
    expect(logTerms(s.rn)).toEqual(want);
  });

  // Figure 7: whatever the followers' logs, the leader brings them to its own log.
  it.each([
    ["a (missing entries)", [1, 1, 1, 4, 4, 5, 5, 6, 6]],
    ["b (missing more)", [1, 1, 1, 4]],
    ["c (extra uncommitted entry)", [1, 1, 1, 4, 4, 5, 5, 6, 6, 6, 6]],
    ["d (extra entries of a later term)", [1, 1, 1, 4, 4, 5, 5, 6, 6, 6, 7, 7]],
    ["e (divergent tail)", [1, 1, 1, 4, 4, 4, 4]],
    ["f (long divergent tail)", [1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 3]],
  ])("the leader makes follower %s match its log (figure 7)", (_name, followerTerms) => {
    const leaderTerms = [1, 1, 1, 4, 4, 5, 5, 6, 6, 6];
    const c = new TestCluster([1, 2, 3]);
    c.addNode(1, storageWithTerms([1, 2, 3], leaderTerms));
    c.node(1).storage.setHardState({ term: 8, vote: 0, commit: 0 });
    c.addNode(1, c.node(1).storage);
    c.addNode(2, storageWithTerms([1, 2, 3], followerTerms));
    c.node(2).storage.setHardState({ term: 8, vote: 0, commit: 0 });
    c.addNode(2, c.node(2).storage);
    c.addNode(3, storageWithTerms([1, 2, 3], leaderTerms));
    c.node(3).storage.setHardState({ term: 8, vote: 0, commit: 0 });
    c.addNode(3, c.node(3).storage);
    c.campaign(1);
    expect(c.leader()).toBe(1);
    c.propose(1, "z");
    const want = [...leaderTerms, 9, 9];
    expect(logTerms(c.node(1).rn)).toEqual(want);
    expect(logTerms(c.node(2).rn)).toEqual(want);
    expect(c.committed(2)).toBe(12);
  });
});

describe("§5.4 safety", () => {
  // §5.4.1: "the voter denies its vote if its own log is more up-to-date than that of the candidate."
  it.each([
    // voter log [1 1 2]; candidate (lastIndex, lastTerm)
    { index: 3, logTerm: 2, reject: false },
    { index: 4, logTerm: 2, reject: false },
    { index: 2, logTerm: 2, reject: true },
    { index: 9, logTerm: 1, reject: true },
    { index: 1, logTerm: 3, reject: false },
    { index: 0, logTerm: 0, reject: true },
  ])("a voter with log [1 1 2] answers a candidate at ($index, $logTerm) with reject=$reject", ({ index, logTerm, reject }) => {
    const s = soloNode(1, [1, 2, 3], { terms: [1, 1, 2], term: 2 });
    drain(s);
    s.rn.step(newMessage({ type: MessageType.Vote, from: 2, to: 1, term: 3, index, logTerm }));
    const resp = drain(s);
    expect(resp[0]).toMatchObject({ type: MessageType.VoteResp, reject });
  });

  // §5.4.2: "Raft never commits log entries from previous terms by counting replicas."
  it("a leader does not commit an entry of an earlier term by counting (figure 8)", () => {
    // Leader of term 3 with an entry of term 2 at index 2 that is on a majority but uncommitted.
    const s = soloNode(1, [1, 2, 3], { terms: [1, 2], term: 2 });
    drain(s);
    s.rn.campaign();
    const r = s.rn.raft;
    r.step(newMessage({ type: MessageType.VoteResp, from: 2, to: 1, term: 3 }));
    expect(r.state).toBe(StateType.Leader);
    drain(s);
    expect(logTerms(s.rn)).toEqual([1, 2, 3]);
    // Follower 2 acknowledges index 2 only (the term-2 entry): a majority holds it.
    r.step(newMessage({ type: MessageType.AppResp, from: 2, to: 1, term: 3, index: 2 }));
    expect(r.log.committed).toBe(0);
    // Once the term-3 entry is on a majority, everything before it commits too.
    r.step(newMessage({ type: MessageType.AppResp, from: 2, to: 1, term: 3, index: 3 }));
    expect(r.log.committed).toBe(3);
  });

  // "Upon election, the leader appends a blank no-op entry into its log." (§8, needed for §5.4.2)
  it("a new leader appends an empty entry of its term", () => {
    const c = new TestCluster([1, 2, 3]);
    c.campaign(2);
    const r = c.raft(2);
    expect(r.log.lastIndex()).toBe(1);
    expect(r.log.term(1)).toBe(r.term);
    expect(c.committed(1)).toBe(1);
  });

  // §5.4.3 leader completeness: a node that misses a committed entry cannot become leader.
  it("a node missing a committed entry cannot win an election", () => {
    const c = new TestCluster([1, 2, 3]);
    c.campaign(1);
    c.isolate(3);
    c.propose(1, "committed-on-1-and-2");
    expect(c.committed(1)).toBe(2);
    expect(c.raft(3).log.lastIndex()).toBe(1);
    c.heal();
    c.cut(1, 3); // 1 cannot vote for 3 directly, 2 must decide
    c.campaign(3);
    expect(c.raft(3).state).not.toBe(StateType.Leader);
    c.heal();
    for (let i = 0; i < 40 && c.leaders().length !== 1; i++) c.tick();
    const l = c.leader() as number;
    expect(l).not.toBe(3);
    expect(c.node(l).applied).toContain("committed-on-1-and-2");
  });

  // "If a follower or candidate crashes, ... Raft RPCs are idempotent": a duplicated append is harmless.
  it("a duplicate append does not change the follower's log", () => {
    const s = soloNode(1, [1, 2, 3], { term: 1 });
    const m = newMessage({ type: MessageType.App, from: 2, to: 1, term: 1, index: 0, logTerm: 0, entries: [ent(1, 1), ent(1, 2)], commit: 0 });
    s.rn.step(m);
    drain(s);
    s.rn.step(m);
    const resp = drain(s);
    expect(logTerms(s.rn)).toEqual([1, 1]);
    expect(resp[0]).toMatchObject({ type: MessageType.AppResp, reject: false, index: 2 });
  });
});
