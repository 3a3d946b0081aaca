/**
 * Response decoding of the hot KV calls (Txn, Range) straight from the wire, without
 * protobufjs's message instances and its `toObject` copy (int64 through Long objects).
 *
 * Contract: `leanDecode` gives the object proto-loader's deserializer gives with
 * PROTO_LOADER_OPTIONS (wire.ts): plain objects with the same keys in the same order,
 * int64/uint64 as decimal strings, bytes as Buffers (views of `body`, as protobufjs
 * gives), defaults filled in (an absent message is null, an absent bytes field an
 * empty Buffer), the set oneof member named in `response`. Unknown fields are skipped.
 * It returns undefined for anything unusual (a known field with another wire type, a
 * group, two members of one oneof, a truncated or malformed message), and for the
 * other methods: the caller then uses proto-loader's deserializer, which decodes the
 * message or throws its own error.
 */
import type { UnaryName, UnaryResponse } from "./methods.ts";
import type { PbDeleteRangeResponse, PbHeader, PbKeyValue, PbPutResponse, PbRangeResponse, PbResponseOp, PbTxnResponse } from "./wire.ts";

/** Thrown inside the decoder when the message is not one it decodes itself. */
class NotLean extends Error {}
const NOT_LEAN = new NotLean("not decoded leanly");

/** A read position over `buf` up to `end`. */
interface Cursor {
  buf: Buffer;
  pos: number;
}

const TWO_POW_32 = 4294967296;
const VARINT = 0;
const FIXED64 = 1;
const LENGTH_DELIMITED = 2;
const FIXED32 = 5;

/** A varint of at most seven bytes (below 2^49: exact) as a number; undefined, the cursor unmoved, when it is longer. */
function shortVarint(c: Cursor, end: number): number | undefined {
  const { buf } = c;
  let pos = c.pos;
  let result = 0;
  let scale = 1;
  for (let i = 0; i < 7; i++) {
    if (pos >= end) throw NOT_LEAN;
    const b = buf[pos++];
    result += (b & 0x7f) * scale;
    if (b < 0x80) {
      c.pos = pos;
      return result;
    }
    scale *= 128;
  }
  return undefined;
}

/** A varint of eight bytes or more, read exactly (up to ten bytes, 64 bits kept). */
function wideVarint(c: Cursor, end: number): bigint {
  const { buf } = c;
  let big = 0n;
  for (let shift = 0n; shift < 70n; shift += 7n) {
    if (c.pos >= end) throw NOT_LEAN;
    const b = buf[c.pos++];
    big |= BigInt(b & 0x7f) << shift;
    if (b < 0x80) return BigInt.asUintN(64, big);
  }
  throw NOT_LEAN;
}

/** A varint as a number when below 2^49 (exact), else as a 64-bit BigInt. */
function varint(c: Cursor, end: number): number | bigint {
  return shortVarint(c, end) ?? wideVarint(c, end);
}

function int64(c: Cursor, end: number): string {
  const v = varint(c, end);
  return typeof v === "number" ? String(v) : BigInt.asIntN(64, v).toString();
}

/**
 * Decimal forms of the last few wide varints: every response header carries the same
 * cluster and member ids, which would otherwise be read as BigInts each time.
 */
const recentWide: Array<{ raw: Buffer; text: string }> = [];
const RECENT_WIDE = 8;

function uint64(c: Cursor, end: number): string {
  const short = shortVarint(c, end);
  if (short !== undefined) return String(short);
  const start = c.pos;
  let stop = start + 7;
  while (stop < end && stop < start + 10 && c.buf[stop] >= 0x80) stop++;
  const raw = c.buf.subarray(start, stop + 1);
  for (const known of recentWide) {
    if (known.raw.equals(raw)) {
      c.pos = stop + 1;
      return known.text;
    }
  }
  const text = wideVarint(c, end).toString();
  if (recentWide.length >= RECENT_WIDE) recentWide.shift();
  recentWide.push({ raw: Buffer.from(c.buf.subarray(start, c.pos)), text });
  return text;
}

/** protobufjs reads a bool as a uint32: only the low 32 bits count. */
function bool(c: Cursor, end: number): boolean {
  const v = varint(c, end);
  return typeof v === "number" ? v % TWO_POW_32 !== 0 : BigInt.asUintN(32, v) !== 0n;
}

/** The end of a length-delimited field that starts at the cursor. */
function fieldEnd(c: Cursor, end: number): number {
  const len = varint(c, end);
  if (typeof len !== "number" || len >= TWO_POW_32 || c.pos + len > end) throw NOT_LEAN;
  return c.pos + len;
}

function bytes(c: Cursor, end: number): Buffer {
  const stop = fieldEnd(c, end);
  const out = c.buf.subarray(c.pos, stop);
  c.pos = stop;
  return out;
}

/** Skips a field of an unknown number. */
function skip(c: Cursor, end: number, wireType: number): void {
  switch (wireType) {
    case VARINT:
      varint(c, end);
      return;
    case FIXED64:
      c.pos += 8;
      break;
    case LENGTH_DELIMITED:
      c.pos = fieldEnd(c, end);
      return;
    case FIXED32:
      c.pos += 4;
      break;
    default:
      throw NOT_LEAN;
  }
  if (c.pos > end) throw NOT_LEAN;
}

/** Reads the fields of a message ending at `end`, calling `field` for each (it reads the value). */
function fields(c: Cursor, end: number, field: (num: number, wireType: number) => boolean): void {
  while (c.pos < end) {
    const tag = varint(c, end);
    if (typeof tag !== "number" || tag >= TWO_POW_32) throw NOT_LEAN;
    const num = Math.floor(tag / 8);
    const wireType = tag & 7;
    if (num === 0) throw NOT_LEAN;
    if (!field(num, wireType)) skip(c, end, wireType);
  }
  if (c.pos !== end) throw NOT_LEAN;
}

