/**
 * The protobuf encoder used for every body: one closure per field compiled once per
 * message layout (layout.ts, memoized; recursive schemas compile in finite time),
 * writing into one growing buffer. A nested message reserves one length byte and
 * moves its bytes only when its length needs more (rare: most nested messages are
 * shorter than 128 bytes), so nothing is encoded twice and no per-message buffer is
 * allocated.
 *
 * Contract: output is byte for byte that of the reference encoder
 * (`encodeMessageReference`, message.ts), whose rules it follows (field order, skipped
 * nulls, sorted map keys, inlined structs, unions). Values the reference rejects are
 * rejected here too; the error is then produced by the reference encoder, with the
 * field's path, so this file carries no paths.
 */
import { isObject, toJSONText } from "../../schema/values.ts";
import type { FieldType, MessageLayout, Scalar, ValueType } from "./layout.ts";
import { base64Decode, encodeMessageReference, parseTime } from "./message.ts";
import { ProtobufError, varintSize, WIRE_FIXED64, WIRE_LEN, WIRE_VARINT } from "./wire.ts";

type Obj = Record<string, unknown>;
/** Writes one field (tag and value) of a value known to be present. */
type ValueWriter = (w: GrowingWriter, v: unknown) => void;

interface MessageEncoder {
  /** The message's fields (no tag, no length). Set once the fields are compiled. */
  write: (w: GrowingWriter, obj: Obj) => void;
}

