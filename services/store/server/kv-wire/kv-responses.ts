// The KV service's responses (etcdserverpb RangeResponse, PutResponse,
// DeleteRangeResponse, TxnResponse, with ResponseHeader and mvccpb.KeyValue)
// on the protobuf wire, written by hand: every linearizable read and every write
// of the apiserver answers with one of them. The generic codec converted each
// 64-bit field through a Long and each message through fromObject before writing;
// this one sizes the message, then writes it once into one buffer.
//
// Contract: the bytes any protobuf codec of rpc.proto writes for the same
// message, given in the shapes of shared/etcd/wire.ts (64-bit fields as numbers
// or decimal strings): proto3 zero values are left out, fields in number order,
// repeated fields in order. A value that is not a 64-bit integer throws.

import type { PbDeleteRangeResponse, PbHeader, PbKeyValue, PbPutResponse, PbRangeResponse, PbResponseOp, PbTxnResponse } from "../../../../shared/etcd/wire.ts";
import { WireOut, int64FieldSize, int64Of, lenFieldSize } from "../../encoding/protobuf-out.ts";

// ---- sizes (message bodies, without their own tag and length) -------------

function headerSize(h: PbHeader): number {
  return int64FieldSize(int64Of(h.cluster_id)) + int64FieldSize(int64Of(h.member_id)) + int64FieldSize(int64Of(h.revision)) + int64FieldSize(int64Of(h.raft_term));
}

function kvSize(kv: PbKeyValue): number {
  return (
    (kv.key.length > 0 ? lenFieldSize(kv.key.length) : 0) +
    int64FieldSize(int64Of(kv.create_revision)) +
    int64FieldSize(int64Of(kv.mod_revision)) +
    int64FieldSize(int64Of(kv.version)) +
    (kv.value.length > 0 ? lenFieldSize(kv.value.length) : 0) +
    int64FieldSize(int64Of(kv.lease))
  );
}

function optionalHeaderSize(h: PbHeader | undefined): number {
  return h === undefined ? 0 : lenFieldSize(headerSize(h));
}

function kvsSize(kvs: readonly PbKeyValue[]): number {
  let size = 0;
  for (const kv of kvs) size += lenFieldSize(kvSize(kv));
  return size;
}

function rangeSize(r: PbRangeResponse): number {
  return optionalHeaderSize(r.header) + kvsSize(r.kvs) + (r.more ? 2 : 0) + int64FieldSize(int64Of(r.count));
}

function putSize(r: PbPutResponse): number {
  return optionalHeaderSize(r.header) + (r.prev_kv === undefined ? 0 : lenFieldSize(kvSize(r.prev_kv)));
}

function deleteSize(r: PbDeleteRangeResponse): number {
  return optionalHeaderSize(r.header) + int64FieldSize(int64Of(r.deleted)) + kvsSize(r.prev_kvs);
}

/** The set member of a ResponseOp: its field number and body size. */
function responseOpBody(op: PbResponseOp): { field: number; size: number } | undefined {
  if (op.response_range !== undefined) return { field: 1, size: rangeSize(op.response_range) };
  if (op.response_put !== undefined) return { field: 2, size: putSize(op.response_put) };
  if (op.response_delete_range !== undefined) return { field: 3, size: deleteSize(op.response_delete_range) };
  if (op.response_txn !== undefined) return { field: 4, size: txnSize(op.response_txn) };
  return undefined;
}

function responseOpSize(op: PbResponseOp): number {
  const body = responseOpBody(op);
  return body === undefined ? 0 : lenFieldSize(body.size);
}

function txnSize(r: PbTxnResponse): number {
  let size = optionalHeaderSize(r.header) + (r.succeeded ? 2 : 0);
  for (const op of r.responses) size += lenFieldSize(responseOpSize(op));
  return size;
}

// ---- writing ----------------------------------------------------------------

function writeHeader(w: WireOut, field: number, h: PbHeader | undefined): void {
  if (h === undefined) return;
  const ids = [int64Of(h.cluster_id), int64Of(h.member_id), int64Of(h.revision), int64Of(h.raft_term)];
  w.lenPrefix(field, int64FieldSize(ids[0]) + int64FieldSize(ids[1]) + int64FieldSize(ids[2]) + int64FieldSize(ids[3]));
  for (let i = 0; i < 4; i++) w.int64Field(i + 1, ids[i]);
}

function writeKv(w: WireOut, field: number, kv: PbKeyValue): void {
  w.lenPrefix(field, kvSize(kv));
  w.bytesField(1, kv.key);
  w.int64Field(2, int64Of(kv.create_revision));
  w.int64Field(3, int64Of(kv.mod_revision));
  w.int64Field(4, int64Of(kv.version));
  w.bytesField(5, kv.value);
  w.int64Field(6, int64Of(kv.lease));
}

function writeRange(w: WireOut, r: PbRangeResponse): void {
  writeHeader(w, 1, r.header);
  for (const kv of r.kvs) writeKv(w, 2, kv);
  w.boolField(3, r.more);
  w.int64Field(4, int64Of(r.count));
}

function writePut(w: WireOut, r: PbPutResponse): void {
  writeHeader(w, 1, r.header);
  if (r.prev_kv !== undefined) writeKv(w, 2, r.prev_kv);
}

function writeDelete(w: WireOut, r: PbDeleteRangeResponse): void {
  writeHeader(w, 1, r.header);
  w.int64Field(2, int64Of(r.deleted));
  for (const kv of r.prev_kvs) writeKv(w, 3, kv);
}

function writeTxn(w: WireOut, r: PbTxnResponse): void {
  writeHeader(w, 1, r.header);
  w.boolField(2, r.succeeded);
  for (const op of r.responses) {
    const body = responseOpBody(op);
    w.lenPrefix(3, body === undefined ? 0 : lenFieldSize(body.size));
    if (body === undefined) continue;
    w.lenPrefix(body.field, body.size);
    if (op.response_range !== undefined) writeRange(w, op.response_range);
    else if (op.response_put !== undefined) writePut(w, op.response_put);
    else if (op.response_delete_range !== undefined) writeDelete(w, op.response_delete_range);
    else if (op.response_txn !== undefined) writeTxn(w, op.response_txn);
  }
}

function encode<T>(message: T, size: (m: T) => number, write: (w: WireOut, m: T) => void): Buffer {
  const w = new WireOut(size(message));
  write(w, message);
  return w.finish();
}

export function encodeRangeResponse(r: PbRangeResponse): Buffer {
  return encode(r, rangeSize, writeRange);
}

export function encodePutResponse(r: PbPutResponse): Buffer {
  return encode(r, putSize, writePut);
}

export function encodeDeleteRangeResponse(r: PbDeleteRangeResponse): Buffer {
  return encode(r, deleteSize, writeDelete);
}

export function encodeTxnResponse(r: PbTxnResponse): Buffer {
  return encode(r, txnSize, writeTxn);
}
