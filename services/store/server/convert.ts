/**
 * Wire messages <-> MVCC requests and results. Every conversion from the wire
 * validates as etcd's API layer does (v3rpc/key.go): malformed input raises a
 * GrpcError (INVALID_ARGUMENT) here and never reaches the state machine.
 */
import type {
  Compare,
  CompareResult,
  DeleteRangeRequest,
  DeleteRangeResponse,
  KeyValue,
  KvEvent,
  PutRequest,
  PutResponse,
  RangeRequest,
  RangeResponse,
  RequestOp,
  ResponseOp,
  SortOrder,
  SortTarget,
  TxnRequest,
  TxnResponse,
} from "../mvcc/index.ts";
import { Errors, invalidArgument } from "./grpc-errors.ts";
import type {
  Int64,
  PbCompare,
  PbDeleteRangeRequest,
  PbDeleteRangeResponse,
  PbEvent,
  PbKeyValue,
  PbPutRequest,
  PbPutResponse,
  PbRangeRequest,
  PbRangeResponse,
  PbRequestOp,
  PbResponseOp,
  PbTxnRequest,
  PbTxnResponse,
  WireEnum,
} from "../../../shared/etcd/wire.ts";

const EMPTY = new Uint8Array(0);
const MIN_INT64 = -(1n << 63n);
const MAX_INT64 = (1n << 63n) - 1n;

/** An int64 field as a JS number; values beyond 2^53 are refused rather than rounded. */
export function num(v: Int64 | undefined, field: string): number {
  if (v === undefined || v === "") return 0;
  const n = typeof v === "number" ? v : Number(v);
  if (!Number.isSafeInteger(n)) throw invalidArgument(`${field} ${String(v)} is out of range`);
  return n;
}

/** A lease id (any int64) as a bigint. */
export function leaseId(v: Int64 | undefined): bigint {
  if (v === undefined || v === "") return 0n;
  let b: bigint;
  try {
    b = BigInt(v);
  } catch {
    throw invalidArgument(`bad lease id ${String(v)}`);
  }
  if (b < MIN_INT64 || b > MAX_INT64) throw invalidArgument(`bad lease id ${String(v)}`);
  return b;
}

function bytes(v: Uint8Array | undefined): Uint8Array {
  return v ?? EMPTY;
}

function optionalEnd(v: Uint8Array | undefined): Uint8Array | undefined {
  return v === undefined || v.length === 0 ? undefined : v;
}

function enumValue<T extends string>(v: WireEnum | undefined, values: readonly T[], what: string): T {
  const name = v ?? values[0];
  if (typeof name === "string" && (values as readonly string[]).includes(name)) return name as T;
  throw invalidArgument(`unknown ${what} ${String(name)}`);
}

const SORT_ORDERS: readonly SortOrder[] = ["NONE", "ASCEND", "DESCEND"];
const SORT_TARGETS: readonly SortTarget[] = ["KEY", "VERSION", "CREATE", "MOD", "VALUE"];
const COMPARE_RESULTS: readonly CompareResult[] = ["EQUAL", "GREATER", "LESS", "NOT_EQUAL"];
const COMPARE_TARGETS = ["VERSION", "CREATE", "MOD", "VALUE", "LEASE"] as const;

export function rangeRequest(r: PbRangeRequest): RangeRequest {
  if (bytes(r.key).length === 0) throw Errors.emptyKey();
  const limit = num(r.limit, "limit");
  if (limit < 0) throw invalidArgument("negative limit");
  return {
    key: bytes(r.key),
    rangeEnd: optionalEnd(r.range_end),
    limit,
    revision: num(r.revision, "revision"),
    sortOrder: enumValue(r.sort_order, SORT_ORDERS, "sort order"),
    sortTarget: enumValue(r.sort_target, SORT_TARGETS, "sort target"),
    keysOnly: r.keys_only === true,
    countOnly: r.count_only === true,
    minModRevision: num(r.min_mod_revision, "min_mod_revision"),
    maxModRevision: num(r.max_mod_revision, "max_mod_revision"),
    minCreateRevision: num(r.min_create_revision, "min_create_revision"),
    maxCreateRevision: num(r.max_create_revision, "max_create_revision"),
  };
}

export function putRequest(r: PbPutRequest): PutRequest {
  if (bytes(r.key).length === 0) throw Errors.emptyKey();
  if (r.ignore_value === true && bytes(r.value).length > 0) throw Errors.valueProvided();
  const lease = leaseId(r.lease);
  if (r.ignore_lease === true && lease !== 0n) throw Errors.leaseProvided();
  return { key: bytes(r.key), value: bytes(r.value), lease, prevKv: r.prev_kv === true, ignoreValue: r.ignore_value === true, ignoreLease: r.ignore_lease === true };
}

export function deleteRequest(r: PbDeleteRangeRequest): DeleteRangeRequest {
  if (bytes(r.key).length === 0) throw Errors.emptyKey();
  return { key: bytes(r.key), rangeEnd: optionalEnd(r.range_end), prevKv: r.prev_kv === true };
}

