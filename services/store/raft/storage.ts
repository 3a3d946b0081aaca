// Stable storage as seen by the Raft core, and an in-memory implementation.
//
// Ownership: the application writes to storage (append the Ready's entries,
// set its HardState, apply its snapshot) before sending the Ready's messages;
// the core only reads from it.

import type { ConfState, Entry, HardState, Snapshot } from "./types.ts";
import { emptyConfState, entrySize } from "./types.ts";
import { errCompacted, errSnapOutOfDate, errUnavailable } from "./errors.ts";

export interface InitialState {
  hardState: HardState;
  confState: ConfState;
}

/**
 * Read access to the persisted log. Methods throw RaftError with code
 * ErrCompacted (index before firstIndex; for term(), before firstIndex-1),
 * ErrUnavailable (index after lastIndex) or, for snapshot(),
 * ErrSnapshotTemporarilyUnavailable.
 */
export interface RaftStorage {
  initialState(): InitialState;
  /** Entries in [lo, hi), limited to about maxSize bytes but always at least one entry. */
  entries(lo: number, hi: number, maxSize: number): Entry[];
  /** Term of entry i, for i in [firstIndex-1, lastIndex] (firstIndex-1 is the snapshot's). */
  term(i: number): number;
  lastIndex(): number;
  firstIndex(): number;
  snapshot(): Snapshot;
}

/** Returns the longest prefix of ents whose total size stays within maxSize (at least one entry). */
export function limitSize(ents: Entry[], maxSize: number): Entry[] {
  if (ents.length <= 1) return ents;
  let size = entrySize(ents[0]);
  let n = 1;
  for (; n < ents.length; n++) {
    size += entrySize(ents[n]);
    if (size > maxSize) break;
  }
  return n === ents.length ? ents : ents.slice(0, n);
}

function cloneConfState(cs: ConfState): ConfState {
  return {
    voters: [...cs.voters],
    learners: [...cs.learners],
    votersOutgoing: [...cs.votersOutgoing],
    learnersNext: [...cs.learnersNext],
    autoLeave: cs.autoLeave,
  };
}

/**
 * An in-memory RaftStorage. ents[0] is a dummy entry holding the index and
 * term of the last compaction (the snapshot), so ents[i] has index offset+i.
 */
export class MemoryStorage implements RaftStorage {
  private hardState: HardState = { term: 0, vote: 0, commit: 0 };
  private snap: Snapshot;
  private ents: Entry[];

  /** A new storage; `confState` bootstraps the membership of a new group (as an index-0 snapshot). */
  constructor(confState?: ConfState) {
    this.snap = {
      data: new Uint8Array(0),
      metadata: { confState: confState ? cloneConfState(confState) : emptyConfState(), index: 0, term: 0 },
    };
    this.ents = [{ term: 0, index: 0, type: 0, data: new Uint8Array(0) }];
  }

  initialState(): InitialState {
    return { hardState: { ...this.hardState }, confState: cloneConfState(this.snap.metadata.confState) };
  }

  setHardState(hs: HardState): void {
    this.hardState = { term: hs.term, vote: hs.vote, commit: hs.commit };
  }

  private get offset(): number {
    return this.ents[0].index;
  }

  entries(lo: number, hi: number, maxSize: number): Entry[] {
    const offset = this.offset;
    if (lo <= offset) throw errCompacted();
    if (hi > this.lastIndex() + 1) throw errUnavailable();
    if (lo >= hi) return [];
    return limitSize(this.ents.slice(lo - offset, hi - offset), maxSize);
  }

  term(i: number): number {
    const offset = this.offset;
    if (i < offset) throw errCompacted();
    if (i - offset >= this.ents.length) throw errUnavailable();
    return this.ents[i - offset].term;
  }

  lastIndex(): number {
    return this.offset + this.ents.length - 1;
  }

  firstIndex(): number {
    return this.offset + 1;
  }

  snapshot(): Snapshot {
    return this.snap;
  }

  /** Replaces the contents with a snapshot received from the leader. */
  applySnapshot(snap: Snapshot): void {
    if (this.snap.metadata.index >= snap.metadata.index) throw errSnapOutOfDate();
    this.snap = { data: snap.data, metadata: { ...snap.metadata, confState: cloneConfState(snap.metadata.confState) } };
    this.ents = [{ term: snap.metadata.term, index: snap.metadata.index, type: 0, data: new Uint8Array(0) }];
  }

  /**
   * Records a snapshot of the application state at applied index i (which the
   * application has applied). Follow with compact() to release entries.
   */
  createSnapshot(i: number, confState: ConfState | undefined, data: Uint8Array): Snapshot {
    if (i <= this.snap.metadata.index) throw errSnapOutOfDate();
    if (i > this.lastIndex()) throw new RangeError(`snapshot ${i} is out of bound lastindex(${this.lastIndex()})`);
    const cs = confState ? cloneConfState(confState) : cloneConfState(this.snap.metadata.confState);
    this.snap = { data, metadata: { confState: cs, index: i, term: this.ents[i - this.offset].term } };
    return this.snap;
  }

  /** Discards all entries before compactIndex. The application must not compact past its applied index. */
  compact(compactIndex: number): void {
    const offset = this.offset;
    if (compactIndex <= offset) throw errCompacted();
    if (compactIndex > this.lastIndex()) throw new RangeError(`compact ${compactIndex} is out of bound lastindex(${this.lastIndex()})`);
    const i = compactIndex - offset;
    const dummy: Entry = { term: this.ents[i].term, index: this.ents[i].index, type: 0, data: new Uint8Array(0) };
    this.ents = [dummy, ...this.ents.slice(i + 1)];
  }

  /**
   * Appends entries, replacing any existing suffix that they overlap. Entries
   * must be contiguous and must not start after lastIndex+1.
   */
  append(entries: Entry[]): void {
    if (entries.length === 0) return;
    const first = this.firstIndex();
    const last = entries[0].index + entries.length - 1;
    if (last < first) return; // all already compacted
    const ents = first > entries[0].index ? entries.slice(first - entries[0].index) : entries;
    const offset = ents[0].index - this.offset;
    if (offset > this.ents.length) {
      throw new RangeError(`missing log entry [last: ${this.lastIndex()}, append at: ${ents[0].index}]`);
    }
    if (offset === this.ents.length) {
      for (const e of ents) this.ents.push(e);
    } else {
      this.ents = this.ents.slice(0, offset).concat(ents);
    }
  }
}
