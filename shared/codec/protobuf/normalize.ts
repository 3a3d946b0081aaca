/**
 * The JSON form an object takes after a protobuf round trip (JSON → protobuf →
 * JSON), computed without encoding. Decoding a body the encoder wrote always
 * equals `normalizeForProtobuf` of the input. The rules:
 *
 *  1. `null` properties are dropped (they are not written).
 *  2. Empty lists and empty maps are dropped (protobuf has no empty repeated field).
 *  3. A singular string (or quantity) property holding "" is dropped: on the wire
 *     "" is the unset value of a non-pointer field, and the decoder omits it.
 *     Strings inside lists and map values are kept, "" included.
 *  4. Times become RFC 3339 in UTC (`Z`), with 6 fractional digits when the
 *     fraction is whole microseconds, 9 when it needs nanoseconds, none when zero.
 *  5. Bytes are re-encoded as canonical base64 (padding, no line breaks).
 *  6. Properties the schema does not know (or cannot place on the wire) are dropped.
 *  7. Integers beyond 2^53 stay bigints; others are numbers.
 *  Empty nested objects (`securityContext: {}`) and zero numbers/`false` are kept:
 *  their presence is written and read back.
 */
import type { KindDefinition } from "../../schema/types.ts";
import { isObject, setOwn } from "../../schema/values.ts";
import { kindLayout, type FieldType, type MessageLayout, type ValueType } from "./layout.ts";
import { base64Decode, base64Encode, formatTime, parseTime } from "./message.ts";

type Obj = Record<string, unknown>;

/** The round-trip form of an object of a kind (apiVersion and kind kept as they are). */
export function normalizeForProtobuf(def: KindDefinition, obj: Obj): Obj {
  const body = normalizeMessage(kindLayout(def), obj);
  const out: Obj = {};
  if (obj.apiVersion !== undefined) out.apiVersion = obj.apiVersion;
  if (obj.kind !== undefined) out.kind = obj.kind;
  return { ...out, ...body };
}

export function normalizeMessage(layout: MessageLayout, obj: Obj): Obj {
  const collected: Obj = {};
  collect(layout, obj, collected);
  const out: Obj = {};
  for (const k of layout.order) if (Object.prototype.hasOwnProperty.call(collected, k)) setOwn(out, k, collected[k]);
  return out;
}

function collect(layout: MessageLayout, obj: Obj, out: Obj): void {
  for (const f of layout.fields) {
    if (f.embed) {
      collect(f.embed, obj, out);
      continue;
    }
    if (!Object.prototype.hasOwnProperty.call(obj, f.name)) continue;
    const v = normalizeField(f.type, obj[f.name]);
    if (v !== undefined) setOwn(out, f.name, v);
  }
}

function normalizeField(t: FieldType, v: unknown): unknown {
  if (v === null || v === undefined) return undefined;
  switch (t.shape) {
    case "single":
      return normalizeValue(t.value, v, true);
    case "list":
      if (!Array.isArray(v) || v.length === 0) return undefined;
      return v.map((x) => normalizeValue(t.item, x, false));
    case "map": {
      if (!isObject(v) || Object.keys(v).length === 0) return undefined;
      const out: Obj = {};
      for (const k of Object.keys(v)) if (v[k] !== undefined) setOwn(out, k, normalizeValue(t.value, v[k], false));
      return out;
    }
  }
}

function normalizeValue(t: ValueType, v: unknown, singular: boolean): unknown {
  switch (t.kind) {
    case "message":
      return isObject(v) ? normalizeMessage(t.layout(), v) : {};
    case "listWrapper":
      return Array.isArray(v) ? v.map((x) => normalizeValue(t.item, x, false)) : [];
    case "union": {
      const inner = t.inner();
      if (isObject(v)) return normalizeMessage(inner, v);
      if (Array.isArray(v)) return t.union === "schemaOrArray" ? v.map((x) => (isObject(x) ? normalizeMessage(inner, x) : {})) : v;
      return v;
    }
    case "scalar":
      switch (t.scalar) {
        case "string":
          return singular && v === "" ? undefined : v === null ? "" : v;
        case "quantity":
          return singular && v === "" ? undefined : v === null || v === "" ? "0" : v;
        case "time": {
          if (v === null) return singular ? undefined : null;
          const { seconds, nanos } = parseTime(String(v));
          return formatTime(seconds, nanos);
        }
        case "bytes":
          return v === null ? "" : base64Encode(base64Decode(String(v)));
        case "int32":
        case "int64":
          return v === null ? 0 : typeof v === "bigint" && v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
        case "bool":
          return v === null ? false : v;
        case "double":
          return v === null ? 0 : typeof v === "bigint" ? Number(v) : v;
        case "intOrString":
          return v === null ? 0 : v;
        case "json":
        case "fieldsV1":
          return v;
      }
  }
}
