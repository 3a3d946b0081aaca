// The KV service's requests (etcdserverpb RangeRequest, PutRequest,
// DeleteRangeRequest, TxnRequest with Compare and RequestOp) read from the
// protobuf wire by hand, into the shapes of shared/etcd/wire.ts that the
// handlers take (convert.ts validates them). Unlike the generic codec, no Long
// and no decimal string is made of a 64-bit field that fits a number.
//
// Contract: decodes what any protobuf codec of rpc.proto writes. Fields absent
// from the wire are left out of the result (the handlers read an absent field
// as its zero value); int64 fields are numbers when safe, else decimal strings;
// enums are names, or numbers the .proto does not know; a oneof names its set
// member in its virtual field (`request`, `target_union`), the last one on the
// wire winning; bytes are views into the input. Unknown fields are skipped; a
// known field with the wrong wire type, truncated or malformed input throws
// ProtobufError.

import type { PbCompare, PbDeleteRangeRequest, PbPutRequest, PbRangeRequest, PbRequestOp, PbTxnRequest } from "../../../../shared/etcd/wire.ts";
import { ProtobufError } from "../../../../shared/codec/protobuf/wire.ts";
import { WIRE_LEN, WIRE_VARINT, WireIn } from "../../encoding/protobuf-in.ts";

const SORT_ORDERS = ["NONE", "ASCEND", "DESCEND"] as const;
const SORT_TARGETS = ["KEY", "VERSION", "CREATE", "MOD", "VALUE"] as const;
const COMPARE_RESULTS = ["EQUAL", "GREATER", "LESS", "NOT_EQUAL"] as const;
const COMPARE_TARGETS = ["VERSION", "CREATE", "MOD", "VALUE", "LEASE"] as const;
/** Txns nest; deeper than this on the wire is refused here (the handlers allow 32 levels). */
const MAX_NESTING = 64;

/** Field numbers of RangeRequest's int64 fields, and their names. */
const RANGE_INT64: Record<number, keyof PbRangeRequest> = {
  3: "limit",
  4: "revision",
  10: "min_mod_revision",
  11: "max_mod_revision",
  12: "min_create_revision",
  13: "max_create_revision",
};

function readRange(r: WireIn): PbRangeRequest {
  const out: PbRangeRequest = {};
  while (!r.done) {
    const { field, wireType } = r.tag();
    switch (field) {
      case 1:
        r.expect(wireType, WIRE_LEN, field);
        out.key = r.bytes();
        break;
      case 2:
        r.expect(wireType, WIRE_LEN, field);
        out.range_end = r.bytes();
        break;
      case 3:
      case 4:
      case 10:
      case 11:
      case 12:
      case 13:
        r.expect(wireType, WIRE_VARINT, field);
        (out as Record<string, unknown>)[RANGE_INT64[field]] = r.int64();
        break;
      case 5:
        r.expect(wireType, WIRE_VARINT, field);
        out.sort_order = r.enumValue(SORT_ORDERS);
        break;
      case 6:
        r.expect(wireType, WIRE_VARINT, field);
        out.sort_target = r.enumValue(SORT_TARGETS);
        break;
      case 7:
        r.expect(wireType, WIRE_VARINT, field);
        out.serializable = r.bool();
        break;
      case 8:
        r.expect(wireType, WIRE_VARINT, field);
        out.keys_only = r.bool();
        break;
      case 9:
        r.expect(wireType, WIRE_VARINT, field);
        out.count_only = r.bool();
        break;
      default:
        r.skip(wireType, field);
    }
  }
  return out;
}

function readPut(r: WireIn): PbPutRequest {
  const out: PbPutRequest = {};
  while (!r.done) {
    const { field, wireType } = r.tag();
    if (field === 1 || field === 2) {
      r.expect(wireType, WIRE_LEN, field);
      if (field === 1) out.key = r.bytes();
      else out.value = r.bytes();
    } else if (field >= 3 && field <= 6) {
      r.expect(wireType, WIRE_VARINT, field);
      if (field === 3) out.lease = r.int64();
      else if (field === 4) out.prev_kv = r.bool();
      else if (field === 5) out.ignore_value = r.bool();
      else out.ignore_lease = r.bool();
    } else r.skip(wireType, field);
  }
  return out;
}

