// A deterministic running digest of what a Raft node hands to its
// application, for checking that a refactor of the core leaves behaviour
// unchanged: two runs of the same seeded schedule produce the same digest iff
// every Ready (hard state, soft state, entries, snapshot, committed entries,
// messages with every field, read states) was the same, in the same order.
//
// Two independent 32-bit FNV-1a lanes (different offsets) make accidental
// collisions over a few hundred runs negligible. Not a cryptographic hash.

import type { Entry, Message, ReadState, Snapshot } from "./types.ts";
import type { Ready } from "./rawnode.ts";

const fnvPrime = 0x01000193;

export class Digest {
  private a = 0x811c9dc5;
  private b = 0x050c5d1f;

  byte(x: number): void {
    this.a = Math.imul(this.a ^ (x & 0xff), fnvPrime) >>> 0;
    this.b = Math.imul(this.b ^ ((x + 0x5b) & 0xff), fnvPrime) >>> 0;
  }

  /** A non-negative safe integer, as 8 bytes (sign and overflow are folded in). */
  number(n: number): void {
    let lo = n >>> 0;
    let hi = Math.floor(n / 4294967296) >>> 0;
    for (let i = 0; i < 4; i++, lo >>>= 8) this.byte(lo);
    for (let i = 0; i < 4; i++, hi >>>= 8) this.byte(hi);
  }

  bool(v: boolean): void {
    this.byte(v ? 1 : 0);
  }

  bytes(b: Uint8Array | undefined): void {
    if (b === undefined) {
      this.number(0xffffffff);
      return;
    }
    this.number(b.byteLength);
    for (let i = 0; i < b.byteLength; i++) this.byte(b[i]);
  }

  string(s: string): void {
    this.bytes(new TextEncoder().encode(s));
  }

  hex(): string {
    return this.a.toString(16).padStart(8, "0") + this.b.toString(16).padStart(8, "0");
  }
}

function digestEntry(d: Digest, e: Entry): void {
  d.number(e.index);
  d.number(e.term);
  d.number(e.type);
  d.bytes(e.data);
}

function digestEntries(d: Digest, es: Entry[]): void {
  d.number(es.length);
  for (const e of es) digestEntry(d, e);
}

function digestSnapshot(d: Digest, s: Snapshot | undefined): void {
  if (!s) {
    d.byte(0);
    return;
  }
  d.byte(1);
  d.number(s.metadata.index);
  d.number(s.metadata.term);
  d.string(JSON.stringify(s.metadata.confState));
  d.bytes(s.data);
}

export function digestMessage(d: Digest, m: Message): void {
  d.number(m.type);
  d.number(m.to);
  d.number(m.from);
  d.number(m.term);
  d.number(m.logTerm);
  d.number(m.index);
  d.number(m.commit);
  d.bool(m.reject);
  d.number(m.rejectHint);
  d.bytes(m.context);
  digestEntries(d, m.entries);
  digestSnapshot(d, m.snapshot);
}

function digestReadStates(d: Digest, rs: ReadState[]): void {
  d.number(rs.length);
  for (const s of rs) {
    d.number(s.index);
    d.bytes(s.requestCtx);
  }
}

/** Folds one Ready of node `id` into d. */
export function digestReady(d: Digest, id: number, rd: Ready): void {
  d.number(id);
  if (rd.softState) {
    d.byte(1);
    d.number(rd.softState.lead);
    d.number(rd.softState.raftState);
  } else {
    d.byte(0);
  }
  if (rd.hardState) {
    d.byte(1);
    d.number(rd.hardState.term);
    d.number(rd.hardState.vote);
    d.number(rd.hardState.commit);
  } else {
    d.byte(0);
  }
  digestReadStates(d, rd.readStates);
  digestEntries(d, rd.entries);
  digestSnapshot(d, rd.snapshot);
  digestEntries(d, rd.committedEntries);
  d.number(rd.messages.length);
  for (const m of rd.messages) digestMessage(d, m);
  d.bool(rd.mustSync);
}