const hasOwn = (o: Obj, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** Thrown at the first value the reference encoder would reject; never leaves this file. */
class Rejected extends ProtobufError {
  constructor() {
    super("InvalidValue", "value rejected");
  }
}

function reject(): never {
  throw new Rejected();
}

/** One growable buffer; length prefixes are reserved and patched. */
export class GrowingWriter {
  buf: Buffer;
  pos = 0;

  constructor(initial = 4096) {
    this.buf = Buffer.allocUnsafe(initial);
  }

  ensure(n: number): void {
    if (this.pos + n > this.buf.length) this.grow(n);
  }

  private grow(n: number): void {
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  byte(b: number): void {
    this.ensure(1);
    this.buf[this.pos++] = b;
  }

  /** Precompiled tag bytes. */
  tag(bytes: readonly number[]): void {
    if (bytes.length === 1) {
      this.ensure(1);
      this.buf[this.pos++] = bytes[0];
      return;
    }
    this.ensure(bytes.length);
    for (let i = 0; i < bytes.length; i++) this.buf[this.pos++] = bytes[i];
  }

  varint(n: number): void {
    this.ensure(10);
    const buf = this.buf;
    while (n >= 0x80) {
      buf[this.pos++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    buf[this.pos++] = n;
  }

  /** int32/int64 as a varint; negative values take 10 bytes (two's complement). */
  int64(v: number | bigint): void {
    if (typeof v === "number" && v >= 0 && Number.isSafeInteger(v)) {
      this.varint(v);
      return;
    }
    let u = BigInt.asUintN(64, BigInt(v));
    this.ensure(10);
    while (u >= 0x80n) {
      this.buf[this.pos++] = Number(u & 0x7fn) | 0x80;
      u >>= 7n;
    }
    this.buf[this.pos++] = Number(u);
  }

  double(v: number): void {
    this.ensure(8);
    this.buf.writeDoubleLE(v, this.pos);
    this.pos += 8;
  }

  /** Length-prefixed bytes. */
  bytes(b: Uint8Array): void {
    this.varint(b.length);
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** Length-prefixed UTF-8 (lone surrogates become U+FFFD, as TextEncoder writes them). */
  string(s: string): void {
    const n = s.length;
    if (n <= 42) {
      // At most 3 bytes a UTF-16 unit: the length fits one byte.
      this.ensure(1 + n * 3);
      const buf = this.buf;
      const start = this.pos;
      let p = start + 1;
      for (let i = 0; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) {
          const written = buf.write(s, start + 1, "utf8");
          buf[start] = written;
          this.pos = start + 1 + written;
          return;
        }
        buf[p++] = c;
      }
      buf[start] = n;
      this.pos = p;
      return;
    }
    const len = Buffer.byteLength(s, "utf8");
    this.varint(len);
    this.ensure(len);
    this.pos += this.buf.write(s, this.pos, len, len === n ? "latin1" : "utf8");
  }

  /** A string of ASCII characters, no length. */
  ascii(s: string): void {
    this.ensure(s.length);
    for (let i = 0; i < s.length; i++) this.buf[this.pos++] = s.charCodeAt(i);
  }

  /** UTF-8 of a string, no length. */
  utf8(s: string): void {
    this.ensure(s.length * 3);
    this.pos += this.buf.write(s, this.pos, "utf8");
  }

  /** Reserves a one-byte length; returns its position for `end`. */
  begin(): number {
    this.ensure(1);
    return this.pos++;
  }

  /** Writes the length of what follows `start`, moving those bytes if it needs more than one byte. */
  end(start: number): void {
    const len = this.pos - start - 1;
    if (len < 0x80) {
      this.buf[start] = len;
      return;
    }
    const size = varintSize(len);
    this.ensure(size - 1);
    this.buf.copyWithin(start + size, start + 1, this.pos);
    this.pos += size - 1;
    let n = len;
    let p = start;
    while (n >= 0x80) {
      this.buf[p++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buf[p] = n;
  }

  /** A copy of the bytes written. */
  finish(): Uint8Array {
    return new Uint8Array(this.buf.subarray(0, this.pos));
  }
}

function tagBytes(field: number, wireType: number): number[] {
  const out: number[] = [];
  let n = field * 8 + wireType;
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
  return out;
}

/**
 * Writes the JSON text `toJSONText` (schema/values.ts) gives for `v`, straight into
 * the buffer, for plain JSON values: objects, arrays, strings, finite numbers,
 * booleans, null, bigints. Returns false (having written a part) for anything else
 * (a NUL character, which toJSONText's bigint marker could match; a toJSON method;
 * a non-finite number), and the caller writes `jsonText(v)` instead.
 */
function writeJson(w: GrowingWriter, v: unknown): boolean {
  switch (typeof v) {
    case "string":
      return writeJsonString(w, v);
    case "number":
      if (!Number.isFinite(v)) return false;
      w.ascii(String(v));
      return true;
    case "boolean":
      w.ascii(v ? "true" : "false");
      return true;
    case "bigint":
      w.ascii(v.toString());
      return true;
    case "object": {
      if (v === null) {
        w.ascii("null");
        return true;
      }
      if (Array.isArray(v)) {
        w.byte(0x5b);
        for (let i = 0; i < v.length; i++) {
          if (i > 0) w.byte(0x2c);
          const x: unknown = v[i];
          if (x === undefined || typeof x === "function" || typeof x === "symbol") w.ascii("null");
          else if (!writeJson(w, x)) return false;
        }
        w.byte(0x5d);
        return true;
      }
      const o = v as Obj;
      if (typeof o.toJSON === "function") return false;
      w.byte(0x7b);
      let first = true;
      // for…in with the own-property check: Object.keys' keys in its order, without the array.
      for (const k in o) {
        if (!hasOwn(o, k)) continue;
        const x = o[k];
        if (x === undefined || typeof x === "function" || typeof x === "symbol") continue;
        if (!first) w.byte(0x2c);
        first = false;
        if (!writeJsonString(w, k)) return false;
        w.byte(0x3a);
        if (!writeJson(w, x)) return false;
      }
      w.byte(0x7d);
      return true;
    }
    default:
      return false;
  }
}

/** A JSON string: printable ASCII written as is, anything else as JSON.stringify writes it; false on a NUL. */
function writeJsonString(w: GrowingWriter, s: string): boolean {
  const n = s.length;
  w.ensure(n + 2);
  const buf = w.buf;
  const start = w.pos;
  let p = start;
  buf[p++] = 0x22;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || c >= 0x7f) {
      if (s.includes("\0")) return false;
      w.pos = start;
      w.utf8(JSON.stringify(s));
      return true;
    }
    buf[p++] = c;
  }
  buf[p++] = 0x22;
  w.pos = p;
  return true;
}

/** JSON text of a free-form value: JSON.stringify when it needs no bigint handling. */
function jsonText(v: unknown): string {
  let s: string | undefined;
  try {
    s = JSON.stringify(v);
  } catch {
    return toJSONText(v);
  }
  if (s === undefined || s.includes("\\u0000big:")) return toJSONText(v);
  return s;
}

const digit = (s: string, i: number): number => s.charCodeAt(i) - 48;
const two = (s: string, i: number): number => {
  const a = digit(s, i);
  const b = digit(s, i + 1);
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
};

let lastTime = "";
let lastParsed = { seconds: 0, nanos: 0 };

/**
 * `parseTime` of message.ts, with a fast path for the form the platform writes
 * (`YYYY-MM-DDTHH:MM:SSZ`, year ≥ 1000, day ≤ 28, so every check of parseTime holds)
 * and the last answer remembered (objects written in the same second share it).
 */
function timeOf(s: string): { seconds: number; nanos: number } {
  if (s === lastTime) return lastParsed;
  let parsed: { seconds: number; nanos: number } | undefined;
  if (s.length === 20 && s.charCodeAt(4) === 45 && s.charCodeAt(7) === 45 && s.charCodeAt(10) === 84 && s.charCodeAt(13) === 58 && s.charCodeAt(16) === 58 && s.charCodeAt(19) === 90) {
    const hi = two(s, 0);
    const lo = two(s, 2);
    const mo = two(s, 5);
    const d = two(s, 8);
    const h = two(s, 11);
    const mi = two(s, 14);
    const se = two(s, 17);
    if (hi >= 10 && lo >= 0 && mo >= 1 && mo <= 12 && d >= 1 && d <= 28 && h >= 0 && h <= 23 && mi >= 0 && mi <= 59 && se >= 0 && se <= 59) {
      parsed = { seconds: Date.UTC(hi * 100 + lo, mo - 1, d, h, mi, se) / 1000, nanos: 0 };
    }
  }
  parsed ??= parseTime(s);
  lastTime = s;
  lastParsed = parsed;
  return parsed;
}

function expectInteger(v: unknown): number | bigint {
  if (typeof v === "bigint") return v;
  if (typeof v === "number" && Number.isInteger(v)) return v;
  return reject();
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

function scalarWriter(tag: number, scalar: Scalar): ValueWriter {
  const len = tagBytes(tag, WIRE_LEN);
  const varint = tagBytes(tag, WIRE_VARINT);
  switch (scalar) {
    case "string":
      return (w, v) => {
        w.tag(len);
        if (v === null) w.byte(0);
        else if (typeof v === "string") w.string(v);
        else reject();
      };
    case "bytes":
      return (w, v) => {
        if (v !== null && typeof v !== "string") reject();
        w.tag(len);
        w.bytes(v === null ? new Uint8Array(0) : base64Decode(v as string));
      };
    case "int32":
    case "int64":
      return (w, v) => {
        const n = v === null ? 0 : expectInteger(v);
        if (scalar === "int32" && (n < INT32_MIN || n > INT32_MAX)) reject();
        w.tag(varint);
        w.int64(n);
      };
    case "bool":
      return (w, v) => {
        if (v !== null && typeof v !== "boolean") reject();
        w.tag(varint);
        w.byte(v === true ? 1 : 0);
      };
    case "double": {
      const fixed = tagBytes(tag, WIRE_FIXED64);
      return (w, v) => {
        const n = v === null ? 0 : typeof v === "bigint" ? Number(v) : v;
        if (typeof n !== "number") reject();
        w.tag(fixed);
        w.double(n);
      };
    }
    case "time":
      return (w, v) => {
        if (v !== null && typeof v !== "string") reject();
        w.tag(len);
        if (v === null) {
          w.byte(0);
          return;
        }
        const { seconds, nanos } = timeOf(v as string);
        const s = w.begin();
        w.byte(0x08);
        w.int64(seconds);
        if (nanos !== 0) {
          w.byte(0x10);
          w.int64(nanos);
        }
        w.end(s);
      };
    case "quantity":
      return (w, v) => {
        if (v !== null && typeof v !== "string") reject();
        w.tag(len);
        const s = w.begin();
        w.byte(0x0a);
        w.string(v === null ? "0" : (v as string));
        w.end(s);
      };
    case "intOrString":
      return (w, v) => {
        if (typeof v === "string") {
          w.tag(len);
          const s = w.begin();
          w.byte(0x08);
          w.byte(1);
          w.byte(0x10);
          w.byte(0);
          w.byte(0x1a);
          w.string(v);
          w.end(s);
          return;
        }
        const n = v === null ? 0 : expectInteger(v);
        if (n < INT32_MIN || n > INT32_MAX) reject();
        w.tag(len);
        const s = w.begin();
        w.byte(0x08);
        w.byte(0);
        w.byte(0x10);
        w.int64(n);
        w.byte(0x1a);
        w.byte(0);
        w.end(s);
      };
    case "json":
    case "fieldsV1":
      return (w, v) => {
        w.tag(len);
        const s = w.begin();
        w.byte(0x0a);
        const inner = w.begin();
        const from = w.pos;
        if (!writeJson(w, v)) {
          w.pos = from;
          w.utf8(jsonText(v));
        }
        w.end(inner);
        w.end(s);
      };
  }
}

function valueWriter(tag: number, t: ValueType): ValueWriter {
  const len = tagBytes(tag, WIRE_LEN);
  switch (t.kind) {
    case "scalar":
      return scalarWriter(tag, t.scalar);
    case "message": {
      let enc: MessageEncoder | undefined;
      return (w, v) => {
        w.tag(len);
        if (v === null) {
          w.byte(0);
          return;
        }
        if (!isObject(v)) reject();
        enc ??= compileMessage(t.layout());
        const s = w.begin();
        enc.write(w, v);
        w.end(s);
      };
    }
    case "listWrapper": {
      const item = valueWriter(1, t.item);
      return (w, v) => {
        if (!Array.isArray(v)) reject();
        w.tag(len);
        const s = w.begin();
        v.forEach((x) => item(w, x));
        w.end(s);
      };
    }
    case "union": {
      let enc: MessageEncoder | undefined;
      const union = t.union;
      return (w, v) => {
        enc ??= compileMessage(t.inner());
        const inner = enc;
        w.tag(len);
        const s = w.begin();
        if (union === "schemaOrBool" && typeof v === "boolean") {
          w.byte(0x08);
          w.byte(v ? 1 : 0);
        } else if (isObject(v)) {
          if (union === "schemaOrBool") {
            w.byte(0x08);
            w.byte(1);
            w.byte(0x12);
          } else w.byte(0x0a);
          const m = w.begin();
          inner.write(w, v);
          w.end(m);
        } else if (Array.isArray(v) && union === "schemaOrArray") {
          v.forEach((item) => {
            if (!isObject(item)) reject();
            w.byte(0x12);
            const m = w.begin();
            inner.write(w, item);
            w.end(m);
          });
        } else if (Array.isArray(v) && union === "schemaOrStringArray") {
          v.forEach((item) => {
            if (typeof item !== "string") reject();
            w.byte(0x12);
            w.string(item);
          });
        } else reject();
        w.end(s);
      };
    }
  }
}

function fieldTypeWriter(tag: number, type: FieldType): ValueWriter {
  switch (type.shape) {
    case "single":
      return valueWriter(tag, type.value);
    case "list": {
      const item = valueWriter(tag, type.item);
      return (w, v) => {
        if (!Array.isArray(v)) reject();
        v.forEach((x) => item(w, x));
      };
    }
    case "map": {
      const len = tagBytes(tag, WIRE_LEN);
      const value = valueWriter(2, type.value);
      return (w, v) => {
        if (!isObject(v)) reject();
        const keys = Object.keys(v);
        if (keys.length > 1) keys.sort();
        for (const k of keys) {
          const x = v[k];
          if (x === undefined) continue;
          w.tag(len);
          const s = w.begin();
          w.byte(0x0a);
          w.string(k);
          if (x !== null) value(w, x);
          w.end(s);
        }
      };
    }
  }
}

const compiled = new WeakMap<MessageLayout, MessageEncoder>();

type Generated = (deps: readonly unknown[], has: typeof hasOwn) => MessageEncoder["write"];

/**
 * The encoder of a message layout, compiled on first use. The field loop is generated
 * as straight-line code with each property read written out (`obj["name"]`): every
 * read is its own inline-cached site, where one shared loop would make every read a
 * megamorphic lookup. Property names enter the code only as JSON string literals; the
 * value writers are closures passed in.
 */
export function compileMessage(layout: MessageLayout): MessageEncoder {
  const known = compiled.get(layout);
  if (known) return known;
  const enc: MessageEncoder = { write: () => undefined };
  compiled.set(layout, enc);
  const deps: unknown[] = [];
  const dep = (x: unknown): string => `d[${deps.push(x) - 1}]`;
  const lines = layout.fields.map((f) => {
    if (f.embed) return `w.tag(${dep(tagBytes(f.tag, WIRE_LEN))}); s = w.begin(); ${dep(compileMessage(f.embed))}.write(w, obj); w.end(s);`;
    const key = JSON.stringify(f.name);
    return `v = obj[${key}]; if (v !== undefined && v !== null && has(obj, ${key})) ${dep(fieldTypeWriter(f.tag, f.type))}(w, v);`;
  });
  const generate = new Function("d", "has", `return function write(w, obj) {\n  let v;\n  let s;\n  ${lines.join("\n  ")}\n};`) as Generated;
  enc.write = generate(deps, hasOwn);
  return enc;
}

/**
 * Writes `obj` as the fields of `layout` into `w` (no tag, no length). A value the
 * reference rejects throws the reference's error (with its path).
 */
export function writeMessageInto(w: GrowingWriter, layout: MessageLayout, obj: Obj): void {
  const start = w.pos;
  try {
    compileMessage(layout).write(w, obj);
  } catch {
    const bytes = encodeMessageReference(layout, obj);
    w.pos = start;
    w.ensure(bytes.length);
    w.buf.set(bytes, w.pos);
    w.pos += bytes.length;
  }
}

/** Writers larger than this are not kept between calls. */
const KEEP_BYTES = 1 << 23;
let spare: GrowingWriter | undefined;
let spareLarge: GrowingWriter | undefined;

/** A writer for a body being built (one kept between uses, so a large body does not grow a new buffer each time); give it back with `releaseWriter`. */
export function takeWriter(): GrowingWriter {
  const w = spareLarge ?? new GrowingWriter(1 << 16);
  spareLarge = undefined;
  w.pos = 0;
  return w;
}

export function releaseWriter(w: GrowingWriter): void {
  if (w.buf.length <= KEEP_BYTES) spareLarge = w;
}

/** The message `layout` of `obj` (JSON form). Errors name the field's path (from the reference encoder). */
export function encodeMessage(layout: MessageLayout, obj: Obj, path = ""): Uint8Array {
  const w = spare ?? new GrowingWriter();
  spare = undefined;
  w.pos = 0;
  try {
    compileMessage(layout).write(w, obj);
    return w.finish();
  } catch {
    // The reference encoder throws the error with its path (or, should the two ever disagree, encodes).
    return encodeMessageReference(layout, obj, path);
  } finally {
    if (w.buf.length <= KEEP_BYTES) spare = w;
  }
}
