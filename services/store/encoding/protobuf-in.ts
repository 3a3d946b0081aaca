// Reading protobuf wire values for the hand-written codecs of the hot messages
// (the KV service's requests, the peer stream's batches and acks). Varints are read as numbers while they fit 49 bits (every
// key length, revision and limit in practice) and through a bigint only beyond.
// Byte fields are views into the received buffer, never copies (as the generic
// codec gives them). Unknown fields of any wire type but groups are skipped.
// Malformed input throws ProtobufError, which grpc-js answers as a failed call.

import { ProtobufError } from "../../../shared/codec/protobuf/wire.ts";

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LEN = 2;
export const WIRE_FIXED32 = 5;

const MAX_FIELD = 536_870_911;

export class WireIn {
  pos = 0;
  readonly end: number;

  constructor(
    readonly buf: Uint8Array,
    readonly message: string,
  ) {
    this.end = buf.length;
  }

  get done(): boolean {
    return this.pos >= this.end;
  }

  private truncated(what: string): never {
    throw new ProtobufError("Truncated", `unexpected end of data reading ${what} at offset ${this.pos}`, this.message);
  }

  /** A varint: a number when below 2^49, else a bigint (the unsigned 64-bit value). */
  varint(): number | bigint {
    const buf = this.buf;
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 7; i++) {
      if (this.pos >= this.end) this.truncated("a varint");
      const b = buf[this.pos++];
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
      scale *= 0x80;
    }
    let big = BigInt(value);
    let shift = 49n;
    for (let i = 7; i < 10; i++) {
      if (this.pos >= this.end) this.truncated("a varint");
      const b = buf[this.pos++];
      big |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) {
        if (i === 9 && b > 1) throw new ProtobufError("Malformed", "varint overflows 64 bits", this.message);
        return big;
      }
      shift += 7n;
    }
    throw new ProtobufError("Malformed", "varint longer than 10 bytes", this.message);
  }

  /** A varint that must be a length or a tag (a safe integer). */
  private size(what: string): number {
    const v = this.varint();
    if (typeof v !== "number") throw new ProtobufError("Malformed", `${what} too large`, this.message);
    return v;
  }

  /** The next tag: field number and wire type. */
  tag(): { field: number; wireType: number } {
    const key = this.size("tag");
    const field = Math.floor(key / 8);
    if (field === 0 || field > MAX_FIELD) throw new ProtobufError("Malformed", `invalid field number ${field}`, this.message);
    return { field, wireType: key % 8 };
  }

  /** A length-delimited value, as a view. */
  bytes(): Uint8Array {
    const len = this.size("length");
    if (this.end - this.pos < len) this.truncated(`${len} bytes of a length-delimited field`);
    const out = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }

  /** A uint64 field: a number when safe, else its decimal string. */
  uint64(): number | string {
    const v = this.varint();
    if (typeof v === "number") return v;
    return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
  }

  /** An int64 field: a number when safe, else its decimal string (as the generic codec gives it). */
  int64(): number | string {
    const v = this.varint();
    if (typeof v === "number") return v;
    const signed = BigInt.asIntN(64, v);
    return signed >= BigInt(Number.MIN_SAFE_INTEGER) && signed <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(signed) : signed.toString();
  }

  /** An enum field: the value's name when `names` has it, else the number (as the generic codec gives it). */
  enumValue<T extends string>(names: readonly T[]): T | number {
    const v = this.varint();
    // Enums are int32 on the wire: the low 32 bits, signed.
    const n = typeof v === "number" ? v | 0 : Number(BigInt.asIntN(32, v));
    return n >= 0 && n < names.length ? names[n] : n;
  }

  bool(): boolean {
    return this.varint() !== 0;
  }

  /** Skips a field of an unknown number. */
  skip(wireType: number, field: number): void {
    switch (wireType) {
      case WIRE_VARINT:
        this.varint();
        return;
      case WIRE_FIXED64:
        this.skipBytes(8);
        return;
      case WIRE_LEN:
        this.bytes();
        return;
      case WIRE_FIXED32:
        this.skipBytes(4);
        return;
      default:
        throw new ProtobufError("Malformed", `unsupported wire type ${wireType} for field ${field}`, this.message);
    }
  }

  private skipBytes(n: number): void {
    if (this.end - this.pos < n) this.truncated(`a fixed${n * 8}`);
    this.pos += n;
  }

  /** Refuses a known field with another wire type than its own. */
  expect(wireType: number, want: number, field: number): void {
    if (wireType !== want) throw new ProtobufError("WrongWireType", `${this.message}: field ${field} has the wrong wire type`, this.message);
  }
}
