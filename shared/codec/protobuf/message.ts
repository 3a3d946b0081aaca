/**
 * Schema-driven protobuf encoding and decoding of JSON-shaped objects over the
 * layouts of layout.ts. Pure.
 *
 * Encoding writes every property present in the object (a zero value that is
 * present is written: presence can be meaningful, as for `replicas: 0` or
 * `storageClassName: ""`), skips `null`, and writes nothing for an empty list or
 * map. Inlined structs are always written, as the platform does. Fields come out
 * by ascending field number; map entries sorted by key.
 *
 * Decoding yields the JSON form: properties in schema order, integers as numbers
 * (bigints beyond 2^53), bytes as base64, times as RFC 3339 in UTC. Unknown
 * field numbers are skipped. A singular string field holding "" is omitted:
 * the platform's encoder writes every non-pointer string, so "" on the wire
 * means "unset" (its JSON output omits it and defaulting fills it). An empty
 * Time message is the zero time and is omitted too. Repeated occurrences of a
 * singular message merge (protobuf semantics); of a scalar, the last wins.
 */
import { decodeJsonStrict } from "../../schema/strict-decode.ts";
import { isObject, setOwn, toJSONText } from "../../schema/values.ts";
import type { FieldLayout, FieldType, MessageLayout, Scalar, ValueType } from "./layout.ts";
import {
  ProtobufError,
  WIRE_FIXED32,
  WIRE_FIXED64,
  WIRE_LEN,
  WIRE_VARINT,
  Reader,
  Writer,
  decodeUtf8,
  encodeUtf8,
  readDouble,
  readFields,
  toSigned32,
  toSigned64,
  type WireValue,
} from "./wire.ts";

type Obj = Record<string, unknown>;

export interface DecodeMessageOptions {
  /** Maximum nesting of messages (default 256). */
  maxDepth?: number;
}

export const DEFAULT_MAX_MESSAGE_DEPTH = 256;

// ------------------------------------------------------------------ encoding

/**
 * The reference encoder: the rules above, written plainly (a buffer per nested message).
 * Bodies are encoded by compiled.ts, which must match it byte for byte and defers to it
 * for errors (their paths).
 */
export function encodeMessageReference(layout: MessageLayout, obj: Obj, path = ""): Uint8Array {
  const w = new Writer();
  writeMessage(w, layout, obj, path);
  return w.finish();
}

function writeMessage(w: Writer, layout: MessageLayout, obj: Obj, path: string): void {
  for (const f of layout.fields) {
    if (f.embed) {
      w.tag(f.tag, WIRE_LEN).bytes(encodeMessageReference(f.embed, obj, path));
      continue;
    }
    const v = obj[f.name];
    if (v === undefined || v === null || !Object.prototype.hasOwnProperty.call(obj, f.name)) continue;
    writeField(w, f.tag, f.type, v, join(path, f.name));
  }
}

function join(path: string, name: string): string {
  return path === "" ? name : `${path}.${name}`;
}

function writeField(w: Writer, tag: number, type: FieldType, v: unknown, path: string): void {
  switch (type.shape) {
    case "single":
      writeValue(w, tag, type.value, v, path);
      return;
    case "list": {
      if (!Array.isArray(v)) throw new ProtobufError("InvalidValue", `expected a list, got ${describe(v)}`, path);
      v.forEach((item, i) => writeValue(w, tag, type.item, item, `${path}[${i}]`));
      return;
    }
    case "map": {
      if (!isObject(v)) throw new ProtobufError("InvalidValue", `expected a map, got ${describe(v)}`, path);
      for (const k of Object.keys(v).sort()) {
        if (v[k] === undefined) continue;
        const entry = new Writer(64);
        entry.tag(1, WIRE_LEN).string(k);
        if (v[k] !== null) writeValue(entry, 2, type.value, v[k], `${path}[${k}]`);
        w.tag(tag, WIRE_LEN).bytes(entry.finish());
      }
      return;
    }
  }
}

