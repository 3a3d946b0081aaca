import { BinaryReader, BinaryWriter, DecodeError } from "./binary.ts";
import { EMPTY_BYTES } from "./keys.ts";
import type {
  AlarmRequest,
  AlarmType,
  Compare,
  CompareResult,
  CompareTarget,
  DeleteRangeRequest,
  PutRequest,
  RangeRequest,
  RequestOp,
  SortOrder,
  SortTarget,
  StoreRequest,
  TxnRequest,
} from "./types.ts";

/**
 * Binary encoding of a StoreRequest: the data of one Raft log entry.
 *
 *   u8(1) format version, u8 request tag, body
 *   tags: 1 put, 2 deleteRange, 3 txn, 4 compact, 5 leaseGrant, 6 leaseRevoke, 7 alarm
 *   put:         bytes key, bytes value, i64 lease, u8 flags (1 prevKv, 2 ignoreValue, 4 ignoreLease)
 *   deleteRange: bytes key, bytes rangeEnd, u8 flags (1 prevKv)
 *   range:       bytes key, bytes rangeEnd, svarint limit, svarint revision, u8 sortOrder,
 *                u8 sortTarget, u8 flags (1 keysOnly, 2 countOnly), svarint min/max mod, min/max create
 *   txn:         uvarint n, n × compare, uvarint n, n × op, uvarint n, n × op
 *   compare:     bytes key, bytes rangeEnd, u8 result, u8 target, target value
 *                (svarint for VERSION/CREATE/MOD, bytes for VALUE, i64 for LEASE)
 *   op:          u8 tag (1 range, 2 put, 3 deleteRange, 4 txn), body
 *   compact:     svarint revision;  leaseGrant: i64 id, svarint ttl;  leaseRevoke: i64 id
 *   alarm:       u8 action (1 activate, 2 deactivate), i64 member id, u8 alarm (1 NOSPACE, 2 CORRUPT)
 *
 * Absent optional fields are encoded as their zero value, so decode(encode(r)) has
 * every field present; two requests that etcd would treat the same encode the same.
 * Decoded byte fields are copies, never views into the entry buffer.
 */

const FORMAT_VERSION = 1;
const SORT_ORDERS: readonly SortOrder[] = ["NONE", "ASCEND", "DESCEND"];
const SORT_TARGETS: readonly SortTarget[] = ["KEY", "VERSION", "CREATE", "MOD", "VALUE"];
const COMPARE_RESULTS: readonly CompareResult[] = ["EQUAL", "GREATER", "LESS", "NOT_EQUAL"];
const COMPARE_TARGETS: readonly CompareTarget[] = ["VERSION", "CREATE", "MOD", "VALUE", "LEASE"];
const REQUEST_TAGS: readonly StoreRequest["type"][] = ["put", "deleteRange", "txn", "compact", "leaseGrant", "leaseRevoke", "alarm"];
const ALARM_ACTIONS: readonly AlarmRequest["action"][] = ["activate", "deactivate"];
const ALARM_TYPES: readonly AlarmType[] = ["NOSPACE", "CORRUPT"];
const OP_TAGS: readonly RequestOp["type"][] = ["range", "put", "deleteRange", "txn"];
/** Nesting bound for txns in a log entry (etcd bounds ops per txn at the API). */
const MAX_TXN_DEPTH = 64;

function flags(...bits: (boolean | undefined)[]): number {
  return bits.reduce<number>((acc, b, i) => (b === true ? acc | (1 << i) : acc), 0);
}

function enumIndex<T>(values: readonly T[], v: T): number {
  const i = values.indexOf(v);
  if (i < 0) throw new RangeError(`unknown enum value ${String(v)}`);
  return i;
}

function enumAt<T>(values: readonly T[], i: number, what: string): T {
  if (i < 0 || i >= values.length) throw new DecodeError(`bad ${what} ${i}`);
  return values[i];
}

/** Bytes of a write op's keys and values plus a little per field: a writer of this size rarely grows. */
function opSizeHint(op: RequestOp): number {
  switch (op.type) {
    case "put":
      return 32 + op.request.key.length + (op.request.value?.length ?? 0);
    case "deleteRange":
      return 16 + op.request.key.length + (op.request.rangeEnd?.length ?? 0);
    case "range":
      return 64 + op.request.key.length + (op.request.rangeEnd?.length ?? 0);
    case "txn":
      return txnSizeHint(op.request);
  }
}

