// The store's one binary writer and reader, shared by the WAL records, the
// peer messages, the log entry data and the MVCC snapshots:
// - uvarint: unsigned LEB128 of a non-negative safe integer (at most 8 bytes);
// - svarint: a safe integer, zigzag then LEB128 (the same bytes as i64);
// - i64: a bigint in the int64 range, zigzag then LEB128 (at most 10 bytes);
// - bytes and str: a uvarint length, then the bytes (str: UTF-8);
// - uvarints and strs: a uvarint count, then the items;
// - u8, bool (0 or 1), raw (bytes without a length).
// Same input, same bytes. Writers throw RangeError on values outside these
// domains. Readers check every bound and throw the error their creator
// chose (each format names its own error class), never anything else;
// decoded byte strings are copies, never views into the input.

const TWO_POW_63 = 1n << 63n;
const TWO_POW_64 = 1n << 64n;
/** |v| below 2^51: the zigzag form is a safe integer, so the number path is exact. */
const SMALL = 2 ** 51;
const SMALL_BIG = 1n << 51n;
const MAX_SAFE_BIG = BigInt(Number.MAX_SAFE_INTEGER);

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder("utf-8", { fatal: true });

/** Makes the error a reader throws on malformed input. */
export type DecodeErrorFactory = (message: string) => Error;

/** The error of a reader created without its own factory. */
export class BinaryDecodeError extends Error {
  override readonly name = "BinaryDecodeError";
}

const defaultFactory: DecodeErrorFactory = (message) => new BinaryDecodeError(message);

export class BinaryWriter {
  private buf: Uint8Array;
  private pos = 0;

  constructor(initialSize = 256) {
    this.buf = new Uint8Array(Math.max(1, initialSize));
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  /** The low 8 bits of v. */
  u8(v: number): this {
    this.ensure(1);
    this.buf[this.pos++] = v & 0xff;
    return this;
  }

  /** A non-negative safe integer; `what` names it in the RangeError. */
  uvarint(v: number, what = "value"): this {
    if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`${what} must be a non-negative safe integer, got ${v}`);
    this.ensure(8);
    while (v >= 0x80) {
      this.buf[this.pos++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.pos++] = v;
    return this;
  }

  /** A safe integer, zigzag encoded. */
  svarint(v: number): this {
    if (!Number.isSafeInteger(v)) throw new RangeError(`value must be a safe integer, got ${v}`);
    // Near 2^53 the zigzag value is not a safe number: take the bigint path (same bytes).
    return Math.abs(v) < SMALL ? this.uvarint(v >= 0 ? v * 2 : -v * 2 - 1) : this.i64(BigInt(v));
  }

  /** An int64, zigzag encoded. */
  i64(v: bigint): this {
    if (v > -SMALL_BIG && v < SMALL_BIG) {
      const n = Number(v);
      return this.uvarint(n >= 0 ? n * 2 : -n * 2 - 1);
    }
    if (v < -TWO_POW_63 || v >= TWO_POW_63) throw new RangeError(`value must be an int64, got ${v}`);
    let z = v >= 0n ? v * 2n : -v * 2n - 1n;
    this.ensure(10);
    while (z >= 0x80n) {
      this.buf[this.pos++] = Number(z & 0x7fn) | 0x80;
      z >>= 7n;
    }
    this.buf[this.pos++] = Number(z);
    return this;
  }

  /** 1 for true, 0 for false or undefined. */
  bool(v: boolean | undefined): this {
    return this.u8(v === true ? 1 : 0);
  }

  bytes(v: Uint8Array): this {
    this.uvarint(v.byteLength, "length");
    return this.raw(v);
  }

  raw(v: Uint8Array): this {
    this.ensure(v.byteLength);
    this.buf.set(v, this.pos);
    this.pos += v.byteLength;
    return this;
  }

  str(v: string): this {
    return this.bytes(utf8.encode(v));
  }

  uvarints(v: readonly number[], what = "value"): this {
    this.uvarint(v.length, "length");
    for (const n of v) this.uvarint(n, what);
    return this;
  }

  strs(v: readonly string[]): this {
    this.uvarint(v.length, "length");
    for (const s of v) this.str(s);
    return this;
  }

  /** Bytes written so far. */
  get length(): number {
    return this.pos;
  }

  /** The bytes written: a view of the writer's buffer (do not write to the writer afterwards). */
  finish(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }
}

export class BinaryReader {
  private pos = 0;

  constructor(
    private readonly buf: Uint8Array,
    private readonly fail: DecodeErrorFactory = defaultFactory,
  ) {}

  /** Whether every byte was read. */
  get done(): boolean {
    return this.pos >= this.buf.length;
  }

  /** Bytes not read yet. */
  get remaining(): number {
    return this.buf.length - this.pos;
  }

  u8(): number {
    if (this.pos >= this.buf.length) throw this.fail("unexpected end");
    return this.buf[this.pos++];
  }

  uvarint(): number {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 8; i++) {
      const b = this.u8();
      result += (b & 0x7f) * scale;
      if (b < 0x80) {
        if (!Number.isSafeInteger(result)) throw this.fail("varint out of range");
        return result;
      }
      scale *= 0x80;
    }
    throw this.fail("varint too long");
  }

  svarint(): number {
    const v = this.i64();
    if (v > MAX_SAFE_BIG || v < -MAX_SAFE_BIG) throw this.fail("integer out of the safe range");
    return Number(v);
  }

  i64(): bigint {
    // Fast path: a varint of at most 7 bytes is below 2^49 and exact as a number.
    const start = this.pos;
    let small = 0;
    let scale = 1;
    for (let i = 0; i < 7 && this.pos < this.buf.length; i++) {
      const b = this.buf[this.pos++];
      small += (b & 0x7f) * scale;
      if (b < 0x80) return BigInt(small % 2 === 0 ? small / 2 : -(small + 1) / 2);
      scale *= 0x80;
    }
    this.pos = start;
    let z = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      const b = this.u8();
      z |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) {
        if (z >= TWO_POW_64) throw this.fail("int64 out of range");
        return (z & 1n) === 0n ? z >> 1n : -((z + 1n) >> 1n);
      }
      shift += 7n;
    }
    throw this.fail("int64 varint too long");
  }

  bool(): boolean {
    const b = this.u8();
    if (b > 1) throw this.fail(`bad boolean ${b}`);
    return b === 1;
  }

  /** A length-prefixed byte string (a copy). */
  bytes(): Uint8Array {
    return this.raw(this.uvarint());
  }

  /** The next n bytes (a copy). */
  raw(n: number): Uint8Array {
    if (n > this.buf.length - this.pos) throw this.fail("unexpected end");
    const out = this.buf.slice(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  str(): string {
    const b = this.bytes();
    try {
      return fromUtf8.decode(b);
    } catch {
      throw this.fail("invalid UTF-8");
    }
  }

  uvarints(): number[] {
    const n = this.count();
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push(this.uvarint());
    return out;
  }

  strs(): string[] {
    const n = this.count();
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(this.str());
    return out;
  }

  /** The unread remainder, as a view of the input; the reader is then at the end. */
  rest(): Uint8Array {
    const out = this.buf.subarray(this.pos);
    this.pos = this.buf.length;
    return out;
  }

  /** Throws unless every byte was read. */
  end(): void {
    if (this.pos !== this.buf.length) throw this.fail(`${this.buf.length - this.pos} trailing bytes`);
  }

  /** A list's item count; each item takes at least one byte, so a count beyond the input is malformed. */
  private count(): number {
    const n = this.uvarint();
    if (n > this.buf.length - this.pos) throw this.fail("list longer than the input");
    return n;
  }
}
