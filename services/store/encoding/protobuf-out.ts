// Writing protobuf wire values into a buffer of known size, for the hand-written
// codecs of the hot messages (the KV service's responses, the peer stream's
// batches and acks). Sizes are computed first (the *Size functions), so
// each message is written once into one buffer, nested lengths included, with no
// growth and no copy of the whole.
//
// 64-bit fields arrive as numbers (our own results) or decimal strings (ids and
// leases, as the generic codec's shapes have them); int64Of keeps a non-negative
// safe integer as a number and turns anything else into its varint bytes, kept
// for decimal strings seen recently. A negative int64 takes ten bytes (two's
// complement), as protobuf writes it.

import { varintSize } from "../../../shared/codec/protobuf/wire.ts";

export const WIRE_VARINT = 0;
export const WIRE_LEN = 2;

/**
 * A 64-bit field's value: a safe integer as a number; anything else as its
 * varint bytes, made once (ids and leases of 64 bits recur on every response).
 */
export type Int64Value = number | Uint8Array;

const SHORT_DECIMAL = /^-?\d{1,15}$/;
/** Varints of the decimal 64-bit values seen recently (cluster and member ids, leases). */
const encodedDecimals = new Map<string, Uint8Array>();
const MAX_ENCODED_DECIMALS = 256;

function varintBytes(v: bigint): Uint8Array {
  let u = BigInt.asUintN(64, v);
  const out: number[] = [];
  while (u >= 0x80n) {
    out.push(Number(u & 0x7fn) | 0x80);
    u >>= 7n;
  }
  out.push(Number(u));
  return Uint8Array.from(out);
}

/** A 64-bit field (number, decimal string or bigint) ready to size and write; throws RangeError when not an int64 (`signed`) or uint64. */
function int64Value(v: number | string | bigint | undefined, signed: boolean): Int64Value {
  if (v === undefined) return 0;
  if (typeof v === "number") {
    if (Number.isSafeInteger(v) && v >= 0) return v;
    if (Number.isSafeInteger(v) && signed) return varintBytes(BigInt(v));
    throw new RangeError(`not a 64-bit integer: ${v}`);
  }
  if (v === "0" || v === "") return 0;
  const text = typeof v === "bigint" ? undefined : v;
  if (text !== undefined && SHORT_DECIMAL.test(text) && text[0] !== "-") return Number(text);
  if (!signed && (typeof v === "bigint" ? v < 0n : text?.[0] === "-")) throw new RangeError(`not a uint64: ${String(v)}`);
  const known = text === undefined ? undefined : encodedDecimals.get(text);
  if (known !== undefined) return known;
  let big: bigint;
  try {
    big = BigInt(v);
  } catch {
    throw new RangeError(`not a 64-bit integer: ${String(v)}`);
  }
  if (big < (signed ? -(1n << 63n) : 0n) || big >= 1n << 64n) throw new RangeError(`not a 64-bit integer: ${String(v)}`);
  if (big === 0n) return 0;
  const bytes = varintBytes(big);
  if (text === undefined) return bytes;
  if (encodedDecimals.size >= MAX_ENCODED_DECIMALS) encodedDecimals.clear();
  encodedDecimals.set(text, bytes);
  return bytes;
}

/** An int64 field's value (negative: ten bytes). */
export function int64Of(v: number | string | bigint | undefined): Int64Value {
  return int64Value(v, true);
}

/** A uint64 field's value; a negative value throws RangeError. */
export function uint64Of(v: number | string | bigint | undefined): Int64Value {
  return int64Value(v, false);
}

/** Bytes of an int64/uint64 varint. */
export function varint64Size(v: Int64Value): number {
  return typeof v === "number" ? varintSize(v) : v.length;
}

/** Bytes of a varint field with its tag (tag below 16: one byte), 0 when the value is zero (proto3 leaves it out). */
export function int64FieldSize(v: Int64Value): number {
  return v === 0 ? 0 : 1 + varint64Size(v);
}

/** Bytes of a length-delimited field of `len` bytes with a one-byte tag. */
export function lenFieldSize(len: number): number {
  return 1 + varintSize(len) + len;
}

/** A writer over a buffer sized in advance; writing past its end is a bug of the sizes and throws. */
export class WireOut {
  readonly buf: Buffer;
  pos = 0;

  /** `headroom` bytes before the message are left for the caller (a frame header). */
  constructor(size: number, headroom = 0) {
    this.buf = Buffer.allocUnsafe(headroom + size);
    this.pos = headroom;
  }

  uvarint(n: number): void {
    const buf = this.buf;
    let pos = this.pos;
    while (n >= 0x80) {
      // The low seven bits survive ToInt32 for any safe integer.
      buf[pos++] = (n & 0x7f) | 0x80;
      n = n < 0x1_0000_0000 ? n >>> 7 : Math.floor(n / 0x80);
    }
    buf[pos++] = n;
    this.pos = pos;
  }

  varint64(v: Int64Value): void {
    if (typeof v === "number") {
      this.uvarint(v);
      return;
    }
    this.buf.set(v, this.pos);
    this.pos += v.length;
  }

  /** A varint field; nothing for zero. `field` below 16. */
  int64Field(field: number, v: Int64Value): void {
    if (v === 0) return;
    this.buf[this.pos++] = (field << 3) | WIRE_VARINT;
    this.varint64(v);
  }

  /** A bool field; nothing for false. `field` below 16. */
  boolField(field: number, v: boolean): void {
    if (!v) return;
    this.buf[this.pos++] = (field << 3) | WIRE_VARINT;
    this.buf[this.pos++] = 1;
  }

  /** The tag and length of a length-delimited field; its `len` bytes follow. `field` below 16. */
  lenPrefix(field: number, len: number): void {
    this.buf[this.pos++] = (field << 3) | WIRE_LEN;
    this.uvarint(len);
  }

  /** A bytes field; nothing when empty. `field` below 16. */
  bytesField(field: number, b: Uint8Array | undefined): void {
    if (b === undefined || b.length === 0) return;
    this.lenPrefix(field, b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** The written bytes (the buffer itself when the sizes were exact). */
  finish(): Buffer {
    if (this.pos > this.buf.length) throw new RangeError(`kv wire: wrote ${this.pos} bytes into ${this.buf.length}`);
    return this.pos === this.buf.length ? this.buf : this.buf.subarray(0, this.pos);
  }
}