function writeValue(w: Writer, tag: number, t: ValueType, v: unknown, path: string): void {
  switch (t.kind) {
    case "scalar":
      writeScalar(w, tag, t.scalar, v, path);
      return;
    case "message": {
      if (v === null) {
        w.tag(tag, WIRE_LEN).bytes(new Uint8Array(0));
        return;
      }
      if (!isObject(v)) throw new ProtobufError("InvalidValue", `expected an object, got ${describe(v)}`, path);
      w.tag(tag, WIRE_LEN).bytes(encodeMessageReference(t.layout(), v, path));
      return;
    }
    case "listWrapper": {
      if (!Array.isArray(v)) throw new ProtobufError("InvalidValue", `expected a list, got ${describe(v)}`, path);
      const inner = new Writer(64);
      v.forEach((item, i) => writeValue(inner, 1, t.item, item, `${path}[${i}]`));
      w.tag(tag, WIRE_LEN).bytes(inner.finish());
      return;
    }
    case "union": {
      const inner = new Writer(64);
      const layout = t.inner();
      if (t.union === "schemaOrBool" && typeof v === "boolean") inner.tag(1, WIRE_VARINT).uvarint(v ? 1 : 0);
      else if (isObject(v)) {
        if (t.union === "schemaOrBool") inner.tag(1, WIRE_VARINT).uvarint(1).tag(2, WIRE_LEN).bytes(encodeMessageReference(layout, v, path));
        else inner.tag(1, WIRE_LEN).bytes(encodeMessageReference(layout, v, path));
      } else if (Array.isArray(v) && t.union === "schemaOrArray") {
        v.forEach((item, i) => {
          if (!isObject(item)) throw new ProtobufError("InvalidValue", `expected an object, got ${describe(item)}`, `${path}[${i}]`);
          inner.tag(2, WIRE_LEN).bytes(encodeMessageReference(layout, item, `${path}[${i}]`));
        });
      } else if (Array.isArray(v) && t.union === "schemaOrStringArray") {
        v.forEach((item, i) => {
          if (typeof item !== "string") throw new ProtobufError("InvalidValue", `expected a string, got ${describe(item)}`, `${path}[${i}]`);
          inner.tag(2, WIRE_LEN).string(item);
        });
      } else throw new ProtobufError("InvalidValue", `unexpected ${describe(v)} for ${t.message}`, path);
      w.tag(tag, WIRE_LEN).bytes(inner.finish());
      return;
    }
  }
}

function writeScalar(w: Writer, tag: number, scalar: Scalar, v: unknown, path: string): void {
  switch (scalar) {
    case "string":
      w.tag(tag, WIRE_LEN).string(v === null ? "" : expectString(v, path));
      return;
    case "bytes":
      w.tag(tag, WIRE_LEN).bytes(v === null ? new Uint8Array(0) : base64Decode(expectString(v, path), path));
      return;
    case "int32":
    case "int64": {
      const n = v === null ? 0 : expectInteger(v, path);
      if (scalar === "int32" && (n < -2147483648 || n > 2147483647)) throw new ProtobufError("InvalidValue", `${String(n)} does not fit int32`, path);
      w.tag(tag, WIRE_VARINT).int64(n);
      return;
    }
    case "bool":
      if (v !== null && typeof v !== "boolean") throw new ProtobufError("InvalidValue", `expected a boolean, got ${describe(v)}`, path);
      w.tag(tag, WIRE_VARINT).uvarint(v === true ? 1 : 0);
      return;
    case "double": {
      const n = v === null ? 0 : typeof v === "bigint" ? Number(v) : v;
      if (typeof n !== "number") throw new ProtobufError("InvalidValue", `expected a number, got ${describe(v)}`, path);
      w.tag(tag, WIRE_FIXED64).double(n);
      return;
    }
    case "time": {
      const inner = new Writer(16);
      if (v !== null) {
        const { seconds, nanos } = parseTime(expectString(v, path), path);
        inner.tag(1, WIRE_VARINT).int64(seconds);
        if (nanos !== 0) inner.tag(2, WIRE_VARINT).int64(nanos);
      }
      w.tag(tag, WIRE_LEN).bytes(inner.finish());
      return;
    }
    case "quantity":
      w.tag(tag, WIRE_LEN).bytes(new Writer(16).tag(1, WIRE_LEN).string(v === null ? "0" : expectString(v, path)).finish());
      return;
    case "intOrString": {
      const inner = new Writer(16);
      if (typeof v === "string") inner.tag(1, WIRE_VARINT).uvarint(1).tag(2, WIRE_VARINT).uvarint(0).tag(3, WIRE_LEN).string(v);
      else {
        const n = v === null ? 0 : expectInteger(v, path);
        if (n < -2147483648 || n > 2147483647) throw new ProtobufError("InvalidValue", `${String(n)} does not fit int32`, path);
        inner.tag(1, WIRE_VARINT).uvarint(0).tag(2, WIRE_VARINT).int64(n).tag(3, WIRE_LEN).string("");
      }
      w.tag(tag, WIRE_LEN).bytes(inner.finish());
      return;
    }
    case "json":
    case "fieldsV1":
      w.tag(tag, WIRE_LEN).bytes(new Writer(64).tag(1, WIRE_LEN).bytes(encodeUtf8(toJSONText(v))).finish());
      return;
  }
}

