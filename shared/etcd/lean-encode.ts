/**
 * Request encoding of the hot KV calls (Range, Txn) straight from the request object
 * with protobufjs's generated encoder, without proto-loader's `fromObject` (which
 * builds a message instance of every nested message first). The request keeps the
 * typed form of wire.ts (enums as names, as the in-process store reads them); the
 * enum names of a Compare are turned into their numbers on a shallow copy.
 *
 * Contract: `leanEncode` gives bytes that decode to the same message as proto-loader's
 * serializer gives (defaults may be left out: proto3 reads an absent field as its
 * default), or undefined when the request holds something only `fromObject` converts
 * (a bytes field as a base64 string, a sort order or an enum given by an unknown name,
 * a nested txn); the caller then uses proto-loader's serializer.
 */
import protobuf from "protobufjs";
import { join } from "node:path";
import { ETCD_KV_PROTO, ETCD_RPC_PROTO, PROTO_ROOT } from "../proto/index.ts";
import type { UnaryName, UnaryRequest } from "./methods.ts";
import type { PbCompare, PbRangeRequest, PbRequestOp, PbTxnRequest } from "./wire.ts";

interface LeanTypes {
  txn: protobuf.Type;
  range: protobuf.Type;
}

let types: LeanTypes | undefined;

/** The two request types, from the same .proto files proto-loader reads (loaded once, on first use). */
function leanTypes(): LeanTypes {
  if (types !== undefined) return types;
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => (target.startsWith("/") ? target : join(PROTO_ROOT, target));
  root.loadSync([ETCD_KV_PROTO, ETCD_RPC_PROTO], { keepCase: true });
  types = { txn: root.lookupType("etcdserverpb.TxnRequest"), range: root.lookupType("etcdserverpb.RangeRequest") };
  return types;
}

const COMPARE_RESULTS: Readonly<Record<string, number>> = { EQUAL: 0, GREATER: 1, LESS: 2, NOT_EQUAL: 3 };
const COMPARE_TARGETS: Readonly<Record<string, number>> = { VERSION: 0, CREATE: 1, MOD: 2, VALUE: 3, LEASE: 4 };

function isBytes(v: unknown): boolean {
  return v === undefined || v === null || v instanceof Uint8Array;
}

function enumNumber(v: string | number | undefined, names: Readonly<Record<string, number>>): number | undefined {
  if (v === undefined || typeof v === "number") return v ?? 0;
  return Object.hasOwn(names, v) ? names[v] : undefined;
}

/** A Range request the generated encoder takes as it is. */
function plainRange(r: PbRangeRequest): boolean {
  return isBytes(r.key) && isBytes(r.range_end) && typeof r.sort_order !== "string" && typeof r.sort_target !== "string";
}

function plainOp(op: PbRequestOp): boolean {
  if (op.request_txn !== undefined && op.request_txn !== null) return false;
  if (op.request_range && !plainRange(op.request_range)) return false;
  if (op.request_put && !(isBytes(op.request_put.key) && isBytes(op.request_put.value))) return false;
  if (op.request_delete_range && !(isBytes(op.request_delete_range.key) && isBytes(op.request_delete_range.range_end))) return false;
  return true;
}

/** The compare with its enums as numbers (a shallow copy), or undefined. */
function encodableCompare(c: PbCompare): PbCompare | undefined {
  const result = enumNumber(c.result, COMPARE_RESULTS);
  const target = enumNumber(c.target, COMPARE_TARGETS);
  if (result === undefined || target === undefined || !isBytes(c.key) || !isBytes(c.value) || !isBytes(c.range_end)) return undefined;
  return { ...c, result, target };
}

function encodeTxn(req: PbTxnRequest): Uint8Array | undefined {
  const compare: PbCompare[] = [];
  for (const c of req.compare ?? []) {
    const e = encodableCompare(c);
    if (e === undefined) return undefined;
    compare.push(e);
  }
  for (const op of req.success ?? []) if (!plainOp(op)) return undefined;
  for (const op of req.failure ?? []) if (!plainOp(op)) return undefined;
  return leanTypes().txn.encode({ compare, success: req.success ?? [], failure: req.failure ?? [] }).finish();
}

/** The encoded request of `method`, or undefined when proto-loader's serializer must encode it. */
export function leanEncode<M extends UnaryName>(method: M, req: UnaryRequest<M>): Uint8Array | undefined {
  if (method === "Txn") return encodeTxn(req as PbTxnRequest);
  if (method === "Range") return plainRange(req as PbRangeRequest) ? leanTypes().range.encode(req as PbRangeRequest).finish() : undefined;
  return undefined;
}
