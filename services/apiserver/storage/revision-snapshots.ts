/**
 * Past states of the watch cache, for ListFromCacheSnapshot: a LIST at an exact revision
 * (or a continue token issued at one) is answered from memory when the revision lies in
 * the retained window, instead of reading the store's MVCC history.
 *
 * Structure (shared between snapshots, no copy per revision): the cache's current state
 * is the newest snapshot; every key change in the window leaves one record holding the
 * value the key had before the change. The state at revision N is the current state with
 * every change after N undone: for a key changed after N, the value recorded by its first
 * change after N; for any other key, its current value. Keys deleted within the window
 * are kept in a sorted index so that a past list still finds them.
 *
 * Bound: one record per key change of the last `retainMs` (and at most `maxChanges`
 * records), plus one index entry per key deleted within them. Records reference the
 * cache's own (never mutated) objects, so a retained snapshot costs the superseded
 * versions only. Snapshots exist for every revision in [oldest, latest]; `oldest` moves
 * up as records leave the window.
 *
 * Pure and deterministic: time is passed in; no I/O, no timers.
 */
import { lowerBound } from "./sorted-keys.ts";

export interface SnapshotLimits {
  /** How long a change stays undoable (the platform keeps 75 s). */
  retainMs: number;
  /** Most records kept, whatever their age. */
  maxChanges: number;
}

interface ChangeRecord<T> {
  key: string;
  revision: number;
  /** The key's value before this change (undefined: it did not exist). */
  before: T | undefined;
  /** Whether the key exists after this change. */
  existsAfter: boolean;
  timeMs: number;
}

/** The records of one key, oldest first, from `head`. */
interface KeyChain<T> {
  records: ChangeRecord<T>[];
  head: number;
}

export class RevisionSnapshots<T> {
  private readonly log: ChangeRecord<T>[] = [];
  private head = 0;
  private readonly chains = new Map<string, KeyChain<T>>();
  /** Keys absent now that exist in some retained snapshot, sorted. */
  private readonly deleted: string[] = [];
  /** Between `reset` and `clear`: the live state is known. */
  private started = false;
  /** Snapshots exist for revisions in [oldest, latest] (none before `reset`). */
  private oldest = 0;
  private latest = 0;
  /** Revision of the newest record (0: none). */
  private lastChange = 0;

  constructor(private readonly limits: SnapshotLimits) {}

  /** Forgets every past state; until `reset`, no snapshot exists. */
  clear(): void {
    this.log.length = 0;
    this.head = 0;
    this.chains.clear();
    this.deleted.length = 0;
    this.started = false;
    this.oldest = 0;
    this.latest = 0;
    this.lastChange = 0;
  }

  /** The current state is the state at `revision`; nothing older is known. */
  reset(revision: number): void {
    this.clear();
    this.started = true;
    this.oldest = revision;
    this.latest = revision;
  }

  /** `key` changed at `revision` (not below the latest one) from `before`. */
  record(key: string, revision: number, before: T | undefined, existsAfter: boolean, nowMs: number): void {
    if (!this.started) return;
    const rec: ChangeRecord<T> = { key, revision, before, existsAfter, timeMs: nowMs };
    this.log.push(rec);
    let chain = this.chains.get(key);
    if (!chain) this.chains.set(key, (chain = { records: [], head: 0 }));
    chain.records.push(rec);
    if (existsAfter) removeSorted(this.deleted, key);
    else insertSorted(this.deleted, key);
    this.lastChange = revision;
    this.latest = Math.max(this.latest, revision);
  }

  /** The cache reached `revision` (with or without changes of ours); old records leave. */
  advance(revision: number, nowMs: number): void {
    if (!this.started) return;
    this.latest = Math.max(this.latest, revision);
    this.trim(nowMs);
  }

  /** Drops the records that left the window (by age or by count). */
  trim(nowMs: number): void {
    const minTime = nowMs - this.limits.retainMs;
    while (this.head < this.log.length) {
      const rec = this.log[this.head];
      if (rec.timeMs >= minTime && this.log.length - this.head <= this.limits.maxChanges) break;
      this.head++;
      this.oldest = Math.max(this.oldest, rec.revision);
      this.forgetOldest(rec);
    }
    if (this.head > 1024 && this.head * 2 > this.log.length) {
      this.log.splice(0, this.head);
      this.head = 0;
    }
  }

  /** Revisions below `revision` are gone from the store: their states are no longer served. */
  compact(revision: number): void {
    if (!this.started || revision <= this.oldest) return;
    while (this.head < this.log.length && this.log[this.head].revision <= revision) this.forgetOldest(this.log[this.head++]);
    this.oldest = revision;
  }

  private forgetOldest(rec: ChangeRecord<T>): void {
    const chain = this.chains.get(rec.key);
    if (!chain) return;
    chain.head++;
    if (chain.head >= chain.records.length) {
      this.chains.delete(rec.key);
      if (!rec.existsAfter) removeSorted(this.deleted, rec.key); // absent now and in every retained state
    } else if (chain.head > 16 && chain.head * 2 > chain.records.length) {
      chain.records.splice(0, chain.head);
      chain.head = 0;
    }
  }

  /** Whether the state at `revision` can be rebuilt. */
  covers(revision: number): boolean {
    return this.started && revision >= this.oldest && revision <= this.latest;
  }

  get oldestRevision(): number {
    return this.oldest;
  }

  /** Records held (for the bound). */
  get size(): number {
    return this.log.length - this.head;
  }

  /** The value of `key` at `revision`, given its current value. */
  valueAt(key: string, revision: number, current: T | undefined): T | undefined {
    const chain = this.chains.get(key);
    if (!chain) return current;
    const recs = chain.records;
    if (recs[recs.length - 1].revision <= revision) return current;
    let lo = chain.head;
    let hi = recs.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (recs[mid].revision > revision) hi = mid;
      else lo = mid + 1;
    }
    return recs[lo].before;
  }

  /**
   * The entries under `prefix` with key >= `from` at `revision`, in key order, given the
   * current ones (`current`: sorted, same prefix and start). Undefined when not covered.
   */
  listAt(revision: number, prefix: string, from: string, current: ReadonlyArray<readonly [string, T]>): Array<[string, T]> | undefined {
    if (!this.covers(revision)) return undefined;
    if (revision >= this.lastChange) return current.map(([k, v]) => [k, v]);
    const out: Array<[string, T]> = [];
    const emit = (key: string, value: T | undefined): void => {
      const past = this.valueAt(key, revision, value);
      if (past !== undefined) out.push([key, past]);
    };
    const start = from > prefix ? from : prefix;
    let g = lowerBound(this.deleted, start);
    let i = 0;
    for (;;) {
      const gone = g < this.deleted.length && this.deleted[g].startsWith(prefix) ? this.deleted[g] : undefined;
      if (i < current.length && (gone === undefined || current[i][0] < gone)) {
        emit(current[i][0], current[i][1]);
        i++;
      } else if (gone !== undefined) {
        emit(gone, undefined);
        g++;
      } else break;
    }
    return out;
  }
}

function insertSorted(keys: string[], key: string): void {
  const i = lowerBound(keys, key);
  if (keys[i] !== key) keys.splice(i, 0, key);
}

function removeSorted(keys: string[], key: string): void {
  const i = lowerBound(keys, key);
  if (keys[i] === key) keys.splice(i, 1);
}