function readDelete(r: WireIn): PbDeleteRangeRequest {
  const out: PbDeleteRangeRequest = {};
  while (!r.done) {
    const { field, wireType } = r.tag();
    if (field === 1 || field === 2) {
      r.expect(wireType, WIRE_LEN, field);
      if (field === 1) out.key = r.bytes();
      else out.range_end = r.bytes();
    } else if (field === 3) {
      r.expect(wireType, WIRE_VARINT, field);
      out.prev_kv = r.bool();
    } else r.skip(wireType, field);
  }
  return out;
}

/** Compare's target_union members by field number. */
const COMPARE_UNION: Record<number, "version" | "create_revision" | "mod_revision" | "value" | "lease"> = {
  4: "version",
  5: "create_revision",
  6: "mod_revision",
  7: "value",
  8: "lease",
};

function readCompare(r: WireIn): PbCompare {
  const out: PbCompare = {};
  while (!r.done) {
    const { field, wireType } = r.tag();
    if (field === 1 || field === 2) {
      r.expect(wireType, WIRE_VARINT, field);
      if (field === 1) out.result = r.enumValue(COMPARE_RESULTS);
      else out.target = r.enumValue(COMPARE_TARGETS);
    } else if (field === 3 || field === 64) {
      r.expect(wireType, WIRE_LEN, field);
      if (field === 3) out.key = r.bytes();
      else out.range_end = r.bytes();
    } else if (field >= 4 && field <= 8) {
      const name = COMPARE_UNION[field];
      // A later member of the oneof replaces an earlier one.
      if (out.target_union !== undefined) delete out[out.target_union as keyof PbCompare];
      out.target_union = name;
      if (name === "value") {
        r.expect(wireType, WIRE_LEN, field);
        out.value = r.bytes();
      } else {
        r.expect(wireType, WIRE_VARINT, field);
        out[name] = r.int64();
      }
    } else r.skip(wireType, field);
  }
  return out;
}

const REQUEST_OPS = ["request_range", "request_put", "request_delete_range", "request_txn"] as const;

function readRequestOp(r: WireIn, depth: number): PbRequestOp {
  const out: PbRequestOp = {};
  while (!r.done) {
    const { field, wireType } = r.tag();
    if (field < 1 || field > 4) {
      r.skip(wireType, field);
      continue;
    }
    r.expect(wireType, WIRE_LEN, field);
    const body = new WireIn(r.bytes(), r.message);
    if (out.request !== undefined) delete out[out.request];
    const name = REQUEST_OPS[field - 1];
    out.request = name;
    if (name === "request_range") out.request_range = readRange(body);
    else if (name === "request_put") out.request_put = readPut(body);
    else if (name === "request_delete_range") out.request_delete_range = readDelete(body);
    else out.request_txn = readTxn(body, depth + 1);
  }
  return out;
}

function readTxn(r: WireIn, depth: number): PbTxnRequest {
  if (depth > MAX_NESTING) throw new ProtobufError("Malformed", "txn nested too deeply", r.message);
  const compare: PbCompare[] = [];
  const success: PbRequestOp[] = [];
  const failure: PbRequestOp[] = [];
  while (!r.done) {
    const { field, wireType } = r.tag();
    if (field < 1 || field > 3) {
      r.skip(wireType, field);
      continue;
    }
    r.expect(wireType, WIRE_LEN, field);
    const body = new WireIn(r.bytes(), r.message);
    if (field === 1) compare.push(readCompare(body));
    else (field === 2 ? success : failure).push(readRequestOp(body, depth));
  }
  return { compare, success, failure };
}

export function decodeRangeRequest(buf: Uint8Array): PbRangeRequest {
  return readRange(new WireIn(buf, "RangeRequest"));
}

export function decodePutRequest(buf: Uint8Array): PbPutRequest {
  return readPut(new WireIn(buf, "PutRequest"));
}

export function decodeDeleteRangeRequest(buf: Uint8Array): PbDeleteRangeRequest {
  return readDelete(new WireIn(buf, "DeleteRangeRequest"));
}

export function decodeTxnRequest(buf: Uint8Array): PbTxnRequest {
  return readTxn(new WireIn(buf, "TxnRequest"), 0);
}
