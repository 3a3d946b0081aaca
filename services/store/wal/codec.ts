// Compact binary encoding of WAL payloads: unsigned LEB128 varints for
// integers (exact up to 2^53 - 1), length-prefixed byte strings.

import { DecodeError } from "./errors.ts";
import type { ConfState, Entry, HardState, SnapshotMetadata } from "./types.ts";

function checkUint(n: number, what: string): void {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`${what} must be a non-negative safe integer, got ${n}`);
}

export class ByteWriter {
  private buf: Uint8Array;
  private pos = 0;

  constructor(initial = 64) {
    this.buf = new Uint8Array(initial);
  }

  private ensure(extra: number): void {
    if (this.pos + extra <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + extra) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  u8(n: number): this {
    this.ensure(1);
    this.buf[this.pos++] = n & 0xff;
    return this;
  }

  uvarint(n: number, what = "value"): this {
    checkUint(n, what);
    this.ensure(8);
    while (n >= 0x80) {
      this.buf[this.pos++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buf[this.pos++] = n;
    return this;
  }

  bytes(b: Uint8Array): this {
    this.uvarint(b.length, "length");
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
    return this;
  }

  uvarints(list: readonly number[], what: string): this {
    this.uvarint(list.length, "length");
    for (const n of list) this.uvarint(n, what);
    return this;
  }

  finish(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }
}

export class ByteReader {
  private pos = 0;
  constructor(private readonly buf: Uint8Array) {}

  u8(): number {
    if (this.pos >= this.buf.length) throw new DecodeError("unexpected end of payload");
    return this.buf[this.pos++];
  }

  uvarint(): number {
    let n = 0;
    let mul = 1;
    for (let i = 0; i < 8; i++) {
      const b = this.u8();
      n += (b & 0x7f) * mul;
      if (b < 0x80) {
        if (!Number.isSafeInteger(n)) throw new DecodeError("varint exceeds 2^53");
        return n;
      }
      mul *= 0x80;
    }
    throw new DecodeError("varint too long");
  }

  /** Returns a copy, so that the decoded value does not pin a whole segment buffer. */
  bytes(): Uint8Array {
    const len = this.uvarint();
    if (this.pos + len > this.buf.length) throw new DecodeError("byte string overruns payload");
    const out = this.buf.slice(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }

  uvarints(): number[] {
    const len = this.uvarint();
    if (len > this.buf.length - this.pos) throw new DecodeError("list overruns payload");
    const out: number[] = [];
    for (let i = 0; i < len; i++) out.push(this.uvarint());
    return out;
  }

  end(): void {
    if (this.pos !== this.buf.length) throw new DecodeError(`${this.buf.length - this.pos} trailing bytes in payload`);
  }
}

export function encodeEntry(e: Entry): Uint8Array {
  if (e.type !== 0 && e.type !== 1) throw new RangeError(`entry type must be 0 or 1, got ${String(e.type)}`);
  return new ByteWriter(e.data.length + 24)
    .uvarint(e.index, "entry index")
    .uvarint(e.term, "entry term")
    .u8(e.type)
    .bytes(e.data)
    .finish();
}

export function decodeEntry(b: Uint8Array): Entry {
  const r = new ByteReader(b);
  const index = r.uvarint();
  const term = r.uvarint();
  const type = r.u8();
  if (type !== 0 && type !== 1) throw new DecodeError(`unknown entry type ${type}`);
  const data = r.bytes();
  r.end();
  return { term, index, type, data };
}

export function encodeHardState(h: HardState): Uint8Array {
  return new ByteWriter(16)
    .uvarint(h.term, "term")
    .uvarint(h.vote, "vote")
    .uvarint(h.commit, "commit")
    .finish();
}

export function decodeHardState(b: Uint8Array): HardState {
  const r = new ByteReader(b);
  const h = { term: r.uvarint(), vote: r.uvarint(), commit: r.uvarint() };
  r.end();
  return h;
}

function writeConfState(w: ByteWriter, c: ConfState): void {
  w.uvarints(c.voters, "voter id")
    .uvarints(c.learners, "learner id")
    .uvarints(c.votersOutgoing, "outgoing voter id")
    .uvarints(c.learnersNext, "next learner id")
    .u8(c.autoLeave ? 1 : 0);
}

function readConfState(r: ByteReader): ConfState {
  const voters = r.uvarints();
  const learners = r.uvarints();
  const votersOutgoing = r.uvarints();
  const learnersNext = r.uvarints();
  const flag = r.u8();
  if (flag > 1) throw new DecodeError(`bad autoLeave flag ${flag}`);
  return { voters, learners, votersOutgoing, learnersNext, autoLeave: flag === 1 };
}

export function writeSnapshotMeta(w: ByteWriter, m: SnapshotMetadata): ByteWriter {
  w.uvarint(m.index, "snapshot index").uvarint(m.term, "snapshot term");
  writeConfState(w, m.confState);
  return w;
}

export function readSnapshotMeta(r: ByteReader): SnapshotMetadata {
  const index = r.uvarint();
  const term = r.uvarint();
  return { index, term, confState: readConfState(r) };
}

export function encodeSnapshotMeta(m: SnapshotMetadata): Uint8Array {
  return writeSnapshotMeta(new ByteWriter(32), m).finish();
}

export function decodeSnapshotMeta(b: Uint8Array): SnapshotMetadata {
  const r = new ByteReader(b);
  const m = readSnapshotMeta(r);
  r.end();
  return m;
}

export function cloneSnapshotMeta(m: SnapshotMetadata): SnapshotMetadata {
  const c = m.confState;
  return {
    index: m.index,
    term: m.term,
    confState: {
      voters: [...c.voters],
      learners: [...c.learners],
      votersOutgoing: [...c.votersOutgoing],
      learnersNext: [...c.learnersNext],
      autoLeave: c.autoLeave,
    },
  };
}