function expectString(v: unknown, path: string): string {
  if (typeof v !== "string") throw new ProtobufError("InvalidValue", `expected a string, got ${describe(v)}`, path);
  return v;
}

function expectInteger(v: unknown, path: string): number | bigint {
  if (typeof v === "bigint") return v;
  if (typeof v === "number" && Number.isInteger(v)) return v;
  throw new ProtobufError("InvalidValue", `expected an integer, got ${describe(v)}`, path);
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  return typeof v === "object" ? "an object" : `${typeof v} ${JSON.stringify(typeof v === "bigint" ? String(v) : v)}`;
}

// ------------------------------------------------------------------ times

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** Seconds since the epoch and nanoseconds of an RFC 3339 timestamp. */
export function parseTime(s: string, path = ""): { seconds: number; nanos: number } {
  const m = RFC3339.exec(s);
  if (!m) throw new ProtobufError("InvalidValue", `${JSON.stringify(s)} is not an RFC 3339 timestamp`, path);
  const [, y, mo, d, h, mi, se, frac, , sign, oh, om] = m;
  const date = new Date(0);
  date.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  date.setUTCHours(Number(h), Number(mi), Number(se), 0);
  const ms = date.getTime();
  if (Number.isNaN(ms) || date.getUTCDate() !== Number(d) || Number(h) > 23 || Number(mi) > 59 || Number(se) > 60) {
    throw new ProtobufError("InvalidValue", `${JSON.stringify(s)} is not a valid time`, path);
  }
  let seconds = Math.floor(ms / 1000);
  if (sign) seconds -= (sign === "-" ? -1 : 1) * (Number(oh) * 3600 + Number(om) * 60);
  const nanos = frac ? Number(frac.padEnd(9, "0")) : 0;
  return { seconds, nanos };
}

/** RFC 3339 in UTC: seconds precision, or microseconds / nanoseconds when the fraction needs them. */
export function formatTime(seconds: number, nanos: number, path = ""): string {
  const ms = seconds * 1000;
  const d = new Date(ms);
  if (!Number.isFinite(ms) || Number.isNaN(d.getTime()) || d.getUTCFullYear() < 0 || d.getUTCFullYear() > 9999) {
    throw new ProtobufError("InvalidValue", `time of ${seconds} seconds is outside years 0000-9999`, path);
  }
  if (nanos < 0 || nanos > 999_999_999) throw new ProtobufError("InvalidValue", `nanos ${nanos} out of range`, path);
  const base = d.toISOString().slice(0, 19);
  const fraction = nanos === 0 ? "" : nanos % 1000 === 0 ? `.${String(nanos / 1000).padStart(6, "0")}` : `.${String(nanos).padStart(9, "0")}`;
  return `${base}${fraction}Z`;
}

// ------------------------------------------------------------------ base64

