// PeerBatch and PeerAck (shared/proto/store/peer.proto) on the protobuf wire,
// written by hand for the peer stream, the hot path of replication: every Raft
// message between members travels in a PeerBatch. The generic (proto-loader)
// codec turned each uint64 into a Long and then a decimal string, field by
// field, on every batch; this one reads and writes the same bytes directly.
//
// Contract: the same wire format as any protobuf codec of peer.proto (proto3:
// zero values are left out; unknown fields are skipped; repeated `messages`
// keep their order), so members built with either codec talk to each other.
// Decoded shapes are those proto-loader gives under PROTO_LOADER_OPTIONS
// (defaults filled in): uint64 fields as numbers when they are safe integers,
// else as decimal strings; `messages` are views into the received buffer.
// Malformed input throws ProtobufError (grpc-js then fails the call).

import { ProtobufError, Reader, Writer, WIRE_LEN, WIRE_VARINT, decodeUtf8 } from "../../../shared/codec/protobuf/wire.ts";
import type { PeerAckMsg, PeerBatchMsg, U64 } from "./grpc-proto.ts";

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MAX_U64 = (1n << 64n) - 1n;

function writeU64(w: Writer, field: number, v: U64 | undefined): void {
  if (v === undefined || v === 0 || v === "0" || v === "") return;
  w.tag(field, WIRE_VARINT);
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) {
    w.uvarint(v);
    return;
  }
  const big = BigInt(v);
  if (big < 0n || big > MAX_U64) throw new RangeError(`peer wire: field ${field} is not a uint64: ${String(v)}`);
  w.int64(big);
}

function u64(v: bigint): number | string {
  return v <= MAX_SAFE ? Number(v) : v.toString();
}

function wrongType(message: string, field: number): never {
  throw new ProtobufError("WrongWireType", `${message}: field ${field} has the wrong wire type`);
}

function toBuffer(b: Uint8Array): Buffer {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

export function encodePeerBatch(b: PeerBatchMsg): Buffer {
  let size = 48;
  for (const m of b.messages) size += m.byteLength + 6;
  const w = new Writer(size);
  writeU64(w, 1, b.cluster_id);
  writeU64(w, 2, b.from);
  writeU64(w, 3, b.to);
  writeU64(w, 4, b.seq);
  for (const m of b.messages) w.tag(5, WIRE_LEN).bytes(m);
  return toBuffer(w.finish());
}

export function decodePeerBatch(buf: Uint8Array): PeerBatchMsg {
  const out: PeerBatchMsg = { cluster_id: "0", from: 0, to: 0, seq: 0, messages: [] };
  const r = new Reader(buf, "PeerBatch");
  while (!r.done) {
    const { field, wire } = r.field();
    if (field >= 1 && field <= 4) {
      if (wire.wireType !== WIRE_VARINT) wrongType("PeerBatch", field);
      if (field === 1) out.cluster_id = wire.value.toString();
      else if (field === 2) out.from = u64(wire.value);
      else if (field === 3) out.to = u64(wire.value);
      else out.seq = u64(wire.value);
    } else if (field === 5) {
      if (wire.wireType !== WIRE_LEN) wrongType("PeerBatch", field);
      out.messages.push(wire.value);
    }
  }
  return out;
}

export function encodePeerAck(a: PeerAckMsg): Buffer {
  const w = new Writer(32 + (a.error?.length ?? 0) * 3);
  writeU64(w, 1, a.seq);
  if (a.error) w.tag(2, WIRE_LEN).string(a.error);
  writeU64(w, 3, a.removed_index);
  writeU64(w, 4, a.removed_term);
  return toBuffer(w.finish());
}

export function decodePeerAck(buf: Uint8Array): PeerAckMsg {
  const out: Required<PeerAckMsg> = { seq: 0, error: "", removed_index: 0, removed_term: 0 };
  const r = new Reader(buf, "PeerAck");
  while (!r.done) {
    const { field, wire } = r.field();
    if (field === 2) {
      if (wire.wireType !== WIRE_LEN) wrongType("PeerAck", field);
      out.error = decodeUtf8(wire.value);
    } else if (field === 1 || field === 3 || field === 4) {
      if (wire.wireType !== WIRE_VARINT) wrongType("PeerAck", field);
      const v = u64(wire.value);
      if (field === 1) out.seq = v;
      else if (field === 3) out.removed_index = v;
      else out.removed_term = v;
    }
  }
  return out;
}
