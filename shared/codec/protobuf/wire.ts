/**
 * Protobuf wire primitives: a growable writer and a bounds-checked reader.
 * Pure; no schema knowledge. Every read checks the remaining length and throws
 * `ProtobufError` (never a RangeError or an out-of-bounds undefined).
 *
 * Wire types: 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32. Groups (3, 4)
 * are rejected: the platform's messages never use them.
 */

export type ProtobufErrorCode =
  /** The input ends inside a value (or the envelope has no room for its prefix). */
  | "Truncated"
  /** The first bytes are not the platform's protobuf prefix. */
  | "BadMagic"
  /** A tag, wire type, varint or length is malformed. */
  | "Malformed"
  /** A field carries a wire type its schema does not allow. */
  | "WrongWireType"
  /** A value does not fit its schema (a bad timestamp, an invalid JSON payload, a non-finite double). */
  | "InvalidValue"
  /** The envelope names another kind than the one expected. */
  | "KindMismatch"
  /** Messages nest deeper than the decoder allows. */
  | "TooDeep"
  /** A frame of a watch stream is larger than allowed. */
  | "FrameTooLarge";

/** A protobuf body that cannot be encoded or decoded. `path` names the field (`spec.containers[0].ports`) when known. */
export class ProtobufError extends Error {
  readonly code: ProtobufErrorCode;
  readonly path: string;
  constructor(code: ProtobufErrorCode, message: string, path = "") {
    super(path === "" ? message : `${path}: ${message}`);
    this.name = "ProtobufError";
    this.code = code;
    this.path = path;
  }
}

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LEN = 2;
export const WIRE_FIXED32 = 5;

/** Bytes an unsigned varint of the non-negative safe integer `n` takes. */
export function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    size++;
  }
  return size;
}

const MASK_64 = (1n << 64n) - 1n;
const utf8 = new TextEncoder();
/** Like the platform's decoder, strings are not validated: invalid UTF-8 reads as U+FFFD (as its JSON output would). */
const utf8Decoder = new TextDecoder("utf-8");

/** Appends wire values to a growable buffer. */
export class Writer {
  private buf: Uint8Array;
  private pos = 0;
  constructor(initial = 256) {
    this.buf = new Uint8Array(initial);
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  get length(): number {
    return this.pos;
  }

  /** An unsigned varint of a non-negative safe integer. */
  uvarint(n: number): this {
    this.ensure(10);
    while (n >= 0x80) {
      this.buf[this.pos++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buf[this.pos++] = n;
    return this;
  }

  /** A signed 64-bit integer as a varint (two's complement: negative values take 10 bytes), as int32/int64 fields do. */
  int64(v: number | bigint): this {
    if (typeof v === "number" && v >= 0 && Number.isSafeInteger(v)) return this.uvarint(v);
    let u = BigInt.asUintN(64, BigInt(v));
    this.ensure(10);
    while (u >= 0x80n) {
      this.buf[this.pos++] = Number(u & 0x7fn) | 0x80;
      u >>= 7n;
    }
    this.buf[this.pos++] = Number(u);
    return this;
  }

  tag(field: number, wireType: number): this {
    return this.uvarint(field * 8 + wireType);
  }

  bytes(b: Uint8Array): this {
    this.uvarint(b.length);
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
    return this;
  }

  string(s: string): this {
    return this.bytes(utf8.encode(s));
  }

  double(v: number): this {
    this.ensure(8);
    new DataView(this.buf.buffer, this.buf.byteOffset).setFloat64(this.pos, v, true);
    this.pos += 8;
    return this;
  }

  /** Raw bytes without a length. */
  raw(b: Uint8Array): this {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
    return this;
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }
}

/** One field as read from the wire. */
export type WireValue =
  | { wireType: typeof WIRE_VARINT; value: bigint }
  | { wireType: typeof WIRE_FIXED64; value: Uint8Array }
  | { wireType: typeof WIRE_LEN; value: Uint8Array }
  | { wireType: typeof WIRE_FIXED32; value: Uint8Array };

/** Reads wire values from a byte range; every read is bounds-checked. */
export class Reader {
  private pos: number;
  private readonly end: number;
  constructor(
    private readonly buf: Uint8Array,
    private readonly path = "",
  ) {
    this.pos = 0;
    this.end = buf.length;
  }

  get done(): boolean {
    return this.pos >= this.end;
  }

  private need(n: number, what: string): void {
    if (this.end - this.pos < n) throw new ProtobufError("Truncated", `unexpected end of data reading ${what} at offset ${this.pos}`, this.path);
  }

  /** A varint as an unsigned 64-bit bigint. */
  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      this.need(1, "a varint");
      const b = this.buf[this.pos++];
      result |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) {
        if (i === 9 && b > 1) throw new ProtobufError("Malformed", "varint overflows 64 bits", this.path);
        return result & MASK_64;
      }
      shift += 7n;
    }
    throw new ProtobufError("Malformed", "varint longer than 10 bytes", this.path);
  }

  /** A varint that must fit a non-negative safe integer (tags, lengths). */
  uvarintNumber(what: string): number {
    const v = this.varint();
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new ProtobufError("Malformed", `${what} too large`, this.path);
    return Number(v);
  }

  fixed(n: 4 | 8): Uint8Array {
    this.need(n, `a fixed${n * 8}`);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  lengthDelimited(): Uint8Array {
    const len = this.uvarintNumber("length");
    this.need(len, `${len} bytes of a length-delimited field`);
    const out = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }

  /** The next field: its number and value. Rejects field number 0 and group wire types. */
  field(): { field: number; wire: WireValue } {
    const key = this.uvarintNumber("tag");
    const field = Math.floor(key / 8);
    const wireType = key % 8;
    if (field === 0 || field > 536_870_911) throw new ProtobufError("Malformed", `invalid field number ${field}`, this.path);
    switch (wireType) {
      case WIRE_VARINT:
        return { field, wire: { wireType, value: this.varint() } };
      case WIRE_FIXED64:
        return { field, wire: { wireType, value: this.fixed(8) } };
      case WIRE_LEN:
        return { field, wire: { wireType, value: this.lengthDelimited() } };
      case WIRE_FIXED32:
        return { field, wire: { wireType, value: this.fixed(4) } };
      default:
        throw new ProtobufError("Malformed", `unsupported wire type ${wireType} for field ${field}`, this.path);
    }
  }
}

/** All fields of a message, in wire order. */
export function readFields(bytes: Uint8Array, path = ""): Array<{ field: number; wire: WireValue }> {
  const r = new Reader(bytes, path);
  const out: Array<{ field: number; wire: WireValue }> = [];
  while (!r.done) out.push(r.field());
  return out;
}

/** A varint as a signed 64-bit integer: a number when safe, else a bigint. */
export function toSigned64(u: bigint): number | bigint {
  const s = BigInt.asIntN(64, u);
  return s >= BigInt(Number.MIN_SAFE_INTEGER) && s <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(s) : s;
}

/** A varint as a signed 32-bit integer (the low 32 bits, as the platform's decoder truncates). */
export function toSigned32(u: bigint): number {
  return Number(BigInt.asIntN(32, u));
}

export function readDouble(b: Uint8Array): number {
  return new DataView(b.buffer, b.byteOffset, b.byteLength).getFloat64(0, true);
}

export function readFloat(b: Uint8Array): number {
  return new DataView(b.buffer, b.byteOffset, b.byteLength).getFloat32(0, true);
}

export function decodeUtf8(b: Uint8Array): string {
  return utf8Decoder.decode(b);
}

export function encodeUtf8(s: string): Uint8Array {
  return utf8.encode(s);
}