export function base64Decode(s: string, path = ""): Uint8Array {
  const clean = s.replace(/[\r\n]/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || (clean.length % 4 !== 0 && /=/.test(clean))) {
    throw new ProtobufError("InvalidValue", "bytes field is not valid base64", path);
  }
  return new Uint8Array(Buffer.from(clean, "base64"));
}

export function base64Encode(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("base64");
}

// ------------------------------------------------------------------ decoding

export function decodeMessage(layout: MessageLayout, bytes: Uint8Array, opts: DecodeMessageOptions = {}, path = ""): Obj {
  const out: Obj = {};
  readMessageInto(out, layout, bytes, path, 1, opts.maxDepth ?? DEFAULT_MAX_MESSAGE_DEPTH);
  return order(out, layout.order);
}

function order(obj: Obj, keys: readonly string[]): Obj {
  const out: Obj = {};
  for (const k of keys) if (Object.prototype.hasOwnProperty.call(obj, k)) setOwn(out, k, obj[k]);
  return out;
}

function readMessageInto(out: Obj, layout: MessageLayout, bytes: Uint8Array, path: string, depth: number, maxDepth: number): void {
  if (depth > maxDepth) throw new ProtobufError("TooDeep", `messages nest deeper than ${maxDepth}`, path);
  const seen = new Map<number, WireValue[]>();
  for (const { field, wire } of readFields(bytes, path)) {
    if (!layout.byTag.has(field)) continue;
    const list = seen.get(field);
    if (list) list.push(wire);
    else seen.set(field, [wire]);
  }
  for (const f of layout.fields) {
    const wires = seen.get(f.tag);
    if (!wires) continue;
    if (f.embed) {
      readMessageInto(out, f.embed, concatLen(wires, f, path), path, depth + 1, maxDepth);
      continue;
    }
    const p = join(path, f.name);
    const v = readField(f.type, wires, p, depth, maxDepth);
    if (v !== undefined) setOwn(out, f.name, v);
  }
}

function concatLen(wires: WireValue[], f: FieldLayout, path: string): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const w of wires) {
    if (w.wireType !== WIRE_LEN) throw wrongWire(f.tag, w.wireType, WIRE_LEN, path);
    parts.push(w.value);
  }
  return parts.length === 1 ? parts[0] : Buffer.concat(parts);
}

function wrongWire(tag: number, got: number, want: number, path: string): ProtobufError {
  return new ProtobufError("WrongWireType", `field ${tag} has wire type ${got}, expected ${want}`, path);
}

function readField(type: FieldType, wires: WireValue[], path: string, depth: number, maxDepth: number): unknown {
  switch (type.shape) {
    case "single": {
      const t = type.value;
      if (t.kind === "scalar" && !isLenScalar(t.scalar)) return readScalar(t.scalar, wires[wires.length - 1], path, true);
      const merged = wires.length === 1 ? wires[0] : mergeLen(wires, path);
      return readValue(t, merged, path, depth, maxDepth, true);
    }
    case "list": {
      const out: unknown[] = [];
      for (const w of wires) {
        const t = type.item;
        if (w.wireType === WIRE_LEN && t.kind === "scalar" && !isLenScalar(t.scalar)) {
          // A packed repeated scalar.
          const r = new Reader(w.value, path);
          while (!r.done) {
            const item: WireValue = t.scalar === "double" ? { wireType: WIRE_FIXED64, value: r.fixed(8) } : { wireType: WIRE_VARINT, value: r.varint() };
            out.push(readScalar(t.scalar, item, `${path}[${out.length}]`, false));
          }
          continue;
        }
        out.push(readValue(t, w, `${path}[${out.length}]`, depth, maxDepth, false) ?? zeroOf(t));
      }
      return out;
    }
    case "map": {
      const out: Obj = {};
      for (const w of wires) {
        if (w.wireType !== WIRE_LEN) throw wrongWire(0, w.wireType, WIRE_LEN, path);
        let key = "";
        let value: WireValue | undefined;
        for (const e of readFields(w.value, path)) {
          if (e.field === 1) {
            if (e.wire.wireType !== WIRE_LEN) throw wrongWire(1, e.wire.wireType, WIRE_LEN, path);
            key = decodeUtf8(e.wire.value);
          } else if (e.field === 2) value = e.wire;
        }
        const v = value === undefined ? zeroOf(type.value) : (readValue(type.value, value, `${path}[${key}]`, depth, maxDepth, false) ?? zeroOf(type.value));
        setOwn(out, key, v);
      }
      return out;
    }
  }
}

