/**
 * Protobuf encoding of the hot KV requests (TxnRequest and the messages inside it,
 * RangeRequest) by hand: each message's size is worked out, then its fields are
 * written into one buffer of exactly that size. No writer state, no operation list.
 *
 * Contract: the bytes are those protobufjs's generated encoder writes for the same
 * object (in field-number order; a field that is undefined or null, or holds its default
 * (0, false, empty bytes) outside a oneof, is left out; a oneof member is written
 * whenever present; int64 as a varint, negatives in ten bytes), for requests whose
 * enums are numbers (a compare's may be names), whose bytes fields are Uint8Arrays and whose int64 fields are
 * integers (numbers or decimal strings). `encodeTxn`/`encodeRange` return undefined
 * for anything else (the caller then uses another encoder).
 */
import { varintSize, WIRE_LEN, WIRE_VARINT } from "../codec/protobuf/wire.ts";
import type { Int64, PbCompare, PbDeleteRangeRequest, PbPutRequest, PbRangeRequest, PbRequestOp, PbTxnRequest } from "./wire.ts";

/** A request field that cannot be written here: the whole request goes to another encoder. */
class NotPlain extends Error {}
const NOT_PLAIN = new NotPlain();

const TWO_TO_64 = 1n << 64n;

/** An integer field's value as the varint to write: a non-negative number, or a bigint (above 2^53 or negative, two's complement). */
function varintOf(v: Int64 | boolean): number | bigint {
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "number") {
    if (!Number.isSafeInteger(v)) throw NOT_PLAIN;
    return v >= 0 ? v : TWO_TO_64 + BigInt(v);
  }
  if (!/^-?\d+$/.test(v)) throw NOT_PLAIN;
  const big = BigInt(v);
  if (big >= TWO_TO_64 || big < -(TWO_TO_64 >> 1n)) throw NOT_PLAIN;
  if (big >= 0n && big <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(big);
  return big >= 0n ? big : TWO_TO_64 + big;
}

function bigVarintSize(n: bigint): number {
  let size = 1;
  while (n >= 0x80n) {
    n >>= 7n;
    size++;
  }
  return size;
}

function valueSize(v: number | bigint): number {
  return typeof v === "number" ? varintSize(v) : bigVarintSize(v);
}

function bytesOf(v: unknown): Uint8Array | undefined {
  if (v === undefined || v === null) return undefined;
  if (!(v instanceof Uint8Array)) throw NOT_PLAIN;
  return v;
}

function enumOf(v: unknown): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v)) throw NOT_PLAIN;
  return v;
}

/** Writes into one buffer, front to back. */
class Out {
  pos = 0;
  constructor(readonly buf: Buffer) {}

