import { describe, expect, it } from "vitest";
import { MessageType, StateType, newMessage } from "./types.ts";
import { RaftError, isRaftError } from "./errors.ts";
import { MemoryStorage } from "./storage.ts";
import { RawNode } from "./rawnode.ts";
import { bytes, drain, soloNode } from "./sim/test-cluster.ts";

describe("RawNode Ready/advance", () => {
  it("hands out the HardState only when it changes, and mustSync for term, vote or entries", () => {
    const s = soloNode(1, [1]);
    s.rn.campaign();
    const rd = s.rn.ready();
    expect(rd.hardState).toEqual({ term: 1, vote: 1, commit: 1 });
    expect(rd.softState).toEqual({ lead: 1, raftState: StateType.Leader });
    expect(rd.entries.map((e) => e.index)).toEqual([1]);
    expect(rd.committedEntries.map((e) => e.index)).toEqual([1]);
    expect(rd.mustSync).toBe(true);
    s.storage.append(rd.entries);
    s.storage.setHardState(rd.hardState ?? { term: 0, vote: 0, commit: 0 });
    s.rn.advance();
    expect(s.rn.hasReady()).toBe(false);
    s.rn.tick();
    expect(s.rn.hasReady()).toBe(false);
    s.rn.propose(bytes("x"));
    const rd2 = s.rn.ready();
    expect(rd2.hardState).toEqual({ term: 1, vote: 1, commit: 2 });
    expect(rd2.softState).toBeUndefined();
    expect(rd2.mustSync).toBe(true);
    s.storage.append(rd2.entries);
    s.rn.advance();
  });

  it("a commit-only change does not require a sync", () => {
    const s = soloNode(2, [1, 2, 3]);
    s.rn.step(newMessage({ type: MessageType.App, from: 1, to: 2, term: 1, index: 0, logTerm: 0, entries: [{ term: 1, index: 1, type: 0, data: new Uint8Array() }] }));
    drain(s);
    s.rn.step(newMessage({ type: MessageType.Heartbeat, from: 1, to: 2, term: 1, commit: 1 }));
    const rd = s.rn.ready();
    expect(rd.hardState).toEqual({ term: 1, vote: 0, commit: 1 });
    expect(rd.mustSync).toBe(false);
    expect(rd.messages.map((m) => m.type)).toEqual([MessageType.HeartbeatResp]);
  });

  it("refuses ready() before advance() and local messages from the network", () => {
    const s = soloNode(1, [1]);
    s.rn.campaign();
    s.rn.ready();
    expect(() => s.rn.ready()).toThrow(RaftError);
    try {
      s.rn.step(newMessage({ type: MessageType.Hup, from: 2, to: 1 }));
      expect.unreachable();
    } catch (e) {
      expect(isRaftError(e, "ErrStepLocalMsg")).toBe(true);
    }
  });

  it("ignores responses from peers outside the config", () => {
    const s = soloNode(1, [1, 2, 3]);
    s.rn.campaign();
    drain(s);
    s.rn.step(newMessage({ type: MessageType.VoteResp, from: 9, to: 1, term: 1 }));
    expect(s.rn.raft.state).toBe(StateType.Candidate);
  });

  it("restarts from storage without handing out applied entries again", () => {
    const storage = new MemoryStorage({ voters: [1], learners: [], votersOutgoing: [], learnersNext: [], autoLeave: false });
    const cfg = { id: 1, storage, electionTick: 10, heartbeatTick: 1 };
    const a = new RawNode(cfg);
    a.campaign();
    a.propose(bytes("x"));
    const rd = a.ready();
    storage.append(rd.entries);
    if (rd.hardState) storage.setHardState(rd.hardState);
    a.advance();
    const b = new RawNode({ ...cfg, applied: 2 });
    expect(b.raft.term).toBe(1);
    expect(b.raft.log.committed).toBe(2);
    expect(b.raft.state).toBe(StateType.Follower);
    expect(b.ready().committedEntries).toEqual([]);
    const c = new RawNode(cfg);
    expect(c.ready().committedEntries.map((e) => e.index)).toEqual([1, 2]);
  });

  it("validates its config", () => {
    const storage = new MemoryStorage();
    expect(() => new RawNode({ id: 0, storage, electionTick: 10, heartbeatTick: 1 })).toThrow(/id/);
    expect(() => new RawNode({ id: 1, storage, electionTick: 1, heartbeatTick: 1 })).toThrow(/electionTick/);
  });

  it("reports status with the leader's progress", () => {
    const s = soloNode(1, [1, 2]);
    s.rn.campaign();
    s.rn.raft.step(newMessage({ type: MessageType.VoteResp, from: 2, to: 1, term: 1 }));
    const st = s.rn.status();
    expect(st.state).toBe("Leader");
    expect(st.progress?.[2]).toMatchObject({ match: 0, next: 1, state: "Probe" });
    expect(st.config).toBe("voters=(1 2)");
  });
});
