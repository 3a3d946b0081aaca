// The Raft log: a stable part (RaftStorage, written by the application) and
// an unstable part (entries and possibly a snapshot not yet handed out for
// persistence, or handed out but not yet acknowledged by advance()).
//
// Invariants: applied <= committed <= lastIndex; the unstable entries start at
// unstable.offset; a committed entry is never truncated (a violation throws).

import type { Entry, Snapshot } from "./types.ts";
import type { RaftStorage } from "./storage.ts";
import { limitSize } from "./storage.ts";
import { RaftError, errCompacted, errUnavailable } from "./errors.ts";

export type { RaftStorage, InitialState } from "./storage.ts";
export { MemoryStorage, limitSize } from "./storage.ts";

export const noLimit = Number.MAX_SAFE_INTEGER;

/** Entries and snapshot not yet known to be in stable storage. */
export class Unstable {
  snapshot: Snapshot | undefined = undefined;
  entries: Entry[] = [];
  offset: number;

  constructor(offset: number) {
    this.offset = offset;
  }

  maybeFirstIndex(): number | undefined {
    return this.snapshot ? this.snapshot.metadata.index + 1 : undefined;
  }

  maybeLastIndex(): number | undefined {
    if (this.entries.length > 0) return this.offset + this.entries.length - 1;
    return this.snapshot ? this.snapshot.metadata.index : undefined;
  }

  maybeTerm(i: number): number | undefined {
    if (i < this.offset) {
      if (this.snapshot && this.snapshot.metadata.index === i) return this.snapshot.metadata.term;
      return undefined;
    }
    const last = this.maybeLastIndex();
    if (last === undefined || i > last) return undefined;
    return this.entries[i - this.offset].term;
  }

  /** Entries up to (i, t) are now stable. Ignored if the entry was since replaced. */
  stableTo(i: number, t: number): void {
    const gt = this.maybeTerm(i);
    if (gt === undefined) return;
    if (gt === t && i >= this.offset) {
      this.entries = this.entries.slice(i + 1 - this.offset);
      this.offset = i + 1;
    }
  }

  stableSnapTo(i: number): void {
    if (this.snapshot && this.snapshot.metadata.index === i) this.snapshot = undefined;
  }

  restore(s: Snapshot): void {
    this.offset = s.metadata.index + 1;
    this.entries = [];
    this.snapshot = s;
  }

  truncateAndAppend(ents: Entry[]): void {
    const after = ents[0].index;
    if (after === this.offset + this.entries.length) {
      this.entries = this.entries.concat(ents);
    } else if (after <= this.offset) {
      // Replace the whole unstable part; the storage suffix from `after` is overwritten when persisted.
      this.offset = after;
      this.entries = ents.slice();
    } else {
      this.entries = this.entries.slice(0, after - this.offset).concat(ents);
    }
  }

  slice(lo: number, hi: number): Entry[] {
    const upper = this.offset + this.entries.length;
    if (lo > hi || lo < this.offset || hi > upper) {
      throw new RangeError(`unstable.slice[${lo},${hi}) out of bound [${this.offset},${upper}]`);
    }
    return this.entries.slice(lo - this.offset, hi - this.offset);
  }
}

export class RaftLog {
  readonly storage: RaftStorage;
  unstable: Unstable;
  /** Highest index known to be stored on a quorum. */
  committed: number;
  /** Highest index the application has applied. */
  applied: number;
  /** Upper bound (bytes) of committed entries handed out in one Ready. */
  readonly maxNextEntsSize: number;

  constructor(storage: RaftStorage, maxNextEntsSize = noLimit) {
    this.storage = storage;
    this.maxNextEntsSize = maxNextEntsSize;
    const first = storage.firstIndex();
    const last = storage.lastIndex();
    this.unstable = new Unstable(last + 1);
    this.committed = first - 1;
    this.applied = first - 1;
  }

  /**
   * Appends ents after (index, logTerm) if the log matches there; returns the
   * index of the last new entry, or undefined on a mismatch.
   */
  maybeAppend(index: number, logTerm: number, committed: number, ents: Entry[]): number | undefined {
    if (!this.matchTerm(index, logTerm)) return undefined;
    const lastNew = index + ents.length;
    const ci = this.findConflict(ents);
    if (ci !== 0) {
      if (ci <= this.committed) {
        throw new Error(`raft log: entry ${ci} conflicts with committed entry [committed(${this.committed})]`);
      }
      this.append(ents.slice(ci - (index + 1)));
    }
    this.commitTo(Math.min(committed, lastNew));
    return lastNew;
  }

  append(ents: Entry[]): number {
    if (ents.length === 0) return this.lastIndex();
    const after = ents[0].index - 1;
    if (after < this.committed) {
      throw new Error(`raft log: append after(${after}) is out of range [committed(${this.committed})]`);
    }
    this.unstable.truncateAndAppend(ents);
    return this.lastIndex();
  }

  /**
   * The index of the first entry of ents that conflicts with (or is missing
   * from) the log; 0 if the log already holds all of them.
   */
  findConflict(ents: Entry[]): number {
    for (const e of ents) {
      if (!this.matchTerm(e.index, e.term)) return e.index;
    }
    return 0;
  }

