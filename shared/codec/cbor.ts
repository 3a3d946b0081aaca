/**
 * The CBOR media types: `application/cbor` bodies and `application/cbor-seq`
 * watch streams (concatenated CBOR data items, one watch event each).
 *
 * Encoding uses cbor-x with `useRecords: false` (plain CBOR maps, no record
 * extension), preceded by the self-described CBOR tag 55799 (d9 d9 f7) as the
 * platform writes it. Integers beyond 2^53 are bigints in and out.
 *
 * Decoding is a validating pass of our own rather than cbor-x's decoder,
 * because request bodies are untrusted and the platform's decoder is strict
 * where cbor-x is lenient (cbor-x keeps the last of duplicate map keys, cannot
 * take byte-string keys, and bounds nesting only by the call stack). The rules,
 * after the platform's CBOR decoding mode:
 *  - duplicate map keys are an error (not a warning, unlike JSON);
 *  - map keys must be text or byte strings; byte strings read as strings;
 *  - text strings must be valid UTF-8;
 *  - nesting deeper than `maxDepth` (default 64) is an error;
 *  - integers must fit int64 (numbers when safe, else bigints);
 *  - NaN, infinities and `undefined` have no JSON form and are errors;
 *  - tag 55799 is accepted anywhere; tags 21/22/23 (expected base64url/base64/base16
 *    conversion) turn a byte string into that text; other tags are errors;
 *  - indefinite-length items are accepted; trailing bytes after the item are an error.
 */
import { Encoder } from "cbor-x";
import { setOwn } from "../schema/values.ts";

export const CBOR_SELF_DESCRIBED: Readonly<Uint8Array> = Uint8Array.of(0xd9, 0xd9, 0xf7);
export const DEFAULT_CBOR_MAX_DEPTH = 64;
export const DEFAULT_CBOR_MAX_ITEMS = 1 << 17;

export type CborErrorCode = "Truncated" | "Malformed" | "DuplicateKey" | "TooDeep" | "TooLarge" | "Unsupported" | "TrailingData";

export class CborError extends Error {
  readonly code: CborErrorCode;
  /** Byte offset of the offending item. */
  readonly offset: number;
  /** Path of the value (`spec.containers[0]`), "" at the top. */
  readonly path: string;
  constructor(code: CborErrorCode, message: string, offset: number, path: string) {
    super(`cbor: ${message}${path === "" ? "" : ` at ${path}`} (offset ${offset})`);
    this.name = "CborError";
    this.code = code;
    this.offset = offset;
    this.path = path;
  }
}

export interface CborDecodeOptions {
  /** Maximum nesting of arrays, maps and tags (default 64). */
  maxDepth?: number;
  /** Maximum elements of one array or pairs of one map (default 131072). */
  maxItems?: number;
}

const encoder = new Encoder({ useRecords: false, mapsAsObjects: true, variableMapSize: true, tagUint8Array: false });

/** A JSON-shaped value as a CBOR body (self-described tag first). */
export function encodeCbor(value: unknown): Uint8Array {
  const body = encoder.encode(value) as Uint8Array;
  const out = new Uint8Array(CBOR_SELF_DESCRIBED.length + body.length);
  out.set(CBOR_SELF_DESCRIBED);
  out.set(body, CBOR_SELF_DESCRIBED.length);
  return out;
}

/** One watch event as an item of an `application/cbor-seq` stream (items are simply concatenated). */
export function encodeCborSeqItem(event: { type: string; object: unknown }): Uint8Array {
  return encodeCbor({ type: event.type, object: event.object });
}

/** Decodes exactly one CBOR data item; throws `CborError`. */
export function decodeCbor(bytes: Uint8Array, opts: CborDecodeOptions = {}): unknown {
  const p = new Parser(bytes, opts);
  if (bytes.length === 0) throw new CborError("Truncated", "empty body", 0, "");
  const v = p.item("", 0);
  if (p.pos !== bytes.length) throw new CborError("TrailingData", `${bytes.length - p.pos} bytes of extraneous data after the data item`, p.pos, "");
  return v;
}

/** Decodes a complete `application/cbor-seq` byte string into its items. */
export function decodeCborSeq(bytes: Uint8Array, opts: CborDecodeOptions = {}): unknown[] {
  const r = new CborSeqReader(opts);
  const items = r.push(bytes);
  r.finish();
  return items;
}

/** Splits a CBOR sequence arriving in chunks into whole items. */
export class CborSeqReader {
  private pending: Uint8Array = new Uint8Array(0);
  constructor(private readonly opts: CborDecodeOptions = {}) {}

