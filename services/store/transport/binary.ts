// Byte writer and reader of the peer and node formats: unsigned LEB128
// varints (exact up to 2^53 - 1), zigzag varints for deltas below 2^52,
// length-prefixed byte strings and UTF-8 strings. Readers throw CodecError.

const LIMIT = 2 ** 52;
const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder("utf-8", { fatal: true });

export class CodecError extends Error {
  constructor(message: string) {
    super(`peer codec: ${message}`);
    this.name = "CodecError";
  }
}

export class Writer {
  private buf: Uint8Array;
  private pos = 0;
  constructor(size: number) {
    this.buf = new Uint8Array(size);
  }
  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }
  u8(v: number): void {
    this.ensure(1);
    this.buf[this.pos++] = v;
  }
  uvarint(v: number): void {
    if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`peer codec: not a non-negative safe integer: ${v}`);
    this.ensure(8);
    while (v >= 0x80) {
      this.buf[this.pos++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.pos++] = v;
  }
  svarint(v: number): void {
    if (!(Math.abs(v) < LIMIT)) throw new RangeError(`peer codec: delta out of range: ${v}`);
    this.uvarint(v >= 0 ? v * 2 : -v * 2 - 1);
  }
  bytes(v: Uint8Array): void {
    this.uvarint(v.byteLength);
    this.ensure(v.byteLength);
    this.buf.set(v, this.pos);
    this.pos += v.byteLength;
  }
  list(v: readonly number[]): void {
    this.uvarint(v.length);
    for (const n of v) this.uvarint(n);
  }
  raw(v: Uint8Array): void {
    this.ensure(v.byteLength);
    this.buf.set(v, this.pos);
    this.pos += v.byteLength;
  }
  str(v: string): void {
    this.bytes(utf8.encode(v));
  }
  strs(v: readonly string[]): void {
    this.uvarint(v.length);
    for (const s of v) this.str(s);
  }
  bool(v: boolean): void {
    this.u8(v ? 1 : 0);
  }
  finish(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }
}

export class Reader {
  private pos = 0;
  constructor(private readonly buf: Uint8Array) {}
  u8(): number {
    if (this.pos >= this.buf.length) throw new CodecError("unexpected end");
    return this.buf[this.pos++];
  }
  uvarint(): number {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 8; i++) {
      const b = this.u8();
      result += (b & 0x7f) * scale;
      if (b < 0x80) {
        if (!Number.isSafeInteger(result)) throw new CodecError("varint out of range");
        return result;
      }
      scale *= 0x80;
    }
    throw new CodecError("varint too long");
  }
  svarint(): number {
    const z = this.uvarint();
    return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
  }
  bytes(): Uint8Array {
    const n = this.uvarint();
    if (this.pos + n > this.buf.length) throw new CodecError("unexpected end");
    const out = this.buf.slice(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  list(): number[] {
    const n = this.uvarint();
    if (n > this.buf.length - this.pos) throw new CodecError("list longer than the input");
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push(this.uvarint());
    return out;
  }
  str(): string {
    try {
      return fromUtf8.decode(this.bytes());
    } catch (e) {
      if (e instanceof CodecError) throw e;
      throw new CodecError("invalid UTF-8");
    }
  }
  strs(): string[] {
    const n = this.uvarint();
    if (n > this.buf.length - this.pos) throw new CodecError("list longer than the input");
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(this.str());
    return out;
  }
  bool(): boolean {
    const b = this.u8();
    if (b > 1) throw new CodecError(`bad boolean ${b}`);
    return b === 1;
  }
  /** The unread remainder (a view); the reader is then at the end. */
  rest(): Uint8Array {
    const out = this.buf.subarray(this.pos);
    this.pos = this.buf.length;
    return out;
  }
  get done(): boolean {
    return this.pos >= this.buf.length;
  }
  end(): void {
    if (this.pos !== this.buf.length) throw new CodecError(`${this.buf.length - this.pos} trailing bytes`);
  }
}