  varint(n: number): void {
    const { buf } = this;
    while (n >= 0x80) {
      buf[this.pos++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    buf[this.pos++] = n;
  }

  value(v: number | bigint): void {
    if (typeof v === "number") return this.varint(v);
    while (v >= 0x80n) {
      this.buf[this.pos++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.pos++] = Number(v);
  }

  bytes(field: number, b: Uint8Array): void {
    this.varint((field << 3) | WIRE_LEN);
    this.varint(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }
}

/**
 * One message's fields in field-number order: `size` and `write` walk the same list,
 * so they cannot disagree. Values: a Uint8Array (bytes), a number or bigint (varint),
 * or a nested message (written as its own fields, length-prefixed).
 */
type FieldValue = Uint8Array | number | bigint | Fields;
interface Fields {
  numbers: number[];
  values: FieldValue[];
  /** Encoded size of these fields (worked out once). */
  size: number;
}

function fields(): Fields {
  return { numbers: [], values: [], size: -1 };
}

function add(f: Fields, field: number, value: FieldValue | undefined): void {
  if (value === undefined) return;
  f.numbers.push(field);
  f.values.push(value);
}

/** An int64, enum or bool field; a default value (0, false) is left out unless the field is a oneof member. */
function addInt(f: Fields, field: number, v: Int64 | boolean | undefined | null, oneofMember = false): void {
  if (v === undefined || v === null) return;
  const n = varintOf(v);
  if (n !== 0 || oneofMember) add(f, field, n);
}

/** A bytes field; an empty one is left out unless the field is a oneof member. */
function addBytes(f: Fields, field: number, v: unknown, oneofMember = false): void {
  const b = bytesOf(v);
  if (b !== undefined && (b.length > 0 || oneofMember)) add(f, field, b);
}

function sizeOf(f: Fields): number {
  if (f.size >= 0) return f.size;
  let size = 0;
  for (let i = 0; i < f.numbers.length; i++) {
    const v = f.values[i];
    size += varintSize(f.numbers[i] << 3);
    if (v instanceof Uint8Array) size += varintSize(v.length) + v.length;
    else if (typeof v === "number" || typeof v === "bigint") size += valueSize(v);
    else {
      const inner = sizeOf(v);
      size += varintSize(inner) + inner;
    }
  }
  f.size = size;
  return size;
}

function writeFields(out: Out, f: Fields): void {
  for (let i = 0; i < f.numbers.length; i++) {
    const v = f.values[i];
    const field = f.numbers[i];
    if (v instanceof Uint8Array) out.bytes(field, v);
    else if (typeof v === "number" || typeof v === "bigint") {
      out.varint((field << 3) | WIRE_VARINT);
      out.value(v);
    } else {
      out.varint((field << 3) | WIRE_LEN);
      out.varint(sizeOf(v));
      writeFields(out, v);
    }
  }
}

const COMPARE_RESULTS: Readonly<Record<string, number>> = { EQUAL: 0, GREATER: 1, LESS: 2, NOT_EQUAL: 3 };
const COMPARE_TARGETS: Readonly<Record<string, number>> = { VERSION: 0, CREATE: 1, MOD: 2, VALUE: 3, LEASE: 4 };

/** A compare's enum given by name or number. */
function namedEnumOf(v: unknown, names: Readonly<Record<string, number>>): number | undefined {
  if (typeof v !== "string") return enumOf(v);
  if (!Object.hasOwn(names, v)) throw NOT_PLAIN;
  return names[v];
}

function compareFields(c: PbCompare): Fields {
  const f = fields();
  const result = namedEnumOf(c.result, COMPARE_RESULTS);
  const target = namedEnumOf(c.target, COMPARE_TARGETS);
  addInt(f, 1, result);
  addInt(f, 2, target);
  addBytes(f, 3, c.key);
  // version .. lease: the target_union oneof
  addInt(f, 4, c.version, true);
  addInt(f, 5, c.create_revision, true);
  addInt(f, 6, c.mod_revision, true);
  addBytes(f, 7, c.value, true);
  addInt(f, 8, c.lease, true);
  addBytes(f, 64, c.range_end);
  return f;
}

function rangeFields(r: PbRangeRequest): Fields {
  const f = fields();
  addBytes(f, 1, r.key);
  addBytes(f, 2, r.range_end);
  addInt(f, 3, r.limit);
  addInt(f, 4, r.revision);
  addInt(f, 5, enumOf(r.sort_order));
  addInt(f, 6, enumOf(r.sort_target));
  addInt(f, 7, r.serializable);
  addInt(f, 8, r.keys_only);
  addInt(f, 9, r.count_only);
  addInt(f, 10, r.min_mod_revision);
  addInt(f, 11, r.max_mod_revision);
  addInt(f, 12, r.min_create_revision);
  addInt(f, 13, r.max_create_revision);
  return f;
}

function putFields(p: PbPutRequest): Fields {
  const f = fields();
  addBytes(f, 1, p.key);
  addBytes(f, 2, p.value);
  addInt(f, 3, p.lease);
  addInt(f, 4, p.prev_kv);
  addInt(f, 5, p.ignore_value);
  addInt(f, 6, p.ignore_lease);
  return f;
}

function deleteFields(d: PbDeleteRangeRequest): Fields {
  const f = fields();
  addBytes(f, 1, d.key);
  addBytes(f, 2, d.range_end);
  addInt(f, 3, d.prev_kv);
  return f;
}

function opFields(op: PbRequestOp): Fields {
  if (op.request_txn !== undefined && op.request_txn !== null) throw NOT_PLAIN;
  const f = fields();
  if (op.request_range !== undefined && op.request_range !== null) add(f, 1, rangeFields(op.request_range));
  if (op.request_put !== undefined && op.request_put !== null) add(f, 2, putFields(op.request_put));
  if (op.request_delete_range !== undefined && op.request_delete_range !== null) add(f, 3, deleteFields(op.request_delete_range));
  return f;
}

function encodeMessage(build: () => Fields): Uint8Array | undefined {
  let f: Fields;
  try {
    f = build();
  } catch (err) {
    if (err instanceof NotPlain) return undefined;
    throw err;
  }
  const out = new Out(Buffer.allocUnsafe(sizeOf(f)));
  writeFields(out, f);
  return out.buf;
}

/** A TxnRequest; undefined when a field is not plain (see the contract). */
export function encodeTxn(req: PbTxnRequest): Uint8Array | undefined {
  return encodeMessage(() => {
    const f = fields();
    for (const c of req.compare ?? []) add(f, 1, compareFields(c));
    for (const op of req.success ?? []) add(f, 2, opFields(op));
    for (const op of req.failure ?? []) add(f, 3, opFields(op));
    return f;
  });
}

/** A RangeRequest with enum numbers; undefined when a field is not plain. */
export function encodeRange(req: PbRangeRequest): Uint8Array | undefined {
  return encodeMessage(() => rangeFields(req));
}