function mergeLen(wires: WireValue[], path: string): WireValue {
  const parts: Uint8Array[] = [];
  for (const w of wires) {
    if (w.wireType !== WIRE_LEN) throw new ProtobufError("WrongWireType", `wire type ${w.wireType}, expected 2`, path);
    parts.push(w.value);
  }
  return { wireType: WIRE_LEN, value: Buffer.concat(parts) };
}

function isLenScalar(s: Scalar): boolean {
  return !(s === "int32" || s === "int64" || s === "bool" || s === "double");
}

/** The JSON value of a wire field's zero value (a map entry or list item without a value). */
function zeroOf(t: ValueType): unknown {
  if (t.kind === "scalar") {
    switch (t.scalar) {
      case "int32":
      case "int64":
      case "double":
      case "intOrString":
        return 0;
      case "bool":
        return false;
      case "quantity":
        return "0";
      case "json":
      case "fieldsV1":
      case "time":
        return null;
      default:
        return "";
    }
  }
  if (t.kind === "listWrapper") return [];
  return {};
}

/** `singular`: the value of a singular property, where "" and the zero time read as unset. */
function readValue(t: ValueType, w: WireValue, path: string, depth: number, maxDepth: number, singular: boolean): unknown {
  switch (t.kind) {
    case "scalar":
      return readScalar(t.scalar, w, path, singular);
    case "message": {
      if (w.wireType !== WIRE_LEN) throw wrongWire(0, w.wireType, WIRE_LEN, path);
      const layout = t.layout();
      const out: Obj = {};
      readMessageInto(out, layout, w.value, path, depth + 1, maxDepth);
      return order(out, layout.order);
    }
    case "listWrapper": {
      if (w.wireType !== WIRE_LEN) throw wrongWire(0, w.wireType, WIRE_LEN, path);
      const items = readFields(w.value, path)
        .filter((f) => f.field === 1)
        .map((f) => f.wire);
      return items.length === 0 ? [] : readField({ shape: "list", item: t.item }, items, path, depth + 1, maxDepth);
    }
    case "union": {
      if (w.wireType !== WIRE_LEN) throw wrongWire(0, w.wireType, WIRE_LEN, path);
      if (depth + 1 > maxDepth) throw new ProtobufError("TooDeep", `messages nest deeper than ${maxDepth}`, path);
      const layout = t.inner();
      let first: WireValue | undefined;
      const seconds: WireValue[] = [];
      for (const f of readFields(w.value, path)) {
        if (f.field === 1) first = f.wire;
        else if (f.field === 2) seconds.push(f.wire);
      }
      const msg = (x: WireValue, p: string): Obj => {
        if (x.wireType !== WIRE_LEN) throw wrongWire(0, x.wireType, WIRE_LEN, p);
        const out: Obj = {};
        readMessageInto(out, layout, x.value, p, depth + 2, maxDepth);
        return order(out, layout.order);
      };
      switch (t.union) {
        case "schemaOrArray":
          if (seconds.length > 0) return seconds.map((x, i) => msg(x, `${path}[${i}]`));
          return first ? msg(first, path) : undefined;
        case "schemaOrBool":
          if (seconds.length > 0) return msg(seconds[seconds.length - 1], path);
          return first ? readScalar("bool", first, path, false) : false;
        case "schemaOrStringArray":
          if (first) return msg(first, path);
          return seconds.map((x) => {
            if (x.wireType !== WIRE_LEN) throw wrongWire(2, x.wireType, WIRE_LEN, path);
            return decodeUtf8(x.value);
          });
      }
    }
  }
}