export function compare(c: PbCompare): Compare {
  if (bytes(c.key).length === 0) throw Errors.emptyKey();
  const result = enumValue(c.result, COMPARE_RESULTS, "compare result");
  const target = enumValue(c.target, COMPARE_TARGETS, "compare target");
  // One literal per target, not a spread of a common part (see withOwn in shared/schema/values.ts).
  const key = bytes(c.key);
  const rangeEnd = optionalEnd(c.range_end);
  switch (target) {
    case "VERSION":
      return { key, rangeEnd, result, target, version: num(c.version, "version") };
    case "CREATE":
      return { key, rangeEnd, result, target, createRevision: num(c.create_revision, "create_revision") };
    case "MOD":
      return { key, rangeEnd, result, target, modRevision: num(c.mod_revision, "mod_revision") };
    case "VALUE":
      return { key, rangeEnd, result, target, value: bytes(c.value) };
    case "LEASE":
      return { key, rangeEnd, result, target, lease: leaseId(c.lease) };
  }
}

export interface TxnLimits {
  maxTxnOps: number;
}

function requestOp(op: PbRequestOp, limits: TxnLimits, depth: number): RequestOp {
  switch (op.request) {
    case "request_range":
      if (op.request_range === undefined) break;
      return { type: "range", request: rangeRequest(op.request_range) };
    case "request_put":
      if (op.request_put === undefined) break;
      return { type: "put", request: putRequest(op.request_put) };
    case "request_delete_range":
      if (op.request_delete_range === undefined) break;
      return { type: "deleteRange", request: deleteRequest(op.request_delete_range) };
    case "request_txn":
      if (op.request_txn === undefined) break;
      return { type: "txn", request: txnRequest(op.request_txn, limits, depth + 1) };
  }
  throw invalidArgument("txn op without a request");
}

/** A Txn with etcd's checks: op count per branch, nesting depth, duplicate writes. */
export function txnRequest(t: PbTxnRequest, limits: TxnLimits, depth = 0): TxnRequest {
  if (depth > 32) throw invalidArgument("txn nested too deeply");
  const nCompare = (t.compare ?? []).length;
  const nSuccess = (t.success ?? []).length;
  const nFailure = (t.failure ?? []).length;
  if (nCompare > limits.maxTxnOps || nSuccess > limits.maxTxnOps || nFailure > limits.maxTxnOps) throw Errors.tooManyOps();
  const req: TxnRequest = {
    compare: (t.compare ?? []).map(compare),
    success: (t.success ?? []).map((op) => requestOp(op, limits, depth)),
    failure: (t.failure ?? []).map((op) => requestOp(op, limits, depth)),
  };
  checkDuplicates(req.success ?? []);
  checkDuplicates(req.failure ?? []);
  return req;
}

/** etcd refuses a branch that puts one key twice or puts a key it also deletes. */
function checkDuplicates(ops: readonly RequestOp[]): void {
  const puts = new Set<string>();
  const deletes: DeleteRangeRequest[] = [];
  for (const op of ops) {
    if (op.type === "put") {
      const k = Buffer.from(op.request.key).toString("latin1");
      if (puts.has(k)) throw Errors.duplicateKey();
      puts.add(k);
    } else if (op.type === "deleteRange") deletes.push(op.request);
  }
  for (const d of deletes) {
    const start = Buffer.from(d.key).toString("latin1");
    const end = d.rangeEnd === undefined ? undefined : Buffer.from(d.rangeEnd).toString("latin1");
    for (const k of puts) {
      const inside = end === undefined ? k === start : k >= start && (end === "\0" || k < end);
      if (inside) throw Errors.duplicateKey();
    }
  }
}

/** Whether a txn (with nested txns) only reads: then it can be served without the log. */
export function txnIsReadOnly(t: TxnRequest): boolean {
  const ops = [...(t.success ?? []), ...(t.failure ?? [])];
  return ops.every((op) => op.type === "range" || (op.type === "txn" && txnIsReadOnly(op.request)));
}

// ---- results to the wire --------------------------------------------------

export function pbKv(kv: KeyValue): PbKeyValue {
  return {
    key: kv.key,
    create_revision: kv.createRevision,
    mod_revision: kv.modRevision,
    version: kv.version,
    value: kv.value,
    lease: kv.lease === 0n ? "0" : kv.lease.toString(),
  };
}

export function pbEvent(e: KvEvent, withPrev: boolean): PbEvent {
  const out: PbEvent = { type: e.type, kv: pbKv(e.kv) };
  if (withPrev && e.prevKv !== undefined) out.prev_kv = pbKv(e.prevKv);
  return out;
}

export function pbRange(r: RangeResponse): PbRangeResponse {
  return { kvs: r.kvs.map(pbKv), more: r.more, count: r.count };
}

export function pbPut(r: PutResponse): PbPutResponse {
  return r.prevKv === undefined ? {} : { prev_kv: pbKv(r.prevKv) };
}

export function pbDelete(r: DeleteRangeResponse): PbDeleteRangeResponse {
  return { deleted: r.deleted, prev_kvs: r.prevKvs.map(pbKv) };
}

/** Nested responses carry a header too (etcd fills it on each). */
export function pbTxn(r: TxnResponse, header: PbRangeResponse["header"]): PbTxnResponse {
  return { header, succeeded: r.succeeded, responses: r.responses.map((op) => pbResponseOp(op, header)) };
}

function pbResponseOp(op: ResponseOp, header: PbRangeResponse["header"]): PbResponseOp {
  switch (op.type) {
    case "range":
      return { response_range: { header, ...pbRange(op.response) } };
    case "put":
      return { response_put: { header, ...pbPut(op.response) } };
    case "deleteRange":
      return { response_delete_range: { header, ...pbDelete(op.response) } };
    case "txn":
      return { response_txn: pbTxn(op.response, header) };
  }
}