function txnSizeHint(t: TxnRequest): number {
  let n = 16;
  for (const c of t.compare ?? []) n += 24 + c.key.length + (c.rangeEnd?.length ?? 0) + (c.target === "VALUE" ? c.value.length : 0);
  for (const op of t.success ?? []) n += opSizeHint(op);
  for (const op of t.failure ?? []) n += opSizeHint(op);
  return n;
}

function requestSizeHint(req: StoreRequest): number {
  switch (req.type) {
    case "put":
    case "deleteRange":
      return 2 + opSizeHint(req);
    case "txn":
      return 2 + txnSizeHint(req.request);
    default:
      return 64;
  }
}

export function encodeRequest(req: StoreRequest): Uint8Array {
  const w = new BinaryWriter(requestSizeHint(req));
  w.u8(FORMAT_VERSION).u8(enumIndex(REQUEST_TAGS, req.type) + 1);
  switch (req.type) {
    case "put":
      writePut(w, req.request);
      break;
    case "deleteRange":
      writeDelete(w, req.request);
      break;
    case "txn":
      writeTxn(w, req.request);
      break;
    case "compact":
      w.svarint(req.request.revision);
      break;
    case "leaseGrant":
      w.i64(req.request.id).svarint(req.request.ttl);
      break;
    case "leaseRevoke":
      w.i64(req.request.id);
      break;
    case "alarm":
      w.u8(enumIndex(ALARM_ACTIONS, req.request.action) + 1)
        .i64(BigInt.asIntN(64, req.request.memberId))
        .u8(enumIndex(ALARM_TYPES, req.request.alarm) + 1);
      break;
  }
  return w.finish();
}

function writePut(w: BinaryWriter, p: PutRequest): void {
  w.bytes(p.key)
    .bytes(p.value ?? EMPTY_BYTES)
    .i64(p.lease ?? 0n)
    .u8(flags(p.prevKv, p.ignoreValue, p.ignoreLease));
}

function writeDelete(w: BinaryWriter, d: DeleteRangeRequest): void {
  w.bytes(d.key)
    .bytes(d.rangeEnd ?? EMPTY_BYTES)
    .u8(flags(d.prevKv));
}

function writeRange(w: BinaryWriter, r: RangeRequest): void {
  w.bytes(r.key)
    .bytes(r.rangeEnd ?? EMPTY_BYTES)
    .svarint(r.limit ?? 0)
    .svarint(r.revision ?? 0)
    .u8(enumIndex(SORT_ORDERS, r.sortOrder ?? "NONE"))
    .u8(enumIndex(SORT_TARGETS, r.sortTarget ?? "KEY"))
    .u8(flags(r.keysOnly, r.countOnly))
    .svarint(r.minModRevision ?? 0)
    .svarint(r.maxModRevision ?? 0)
    .svarint(r.minCreateRevision ?? 0)
    .svarint(r.maxCreateRevision ?? 0);
}

function writeCompare(w: BinaryWriter, c: Compare): void {
  w.bytes(c.key)
    .bytes(c.rangeEnd ?? EMPTY_BYTES)
    .u8(enumIndex(COMPARE_RESULTS, c.result))
    .u8(enumIndex(COMPARE_TARGETS, c.target));
  switch (c.target) {
    case "VERSION":
      w.svarint(c.version);
      break;
    case "CREATE":
      w.svarint(c.createRevision);
      break;
    case "MOD":
      w.svarint(c.modRevision);
      break;
    case "VALUE":
      w.bytes(c.value);
      break;
    case "LEASE":
      w.i64(c.lease);
      break;
  }
}

function writeOp(w: BinaryWriter, op: RequestOp): void {
  w.u8(enumIndex(OP_TAGS, op.type) + 1);
  switch (op.type) {
    case "range":
      writeRange(w, op.request);
      break;
    case "put":
      writePut(w, op.request);
      break;
    case "deleteRange":
      writeDelete(w, op.request);
      break;
    case "txn":
      writeTxn(w, op.request);
      break;
  }
}

function writeTxn(w: BinaryWriter, t: TxnRequest): void {
  const compare = t.compare ?? [];
  const success = t.success ?? [];
  const failure = t.failure ?? [];
  w.uvarint(compare.length);
  for (const c of compare) writeCompare(w, c);
  w.uvarint(success.length);
  for (const op of success) writeOp(w, op);
  w.uvarint(failure.length);
  for (const op of failure) writeOp(w, op);
}

