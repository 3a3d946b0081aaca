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
// Malformed input throws ProtobufError (grpc-js then fails the call). The wire
// primitives are encoding/protobuf-in.ts and -out.ts: the 64-bit cluster id,
// the same decimal string on every batch, is turned into varint bytes once.

import { decodeUtf8, encodeUtf8 } from "../../../shared/codec/protobuf/wire.ts";
import { WIRE_LEN, WIRE_VARINT, WireIn } from "../encoding/protobuf-in.ts";
import { WireOut, int64FieldSize, lenFieldSize, uint64Of } from "../encoding/protobuf-out.ts";
import type { PeerAckMsg, PeerBatchMsg } from "./grpc-proto.ts";

export function encodePeerBatch(b: PeerBatchMsg): Buffer {
  const ids = [uint64Of(b.cluster_id), uint64Of(b.from), uint64Of(b.to), uint64Of(b.seq)];
  let size = int64FieldSize(ids[0]) + int64FieldSize(ids[1]) + int64FieldSize(ids[2]) + int64FieldSize(ids[3]);
  for (const m of b.messages) size += lenFieldSize(m.byteLength);
  const w = new WireOut(size);
  for (let i = 0; i < 4; i++) w.int64Field(i + 1, ids[i]);
  // An empty message is still one entry of the repeated field.
  for (const m of b.messages) {
    w.lenPrefix(5, m.byteLength);
    w.buf.set(m, w.pos);
    w.pos += m.byteLength;
  }
  return w.finish();
}

export function decodePeerBatch(buf: Uint8Array): PeerBatchMsg {
  const out: PeerBatchMsg = { cluster_id: "0", from: 0, to: 0, seq: 0, messages: [] };
  const r = new WireIn(buf, "PeerBatch");
  while (!r.done) {
    const { field, wireType } = r.tag();
    if (field >= 1 && field <= 4) {
      r.expect(wireType, WIRE_VARINT, field);
      const v = r.uint64();
      if (field === 1) out.cluster_id = String(v);
      else if (field === 2) out.from = v;
      else if (field === 3) out.to = v;
      else out.seq = v;
    } else if (field === 5) {
      r.expect(wireType, WIRE_LEN, field);
      out.messages.push(r.bytes());
    } else r.skip(wireType, field);
  }
  return out;
}

export function encodePeerAck(a: PeerAckMsg): Buffer {
  const error = a.error ? encodeUtf8(a.error) : undefined;
  const seq = uint64Of(a.seq);
  const index = uint64Of(a.removed_index);
  const term = uint64Of(a.removed_term);
  const w = new WireOut(int64FieldSize(seq) + (error === undefined ? 0 : lenFieldSize(error.length)) + int64FieldSize(index) + int64FieldSize(term));
  w.int64Field(1, seq);
  w.bytesField(2, error);
  w.int64Field(3, index);
  w.int64Field(4, term);
  return w.finish();
}

export function decodePeerAck(buf: Uint8Array): PeerAckMsg {
  const out: Required<PeerAckMsg> = { seq: 0, error: "", removed_index: 0, removed_term: 0 };
  const r = new WireIn(buf, "PeerAck");
  while (!r.done) {
    const { field, wireType } = r.tag();
    if (field === 2) {
      r.expect(wireType, WIRE_LEN, field);
      out.error = decodeUtf8(r.bytes());
    } else if (field === 1 || field === 3 || field === 4) {
      r.expect(wireType, WIRE_VARINT, field);
      const v = r.uint64();
      if (field === 1) out.seq = v;
      else if (field === 3) out.removed_index = v;
      else out.removed_term = v;
    } else r.skip(wireType, field);
  }
  return out;
}
