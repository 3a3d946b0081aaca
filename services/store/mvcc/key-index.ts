import { EMPTY_BYTES, type KeyId } from "./keys.ts";
import type { KeyValue, LeaseId } from "./types.ts";

/** One stored revision of a key: a put (kv) or a tombstone (kv null). */
export interface Entry {
  readonly main: number;
  readonly sub: number;
  readonly kv: KeyValue | null;
}

/**
 * A generation is a key's life from a creation to a deletion: puts, then (if the key
 * was deleted) one tombstone as the last entry. Version counts puts in a generation.
 */
export interface Generation {
  readonly entries: Entry[];
}

/**
 * The history of one key, as etcd's keyIndex: a list of generations in revision order.
 * Invariants: no generation is empty; every generation but the last ends with a
 * tombstone; entries are strictly increasing in (main, sub). Unlike etcd, a deletion
 * does not append an empty generation: a key whose last entry is a tombstone is
 * absent, and the next put opens a new generation.
 * Views: the `generations` array and each generation's `entries` are only appended to
 * (and popped only of an aborted write's entries, above every committed revision);
 * compaction replaces them with new arrays instead of editing them. So a reference to
 * `generations` taken at revision R, read later with the entries above R skipped, is
 * still the key's history at R (snapshot.ts encodeSnapshotSliced).
 */
export class KeyIndex {
  generations: Generation[] = [];
  /**
   * Copy of the last entry's revision and kv, so reads at the newest revision (the
   * common case) touch only this object. Kept in sync by every mutation; call
   * syncTail() after filling generations directly.
   */
  private tailMain = 0;
  private tailKv: KeyValue | null = null;

  constructor(
    readonly key: Uint8Array,
    readonly id: KeyId,
  ) {}

  isEmpty(): boolean {
    return this.generations.length === 0;
  }

  lastEntry(): Entry | undefined {
    const g = this.generations[this.generations.length - 1];
    return g === undefined ? undefined : g.entries[g.entries.length - 1];
  }

  syncTail(): void {
    const last = this.lastEntry();
    this.tailMain = last?.main ?? 0;
    this.tailKv = last?.kv ?? null;
  }

  /** The live value after every entry appended so far (including an open write txn's). */
  latest(): KeyValue | null {
    return this.tailKv;
  }

  /** The latest entry with main <= rev. */
  entryAt(rev: number): Entry | undefined {
    for (let gi = this.generations.length - 1; gi >= 0; gi--) {
      const entries = this.generations[gi].entries;
      if (entries[0].main > rev) continue;
      let lo = 0;
      let hi = entries.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (entries[mid].main <= rev) lo = mid + 1;
        else hi = mid;
      }
      return entries[lo - 1];
    }
    return undefined;
  }

  /** The value visible at rev, or null if the key did not exist then. */
  at(rev: number): KeyValue | null {
    if (rev >= this.tailMain) return this.tailKv;
    return this.entryAt(rev)?.kv ?? null;
  }

  /** Appends a put at (main, sub); returns the new kv and the one it replaced. */
  put(main: number, sub: number, value: Uint8Array, lease: LeaseId): { kv: KeyValue; prev: KeyValue | null } {
    const prev = this.latest();
    const kv: KeyValue = {
      key: this.key,
      createRevision: prev === null ? main : prev.createRevision,
      modRevision: main,
      version: prev === null ? 1 : prev.version + 1,
      value,
      lease,
    };
    const entry: Entry = { main, sub, kv };
    if (prev === null) this.generations.push({ entries: [entry] });
    else this.generations[this.generations.length - 1].entries.push(entry);
    this.tailMain = main;
    this.tailKv = kv;
    return { kv, prev };
  }

  /** Appends a tombstone closing the live generation; returns the deleted kv. */
  tombstone(main: number, sub: number): KeyValue {
    const prev = this.latest();
    if (prev === null) throw new Error("mvcc: tombstone on an absent key");
    this.generations[this.generations.length - 1].entries.push({ main, sub, kv: null });
    this.tailMain = main;
    this.tailKv = null;
    return prev;
  }

  /** Removes the last entry (rollback of an aborted write). */
  popEntry(): void {
    const gen = this.generations[this.generations.length - 1];
    gen.entries.pop();
    if (gen.entries.length === 0) this.generations.pop();
    this.syncTail();
  }

  /**
   * Drops what no read or watch at revision >= rev can see. Kept: every entry with
   * main >= rev (the retained history), and the latest entry below rev if it is a put
   * (the value visible at rev and the prevKv of the next event). A tombstone below rev
   * is dropped together with everything before it. `dropped` sees each dropped entry.
   */
  compact(rev: number, dropped?: (e: Entry) => void): void {
    for (let gi = this.generations.length - 1; gi >= 0; gi--) {
      const entries = this.generations[gi].entries;
      if (entries[0].main >= rev) continue;
      let ei = entries.length - 1;
      while (entries[ei].main >= rev) ei--;
      // New arrays, never edits (see Views above).
      const keepFrom = entries[ei].kv === null ? ei + 1 : ei;
      if (dropped) {
        for (let g = 0; g < gi; g++) for (const e of this.generations[g].entries) dropped(e);
        for (let j = 0; j < keepFrom; j++) dropped(entries[j]);
      }
      if (keepFrom === entries.length) {
        // The generation ended below rev: it and all before it are invisible.
        this.generations = this.generations.slice(gi + 1);
      } else {
        const kept: Generation = { entries: entries.slice(keepFrom) };
        this.generations = [kept, ...this.generations.slice(gi + 1)];
      }
      this.syncTail();
      return;
    }
  }
}

/** The kv of a DELETE event: key and modRevision only, as etcd reports it. */
export function deletedKv(key: Uint8Array, main: number): KeyValue {
  return { key, createRevision: 0, modRevision: main, version: 0, value: EMPTY_BYTES, lease: 0n };
}