export function decodeRequest(bytes: Uint8Array): StoreRequest {
  const r = new BinaryReader(bytes);
  const version = r.u8();
  if (version !== FORMAT_VERSION) throw new DecodeError(`unsupported request version ${version}`);
  const tag = r.u8();
  if (tag === 0) throw new DecodeError("bad request tag 0");
  const type = enumAt(REQUEST_TAGS, tag - 1, "request tag");
  let req: StoreRequest;
  switch (type) {
    case "put":
      req = { type, request: readPut(r) };
      break;
    case "deleteRange":
      req = { type, request: readDelete(r) };
      break;
    case "txn":
      req = { type, request: readTxn(r, 0) };
      break;
    case "compact":
      req = { type, request: { revision: r.svarint() } };
      break;
    case "leaseGrant":
      req = { type, request: { id: r.i64(), ttl: r.svarint() } };
      break;
    case "leaseRevoke":
      req = { type, request: { id: r.i64() } };
      break;
    case "alarm": {
      const action = enumAt(ALARM_ACTIONS, r.u8() - 1, "alarm action");
      const memberId = BigInt.asUintN(64, r.i64());
      req = { type, request: { action, memberId, alarm: enumAt(ALARM_TYPES, r.u8() - 1, "alarm type") } };
      break;
    }
  }
  r.end();
  return req;
}

function bit(f: number, i: number): boolean {
  return (f & (1 << i)) !== 0;
}

function readPut(r: BinaryReader): PutRequest {
  const key = r.bytes();
  const value = r.bytes();
  const lease = r.i64();
  const f = r.u8();
  return { key, value, lease, prevKv: bit(f, 0), ignoreValue: bit(f, 1), ignoreLease: bit(f, 2) };
}

function readDelete(r: BinaryReader): DeleteRangeRequest {
  const key = r.bytes();
  const rangeEnd = r.bytes();
  return { key, rangeEnd, prevKv: bit(r.u8(), 0) };
}

function readRange(r: BinaryReader): RangeRequest {
  const key = r.bytes();
  const rangeEnd = r.bytes();
  const limit = r.svarint();
  const revision = r.svarint();
  const sortOrder = enumAt(SORT_ORDERS, r.u8(), "sort order");
  const sortTarget = enumAt(SORT_TARGETS, r.u8(), "sort target");
  const f = r.u8();
  return {
    key,
    rangeEnd,
    limit,
    revision,
    sortOrder,
    sortTarget,
    keysOnly: bit(f, 0),
    countOnly: bit(f, 1),
    minModRevision: r.svarint(),
    maxModRevision: r.svarint(),
    minCreateRevision: r.svarint(),
    maxCreateRevision: r.svarint(),
  };
}

function readCompare(r: BinaryReader): Compare {
  const key = r.bytes();
  const rangeEnd = r.bytes();
  const result = enumAt(COMPARE_RESULTS, r.u8(), "compare result");
  const target = enumAt(COMPARE_TARGETS, r.u8(), "compare target");
  switch (target) {
    case "VERSION":
      return { key, rangeEnd, result, target, version: r.svarint() };
    case "CREATE":
      return { key, rangeEnd, result, target, createRevision: r.svarint() };
    case "MOD":
      return { key, rangeEnd, result, target, modRevision: r.svarint() };
    case "VALUE":
      return { key, rangeEnd, result, target, value: r.bytes() };
    case "LEASE":
      return { key, rangeEnd, result, target, lease: r.i64() };
  }
}

function readOp(r: BinaryReader, depth: number): RequestOp {
  const tag = r.u8();
  if (tag === 0) throw new DecodeError("bad op tag 0");
  const type = enumAt(OP_TAGS, tag - 1, "op tag");
  switch (type) {
    case "range":
      return { type, request: readRange(r) };
    case "put":
      return { type, request: readPut(r) };
    case "deleteRange":
      return { type, request: readDelete(r) };
    case "txn":
      return { type, request: readTxn(r, depth + 1) };
  }
}

function readTxn(r: BinaryReader, depth: number): TxnRequest {
  if (depth > MAX_TXN_DEPTH) throw new DecodeError("txn nested too deeply");
  const compare: Compare[] = [];
  for (let n = r.uvarint(); compare.length < n; ) compare.push(readCompare(r));
  const success: RequestOp[] = [];
  for (let n = r.uvarint(); success.length < n; ) success.push(readOp(r, depth));
  const failure: RequestOp[] = [];
  for (let n = r.uvarint(); failure.length < n; ) failure.push(readOp(r, depth));
  return { compare, success, failure };
}