function readScalar(s: Scalar, w: WireValue, path: string, singular: boolean): unknown {
  switch (s) {
    case "int32":
      if (w.wireType !== WIRE_VARINT) throw wrongWire(0, w.wireType, WIRE_VARINT, path);
      return toSigned32(w.value);
    case "int64":
      if (w.wireType !== WIRE_VARINT) throw wrongWire(0, w.wireType, WIRE_VARINT, path);
      return toSigned64(w.value);
    case "bool":
      if (w.wireType !== WIRE_VARINT) throw wrongWire(0, w.wireType, WIRE_VARINT, path);
      return w.value !== 0n;
    case "double": {
      if (w.wireType !== WIRE_FIXED64 && w.wireType !== WIRE_FIXED32) throw wrongWire(0, w.wireType, WIRE_FIXED64, path);
      const d = w.wireType === WIRE_FIXED64 ? readDouble(w.value) : new DataView(w.value.buffer, w.value.byteOffset, 4).getFloat32(0, true);
      if (!Number.isFinite(d)) throw new ProtobufError("InvalidValue", "a double that is not finite has no JSON form", path);
      return d;
    }
  }
  if (w.wireType !== WIRE_LEN) throw wrongWire(0, w.wireType, WIRE_LEN, path);
  const b = w.value;
  switch (s) {
    case "string": {
      const v = decodeUtf8(b);
      return singular && v === "" ? undefined : v;
    }
    case "bytes":
      return base64Encode(b);
    case "time": {
      let seconds = 0;
      let nanos = 0;
      const fields = readFields(b, path);
      if (fields.length === 0) return singular ? undefined : null;
      for (const f of fields) {
        if (f.wire.wireType !== WIRE_VARINT) throw wrongWire(f.field, f.wire.wireType, WIRE_VARINT, path);
        if (f.field === 1) {
          const v = toSigned64(f.wire.value);
          if (typeof v === "bigint") throw new ProtobufError("InvalidValue", "time seconds out of range", path);
          seconds = v;
        } else if (f.field === 2) nanos = toSigned32(f.wire.value);
      }
      return formatTime(seconds, nanos, path);
    }
    case "quantity": {
      let v = "";
      for (const f of readFields(b, path)) {
        if (f.field !== 1) continue;
        if (f.wire.wireType !== WIRE_LEN) throw wrongWire(1, f.wire.wireType, WIRE_LEN, path);
        v = decodeUtf8(f.wire.value);
      }
      return singular && v === "" ? undefined : v === "" ? "0" : v;
    }
    case "intOrString": {
      let type = 0n;
      let intVal = 0;
      let strVal = "";
      for (const f of readFields(b, path)) {
        if (f.field === 1 || f.field === 2) {
          if (f.wire.wireType !== WIRE_VARINT) throw wrongWire(f.field, f.wire.wireType, WIRE_VARINT, path);
          if (f.field === 1) type = f.wire.value;
          else intVal = toSigned32(f.wire.value);
        } else if (f.field === 3) {
          if (f.wire.wireType !== WIRE_LEN) throw wrongWire(3, f.wire.wireType, WIRE_LEN, path);
          strVal = decodeUtf8(f.wire.value);
        }
      }
      return type === 1n ? strVal : intVal;
    }
    case "json":
    case "fieldsV1": {
      let raw: Uint8Array | undefined;
      for (const f of readFields(b, path)) {
        if (f.field !== 1) continue;
        if (f.wire.wireType !== WIRE_LEN) throw wrongWire(1, f.wire.wireType, WIRE_LEN, path);
        raw = f.wire.value;
      }
      if (!raw || raw.length === 0) return singular ? undefined : null;
      return parseJsonRaw(raw, path);
    }
  }
  return undefined;
}

/** JSON held in a RawExtension/FieldsV1/JSON message. */
export function parseJsonRaw(raw: Uint8Array, path: string): unknown {
  try {
    return decodeJsonStrict(decodeUtf8(raw)).value;
  } catch (e) {
    throw new ProtobufError("InvalidValue", `raw JSON is invalid: ${e instanceof Error ? e.message : String(e)}`, path);
  }
}