  push(chunk: Uint8Array): unknown[] {
    let buf = this.pending.length === 0 ? chunk : concat(this.pending, chunk);
    const out: unknown[] = [];
    while (buf.length > 0) {
      const p = new Parser(buf, this.opts);
      try {
        out.push(p.item("", 0));
      } catch (e) {
        if (e instanceof CborError && e.code === "Truncated") break;
        throw e;
      }
      buf = buf.subarray(p.pos);
    }
    this.pending = buf.slice();
    return out;
  }

  finish(): void {
    if (this.pending.length > 0) throw new CborError("Truncated", `sequence ended inside a data item (${this.pending.length} bytes left)`, 0, "");
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });
const laxUtf8 = new TextDecoder("utf-8");
const BREAK = Symbol("break");
const INT64_MAX = (1n << 63n) - 1n;

class Parser {
  pos = 0;
  private readonly maxDepth: number;
  private readonly maxItems: number;
  constructor(
    private readonly buf: Uint8Array,
    opts: CborDecodeOptions,
  ) {
    this.maxDepth = opts.maxDepth ?? DEFAULT_CBOR_MAX_DEPTH;
    this.maxItems = opts.maxItems ?? DEFAULT_CBOR_MAX_ITEMS;
  }

  private fail(code: CborErrorCode, message: string, path: string, at = this.pos): never {
    throw new CborError(code, message, at, path);
  }

  private need(n: number, path: string): void {
    if (this.buf.length - this.pos < n) this.fail("Truncated", "unexpected end of data", path);
  }

  private byte(path: string): number {
    this.need(1, path);
    return this.buf[this.pos++];
  }

  /** The argument of a head: a number when safe, else a bigint; undefined for indefinite length (31). */
  private argument(info: number, path: string, start: number): number | bigint | undefined {
    if (info < 24) return info;
    const dv = new DataView(this.buf.buffer, this.buf.byteOffset);
    switch (info) {
      case 24:
        return this.byte(path);
      case 25:
        this.need(2, path);
        this.pos += 2;
        return dv.getUint16(this.pos - 2);
      case 26:
        this.need(4, path);
        this.pos += 4;
        return dv.getUint32(this.pos - 4);
      case 27: {
        this.need(8, path);
        this.pos += 8;
        const v = dv.getBigUint64(this.pos - 8);
        return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
      }
      case 31:
        return undefined;
      default:
        return this.fail("Malformed", `invalid additional information ${info}`, path, start);
    }
  }

  private length(arg: number | bigint | undefined, path: string, start: number): number {
    if (typeof arg === "bigint" || (arg !== undefined && arg > this.buf.length - this.pos)) {
      // A definite length cannot exceed the bytes left (each element takes at least one).
      return this.fail("Truncated", `declared length ${String(arg)} exceeds the remaining ${this.buf.length - this.pos} bytes`, path, start);
    }
    return arg ?? 0;
  }

  item(path: string, depth: number): unknown {
    const v = this.itemOrBreak(path, depth);
    if (v === BREAK) this.fail("Malformed", "unexpected break", path, this.pos - 1);
    return v;
  }