function expect(wireType: number, wanted: number): void {
  if (wireType !== wanted) throw NOT_LEAN;
}

function header(c: Cursor, end: number): PbHeader {
  const h: PbHeader = { cluster_id: "0", member_id: "0", revision: "0", raft_term: "0" };
  fields(c, end, (num, wt) => {
    if (num > 4) return false;
    expect(wt, VARINT);
    if (num === 1) h.cluster_id = uint64(c, end);
    else if (num === 2) h.member_id = uint64(c, end);
    else if (num === 3) h.revision = int64(c, end);
    else h.raft_term = uint64(c, end);
    return true;
  });
  return h;
}

function keyValue(c: Cursor, end: number): PbKeyValue {
  let key: Buffer | undefined;
  let value: Buffer | undefined;
  const kv = { key: EMPTY, create_revision: "0", mod_revision: "0", version: "0", value: EMPTY, lease: "0" } as PbKeyValue;
  fields(c, end, (num, wt) => {
    if (num > 6) return false;
    if (num === 1 || num === 5) {
      expect(wt, LENGTH_DELIMITED);
      if (num === 1) key = bytes(c, end);
      else value = bytes(c, end);
      return true;
    }
    expect(wt, VARINT);
    const v = int64(c, end);
    if (num === 2) kv.create_revision = v;
    else if (num === 3) kv.mod_revision = v;
    else if (num === 4) kv.version = v;
    else kv.lease = v;
    return true;
  });
  kv.key = key ?? Buffer.alloc(0);
  kv.value = value ?? Buffer.alloc(0);
  return kv;
}

/** A nested message field: its value decoded by `read` over its own bytes. */
function nested<T>(c: Cursor, end: number, wireType: number, read: (c: Cursor, end: number) => T): T {
  expect(wireType, LENGTH_DELIMITED);
  const stop = fieldEnd(c, end);
  const out = read(c, stop);
  c.pos = stop;
  return out;
}

function rangeResponse(c: Cursor, end: number): PbRangeResponse {
  const r: PbRangeResponse = { kvs: [], header: null as unknown as PbHeader, more: false, count: "0" };
  fields(c, end, (num, wt) => {
    if (num === 1) r.header = nested(c, end, wt, header);
    else if (num === 2) r.kvs.push(nested(c, end, wt, keyValue));
    else if (num === 3) {
      expect(wt, VARINT);
      r.more = bool(c, end);
    } else if (num === 4) {
      expect(wt, VARINT);
      r.count = int64(c, end);
    } else return false;
    return true;
  });
  return r;
}

function putResponse(c: Cursor, end: number): PbPutResponse {
  const r = { header: null, prev_kv: null } as unknown as PbPutResponse;
  fields(c, end, (num, wt) => {
    if (num === 1) r.header = nested(c, end, wt, header);
    else if (num === 2) r.prev_kv = nested(c, end, wt, keyValue);
    else return false;
    return true;
  });
  return r;
}

function deleteRangeResponse(c: Cursor, end: number): PbDeleteRangeResponse {
  const r = { prev_kvs: [], header: null, deleted: "0" } as unknown as PbDeleteRangeResponse & { prev_kvs: PbKeyValue[] };
  fields(c, end, (num, wt) => {
    if (num === 1) r.header = nested(c, end, wt, header);
    else if (num === 2) {
      expect(wt, VARINT);
      r.deleted = int64(c, end);
    } else if (num === 3) r.prev_kvs.push(nested(c, end, wt, keyValue));
    else return false;
    return true;
  });
  return r;
}

const RESPONSE_MEMBERS = ["response_range", "response_put", "response_delete_range", "response_txn"] as const;
const RESPONSE_READERS: ReadonlyArray<(c: Cursor, end: number) => unknown> = [rangeResponse, putResponse, deleteRangeResponse, txnResponse];

function responseOp(c: Cursor, end: number): PbResponseOp {
  const op: Record<string, unknown> = {};
  fields(c, end, (num, wt) => {
    if (num < 1 || num > 4) return false;
    const member = RESPONSE_MEMBERS[num - 1];
    // protobufjs keeps a repeated member's last value, and two different members both: left to it.
    if (op.response !== undefined && op.response !== member) throw NOT_LEAN;
    op[member] = nested(c, end, wt, RESPONSE_READERS[num - 1]);
    op.response = member;
    return true;
  });
  return op as PbResponseOp;
}

function txnResponse(c: Cursor, end: number): PbTxnResponse {
  const r = { responses: [], header: null, succeeded: false } as unknown as PbTxnResponse;
  fields(c, end, (num, wt) => {
    if (num === 1) r.header = nested(c, end, wt, header);
    else if (num === 2) {
      expect(wt, VARINT);
      r.succeeded = bool(c, end);
    } else if (num === 3) r.responses.push(nested(c, end, wt, responseOp));
    else return false;
    return true;
  });
  return r;
}

const EMPTY = Buffer.alloc(0);

/** The response of `method` decoded from `body`, or undefined when proto-loader's deserializer must decode it. */
export function leanDecode<M extends UnaryName>(method: M, body: Buffer): UnaryResponse<M> | undefined {
  const read = method === "Txn" ? txnResponse : method === "Range" ? rangeResponse : undefined;
  if (read === undefined) return undefined;
  try {
    return read({ buf: body, pos: 0 }, body.length) as UnaryResponse<M>;
  } catch (err) {
    if (err instanceof NotLean) return undefined;
    throw err;
  }
}
