// The simulator's node harness: one simulated machine. Its MemoryStorage is
// its disk and survives crashes; its RawNode, state machine and the state of
// the current incarnation do not (a restart rebuilds them from the disk).
//
// Contract of persistReady: it writes a Ready's snapshot, entries and
// HardState to the disk in that order, checking on the way that entries
// follow the log they extend and that the persisted term, vote and commit
// never go back (a vote never changes within a term). Everything a Ready
// holds that was not persisted this way is lost by a crash.
//
// The state machine is a running hash of the applied entries; encodeSm and
// decodeSm are its snapshot format.

import type { ConfState, Entry, Message } from "../types.ts";
import type { Ready, RawNode } from "../rawnode.ts";
import type { SafetyChecker } from "./checks.ts";
import type { MemoryStorage } from "../storage.ts";
import { Retirement } from "../retirement.ts";

export interface SmState {
  applied: number;
  hash: number;
}

export interface SimNode {
  id: number;
  storage: MemoryStorage;
  /** The running node; undefined while crashed, and for good once retired. */
  rn: RawNode | undefined;
  sm: SmState;
  /** The configuration after the last conf change (or snapshot) applied. */
  confState: ConfState;
  /** Log index of the last conf change or snapshot applied in this incarnation. */
  confCursor: number;
  /** Ids this node saw removed; their messages are dropped (kept across restarts, like etcd's membership store). */
  removedSeen: Set<number>;
  /** Applied its own removal and shut down; never restarted. */
  retired: boolean;
  /** When this node, once it applied its own removal, may shut down (a new one per incarnation). */
  retirement: Retirement;
  /** Highest commit index observed in this incarnation. */
  commitSeen: number;
  /** Term and vote last persisted. */
  persisted: { term: number; vote: number; commit: number };
  sawLive: boolean;
}

/** A node that has not started yet (rn undefined), with an empty disk holding `cs`. */
export function newSimNode(id: number, storage: MemoryStorage, cs: ConfState, electionTick: number): SimNode {
  return {
    id,
    storage,
    rn: undefined,
    sm: { applied: 0, hash: 0 },
    confState: cs,
    confCursor: 0,
    removedSeen: new Set(),
    retired: false,
    retirement: new Retirement(electionTick),
    commitSeen: 0,
    persisted: { term: 0, vote: 0, commit: 0 },
    sawLive: false,
  };
}

/** The state machine's next state after applying `e`. */
export function mix(h: number, e: Entry): number {
  let x = (h ^ e.index) >>> 0;
  x = Math.imul(x ^ e.term, 0x01000193) >>> 0;
  for (let i = 0; i < e.data.byteLength; i++) x = Math.imul(x ^ e.data[i], 0x01000193) >>> 0;
  return x;
}

export function encodeSm(sm: SmState): Uint8Array {
  const b = new Uint8Array(12);
  const dv = new DataView(b.buffer);
  dv.setFloat64(0, sm.applied);
  dv.setUint32(8, sm.hash);
  return b;
}

export function decodeSm(b: Uint8Array): SmState {
  if (b.byteLength === 0) return { applied: 0, hash: 0 };
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  return { applied: dv.getFloat64(0), hash: dv.getUint32(8) };
}

/** Persists a Ready of `rn` to the node's disk (see the header). */
export function persistReady(node: SimNode, rn: RawNode, rd: Ready, checker: SafetyChecker, fail: (detail: string) => never): void {
  const raftLog = rn.raft.log;
  if (rd.snapshot) {
    node.storage.applySnapshot(rd.snapshot);
  }
  if (rd.entries.length > 0) {
    let prevTerm = raftLog.term(rd.entries[0].index - 1);
    for (const e of rd.entries) {
      checker.checkEntryIdentity(node.id, e, prevTerm);
      prevTerm = e.term;
    }
    node.storage.append(rd.entries);
  }
  if (rd.hardState) {
    const hs = rd.hardState;
    const p = node.persisted;
    if (hs.term < p.term) fail(`node ${node.id}: persisted term went back ${p.term} -> ${hs.term}`);
    if (hs.term === p.term && p.vote !== 0 && hs.vote !== p.vote) fail(`node ${node.id}: voted twice in term ${hs.term} (${p.vote}, then ${hs.vote})`);
    if (hs.commit < p.commit) fail(`node ${node.id}: persisted commit went back ${p.commit} -> ${hs.commit}`);
    node.storage.setHardState(hs);
    node.persisted = { term: hs.term, vote: hs.vote, commit: hs.commit };
  }
}

/**
 * The core sends the storage's latest snapshot, which may predate a member
 * that joined since (the receiver ignores a snapshot whose config does not
 * name it). Like etcd and the store's node shell, the application sends
 * its state at the applied index instead: committed, with the current config.
 */
export function freshSnapshot(node: SimNode, rn: RawNode, m: Message): Message {
  const applied = node.sm.applied;
  const term = rn.raft.log.term(applied);
  if (!m.snapshot || term === undefined || applied <= m.snapshot.metadata.index) return m;
  return { ...m, snapshot: { data: encodeSm(node.sm), metadata: { index: applied, term, confState: node.confState } } };
}