  /**
   * The largest index <= index whose term is <= term (or unknown), with that
   * term (0 if unknown). Used for fast backtracking of log conflicts.
   */
  findConflictByTerm(index: number, term: number): [number, number] {
    if (index > this.lastIndex()) return [index, 0];
    for (;;) {
      const t = this.term(index);
      if (t === undefined) return [index, 0];
      if (t <= term) return [index, t];
      index--;
    }
  }

  /** Entries not yet handed out for persistence (a copy). */
  unstableEntries(): Entry[] {
    return this.unstable.entries.length === 0 ? [] : this.unstable.entries.slice();
  }

  /** Committed entries not yet handed out for applying. */
  nextEnts(): Entry[] {
    const off = Math.max(this.applied + 1, this.firstIndex());
    if (this.committed + 1 > off) return this.slice(off, this.committed + 1, this.maxNextEntsSize);
    return [];
  }

  hasNextEnts(): boolean {
    return this.committed + 1 > Math.max(this.applied + 1, this.firstIndex());
  }

  hasPendingSnapshot(): boolean {
    return this.unstable.snapshot !== undefined;
  }

  snapshot(): Snapshot {
    return this.unstable.snapshot ?? this.storage.snapshot();
  }

  firstIndex(): number {
    return this.unstable.maybeFirstIndex() ?? this.storage.firstIndex();
  }

  lastIndex(): number {
    return this.unstable.maybeLastIndex() ?? this.storage.lastIndex();
  }

  commitTo(toCommit: number): void {
    if (this.committed < toCommit) {
      if (this.lastIndex() < toCommit) {
        throw new Error(`raft log: tocommit(${toCommit}) is out of range [lastIndex(${this.lastIndex()})]`);
      }
      this.committed = toCommit;
    }
  }

  appliedTo(i: number): void {
    if (i === 0) return;
    if (this.committed < i || i < this.applied) {
      throw new Error(`raft log: applied(${i}) is out of range [prevApplied(${this.applied}), committed(${this.committed})]`);
    }
    this.applied = i;
  }

  stableTo(i: number, t: number): void {
    this.unstable.stableTo(i, t);
  }

  stableSnapTo(i: number): void {
    this.unstable.stableSnapTo(i);
  }

  lastTerm(): number {
    const t = this.term(this.lastIndex());
    if (t === undefined) throw new Error("raft log: last term unavailable");
    return t;
  }

  /** Term of entry i, or undefined when i is compacted (before firstIndex-1) or past lastIndex. */
  term(i: number): number | undefined {
    const ut = this.unstable.maybeTerm(i);
    if (ut !== undefined) return ut;
    if (i < this.firstIndex() - 1 || i > this.lastIndex()) return undefined;
    try {
      return this.storage.term(i);
    } catch (e) {
      if (e instanceof RaftError && (e.code === "ErrCompacted" || e.code === "ErrUnavailable")) return undefined;
      throw e;
    }
  }

  /** Entries from i to the end, limited in size. Throws ErrCompacted if i < firstIndex. */
  entries(i: number, maxSize: number): Entry[] {
    if (i > this.lastIndex()) return [];
    return this.slice(i, this.lastIndex() + 1, maxSize);
  }

  allEntries(): Entry[] {
    return this.entries(this.firstIndex(), noLimit);
  }

  /** Whether a log ending at (lastIndex, term) is at least as up to date as this one (§5.4.1). */
  isUpToDate(lastIndex: number, term: number): boolean {
    const ourTerm = this.lastTerm();
    return term > ourTerm || (term === ourTerm && lastIndex >= this.lastIndex());
  }

  matchTerm(i: number, term: number): boolean {
    const t = this.term(i);
    return t !== undefined && t === term;
  }

  /** Commits up to maxIndex if that entry is of the given (current) term: the §5.4.2 rule. */
  maybeCommit(maxIndex: number, term: number): boolean {
    if (maxIndex > this.committed && term !== 0 && this.term(maxIndex) === term) {
      this.commitTo(maxIndex);
      return true;
    }
    return false;
  }

  restore(s: Snapshot): void {
    this.committed = s.metadata.index;
    this.unstable.restore(s);
  }

  /** Entries in [lo, hi) from storage and the unstable part, limited to about maxSize bytes. */
  slice(lo: number, hi: number, maxSize: number): Entry[] {
    this.mustCheckOutOfBounds(lo, hi);
    if (lo === hi) return [];
    let ents: Entry[] = [];
    if (lo < this.unstable.offset) {
      const stored = this.storage.entries(lo, Math.min(hi, this.unstable.offset), maxSize);
      // The storage returned fewer entries than asked for: the size limit was hit.
      if (stored.length < Math.min(hi, this.unstable.offset) - lo) return stored;
      ents = stored;
    }
    if (hi > this.unstable.offset) {
      const uns = this.unstable.slice(Math.max(lo, this.unstable.offset), hi);
      ents = ents.length > 0 ? ents.concat(uns) : uns;
    }
    return limitSize(ents, maxSize);
  }

  private mustCheckOutOfBounds(lo: number, hi: number): void {
    if (lo > hi) throw new RangeError(`raft log: invalid slice ${lo} > ${hi}`);
    const fi = this.firstIndex();
    if (lo < fi) throw errCompacted();
    if (hi > this.lastIndex() + 1) throw errUnavailable();
  }
}
