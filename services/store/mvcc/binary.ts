/**
 * A small deterministic binary format shared by Raft log entries and snapshots:
 * unsigned LEB128 varints for non-negative integers, zigzag varints for signed
 * numbers and int64 (bigint), length-prefixed byte strings. Same input, same bytes.
 */

const TWO_POW_63 = 1n << 63n;
const TWO_POW_64 = 1n << 64n;
/** |v| below 2^51: the zigzag form is a safe integer, so the number path is exact. */
const SMALL = 1n << 51n;

export class BinaryWriter {
  private buf = new Uint8Array(256);
  private pos = 0;

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  u8(v: number): this {
    this.ensure(1);
    this.buf[this.pos++] = v & 0xff;
    return this;
  }

  /** Non-negative safe integer. */
  uvarint(v: number): this {
    if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`not a non-negative safe integer: ${v}`);
    this.ensure(8);
    while (v >= 0x80) {
      this.buf[this.pos++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.pos++] = v;
    return this;
  }

  /** Signed safe integer, zigzag encoded. */
  svarint(v: number): this {
    if (!Number.isSafeInteger(v)) throw new RangeError(`not a safe integer: ${v}`);
    // Same wire form as i64; near 2^53 the zigzag value is not a safe number.
    return Math.abs(v) < 2 ** 51 ? this.uvarint(v >= 0 ? v * 2 : -v * 2 - 1) : this.i64(BigInt(v));
  }

  /** int64 as a zigzag varint of at most 10 bytes. */
  i64(v: bigint): this {
    if (v > -SMALL && v < SMALL) {
      const n = Number(v);
      return this.uvarint(n >= 0 ? n * 2 : -n * 2 - 1);
    }
    if (v < -TWO_POW_63 || v >= TWO_POW_63) throw new RangeError(`not an int64: ${v}`);
    let z = v >= 0n ? v * 2n : -v * 2n - 1n;
    this.ensure(10);
    while (z >= 0x80n) {
      this.buf[this.pos++] = Number(z & 0x7fn) | 0x80;
      z >>= 7n;
    }
    this.buf[this.pos++] = Number(z);
    return this;
  }

  bool(v: boolean | undefined): this {
    return this.u8(v === true ? 1 : 0);
  }

  bytes(v: Uint8Array): this {
    this.uvarint(v.length);
    this.ensure(v.length);
    this.buf.set(v, this.pos);
    this.pos += v.length;
    return this;
  }

  raw(v: Uint8Array): this {
    this.ensure(v.length);
    this.buf.set(v, this.pos);
    this.pos += v.length;
    return this;
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }
}

export class DecodeError extends Error {
  constructor(message: string) {
    super(`mvcc: malformed encoding: ${message}`);
    this.name = "DecodeError";
  }
}

export class BinaryReader {
  private pos = 0;

  constructor(private readonly buf: Uint8Array) {}

  get done(): boolean {
    return this.pos >= this.buf.length;
  }

  u8(): number {
    if (this.pos >= this.buf.length) throw new DecodeError("unexpected end");
    return this.buf[this.pos++];
  }

  uvarint(): number {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 8; i++) {
      const b = this.u8();
      result += (b & 0x7f) * scale;
      if (b < 0x80) {
        if (!Number.isSafeInteger(result)) throw new DecodeError("varint out of range");
        return result;
      }
      scale *= 0x80;
    }
    throw new DecodeError("varint too long");
  }

  svarint(): number {
    const v = this.i64();
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) {
      throw new DecodeError("integer out of the safe range");
    }
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
        if (z >= TWO_POW_64) throw new DecodeError("int64 out of range");
        return (z & 1n) === 0n ? z >> 1n : -((z + 1n) >> 1n);
      }
      shift += 7n;
    }
    throw new DecodeError("int64 varint too long");
  }

  bool(): boolean {
    const b = this.u8();
    if (b > 1) throw new DecodeError(`bad boolean ${b}`);
    return b === 1;
  }

  /** A copy, never a view into the input buffer. */
  bytes(): Uint8Array {
    const n = this.uvarint();
    return this.raw(n);
  }

  raw(n: number): Uint8Array {
    if (this.pos + n > this.buf.length) throw new DecodeError("unexpected end");
    const out = this.buf.slice(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  end(): void {
    if (!this.done) throw new DecodeError(`${this.buf.length - this.pos} trailing bytes`);
  }
}