  private itemOrBreak(path: string, depth: number): unknown {
    const start = this.pos;
    const head = this.byte(path);
    const major = head >> 5;
    const info = head & 0x1f;
    if (head === 0xff) return BREAK;
    const arg = major === 7 ? undefined : this.argument(info, path, start);
    if (info === 31 && (major === 0 || major === 1 || major === 6)) this.fail("Malformed", `indefinite length not allowed for major type ${major}`, path, start);
    switch (major) {
      case 0:
        if (typeof arg === "bigint" && arg > INT64_MAX) this.fail("Unsupported", `integer ${arg} overflows int64`, path, start);
        return arg;
      case 1: {
        if (typeof arg === "bigint") {
          if (arg > INT64_MAX) this.fail("Unsupported", `integer -1-${arg} overflows int64`, path, start);
          const n = -1n - arg;
          return n >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(n) : n;
        }
        const n = -1 - (arg ?? 0);
        return Number.isSafeInteger(n) ? n : -1n - BigInt(arg ?? 0);
      }
      case 2:
      case 3: {
        const bytes = info === 31 ? this.chunks(major, path) : this.take(this.length(arg, path, start), path);
        if (major === 2) return laxUtf8.decode(bytes);
        try {
          return strictUtf8.decode(bytes);
        } catch {
          return this.fail("Malformed", "text string is not valid UTF-8", path, start);
        }
      }
      case 4: {
        if (depth + 1 > this.maxDepth) this.fail("TooDeep", `nesting exceeds the limit of ${this.maxDepth}`, path, start);
        const out: unknown[] = [];
        const n = info === 31 ? Infinity : this.length(arg, path, start);
        for (let i = 0; i < n; i++) {
          if (out.length >= this.maxItems) this.fail("TooLarge", `array has more than ${this.maxItems} elements`, path, start);
          const v = this.itemOrBreak(`${path}[${i}]`, depth + 1);
          if (v === BREAK) {
            if (n !== Infinity) this.fail("Malformed", "unexpected break", path, this.pos - 1);
            break;
          }
          out.push(v);
        }
        return out;
      }
      case 5: {
        if (depth + 1 > this.maxDepth) this.fail("TooDeep", `nesting exceeds the limit of ${this.maxDepth}`, path, start);
        const out: Record<string, unknown> = {};
        const seen = new Set<string>();
        const n = info === 31 ? Infinity : this.length(arg, path, start);
        for (let i = 0; i < n; i++) {
          if (seen.size >= this.maxItems) this.fail("TooLarge", `map has more than ${this.maxItems} pairs`, path, start);
          const keyAt = this.pos;
          const k = this.itemOrBreak(path, depth + 1);
          if (k === BREAK) {
            if (n !== Infinity) this.fail("Malformed", "unexpected break", path, this.pos - 1);
            break;
          }
          if (typeof k !== "string") this.fail("Unsupported", `map key of type ${describe(k)}; keys must be strings`, path, keyAt);
          if (seen.has(k)) this.fail("DuplicateKey", `duplicate map key ${JSON.stringify(k)}`, path, keyAt);
          seen.add(k);
          const v = this.item(path === "" ? k : `${path}.${k}`, depth + 1);
          setOwn(out, k, v);
        }
        return out;
      }
      case 6: {
        const tag = arg;
        if (depth + 1 > this.maxDepth) this.fail("TooDeep", `nesting exceeds the limit of ${this.maxDepth}`, path, start);
        if (tag === 55799) return this.item(path, depth + 1);
        if (tag === 21 || tag === 22 || tag === 23) {
          this.need(1, path);
          if (this.buf[this.pos] >> 5 !== 2) return this.item(path, depth + 1); // the hint applies to byte strings only
          const at = this.pos;
          const info2 = this.byte(path) & 0x1f;
          const raw = Buffer.from(info2 === 31 ? this.chunks(2, path) : this.take(this.length(this.argument(info2, path, at), path, at), path));
          return tag === 21 ? raw.toString("base64url") : tag === 22 ? raw.toString("base64") : raw.toString("hex");
        }
        return this.fail("Unsupported", `unsupported tag ${String(tag)}`, path, start);
      }
      default:
        return this.simple(info, path, start);
    }
  }

  private simple(info: number, path: string, start: number): unknown {
    const dv = new DataView(this.buf.buffer, this.buf.byteOffset);
    let f: number;
    switch (info) {
      case 20:
        return false;
      case 21:
        return true;
      case 22:
        return null;
      case 23:
        return this.fail("Unsupported", "undefined has no JSON form", path, start);
      case 25:
        this.need(2, path);
        f = half(dv.getUint16(this.pos));
        this.pos += 2;
        break;
      case 26:
        this.need(4, path);
        f = dv.getFloat32(this.pos);
        this.pos += 4;
        break;
      case 27:
        this.need(8, path);
        f = dv.getFloat64(this.pos);
        this.pos += 8;
        break;
      default:
        return this.fail(info === 31 ? "Malformed" : "Unsupported", info === 31 ? "unexpected break" : `unsupported simple value ${info}`, path, start);
    }
    if (!Number.isFinite(f)) this.fail("Unsupported", `${f} has no JSON form`, path, start);
    return f;
  }

  private take(n: number, path: string): Uint8Array {
    this.need(n, path);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** The chunks of an indefinite-length string: definite strings of the same major type, then a break. */
  private chunks(major: number, path: string): Uint8Array {
    const parts: Uint8Array[] = [];
    for (;;) {
      const at = this.pos;
      const head = this.byte(path);
      if (head === 0xff) break;
      if (head >> 5 !== major || (head & 0x1f) === 31) this.fail("Malformed", "invalid chunk in an indefinite-length string", path, at);
      parts.push(this.take(this.length(this.argument(head & 0x1f, path, at), path, at), path));
    }
    return Buffer.concat(parts);
  }
}

function half(h: number): number {
  const exp = (h >> 10) & 0x1f;
  const mant = h & 0x3ff;
  const sign = h & 0x8000 ? -1 : 1;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 31) return mant === 0 ? sign * Infinity : NaN;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v === "object" ? "map" : typeof v;
}
