// The messages of shared/proto/store/peer.proto on the protobuf wire, written
// by hand for the peer stream (frames.ts), the hot path of replication: every
// Raft message between members travels in a PeerBatch. A generic codec turned
// each uint64 into a Long and then a decimal string, field by field, on every
// batch; this one reads and writes the same bytes directly.
//
// Contract: the same wire format as any protobuf codec of peer.proto (proto3:
// zero values are left out; unknown fields are skipped; repeated `messages`
// keep their order), so members built with either codec talk to each other.
// Decoded shapes are those proto-loader gives under PROTO_LOADER_OPTIONS
// (defaults filled in): uint64 fields as numbers when they are safe integers,
// else as decimal strings; `messages` are views into the received buffer.
// Malformed input throws ProtobufError (the connection is then dropped). Each
// encoder can leave headroom bytes before the message for the frame header. The wire
// primitives are encoding/protobuf-in.ts and -out.ts: the 64-bit cluster id,
// the same decimal string on every batch, is turned into varint bytes once.

import { decodeUtf8, encodeUtf8 } from "../../../shared/codec/protobuf/wire.ts";
import { WIRE_LEN, WIRE_VARINT, WireIn } from "../encoding/protobuf-in.ts";
import { WireOut, int64FieldSize, lenFieldSize, uint64Of } from "../encoding/protobuf-out.ts";

export type U64 = string | number;

export interface PeerBatchMsg {
  cluster_id: U64;
  from: U64;
  to: U64;
  seq: U64;
  messages: Uint8Array[];
}

export interface PeerAckMsg {
  seq: U64;
  error: string;
  /** With a refusal of a removed sender: the removal's index and the receiver's term then (see peer.proto); absent or 0 otherwise. */
  removed_index?: U64;
  removed_term?: U64;
}

export interface SnapshotChunkMsg {
  cluster_id: U64;
  from: U64;
  to: U64;
  metadata: Uint8Array;
  offset: U64;
  data: Uint8Array;
  last: boolean;
}

export interface SnapshotAckMsg {
  received: U64;
  error: string;
}

export function encodePeerBatch(b: PeerBatchMsg, headroom = 0): Buffer {
  const ids = [uint64Of(b.cluster_id), uint64Of(b.from), uint64Of(b.to), uint64Of(b.seq)];
  let size = int64FieldSize(ids[0]) + int64FieldSize(ids[1]) + int64FieldSize(ids[2]) + int64FieldSize(ids[3]);
  for (const m of b.messages) size += lenFieldSize(m.byteLength);
  const w = new WireOut(size, headroom);
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

export function encodePeerAck(a: PeerAckMsg, headroom = 0): Buffer {
  const error = a.error ? encodeUtf8(a.error) : undefined;
  const seq = uint64Of(a.seq);
  const index = uint64Of(a.removed_index);
  const term = uint64Of(a.removed_term);
  const w = new WireOut(int64FieldSize(seq) + (error === undefined ? 0 : lenFieldSize(error.length)) + int64FieldSize(index) + int64FieldSize(term), headroom);
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

export function encodeSnapshotChunk(c: SnapshotChunkMsg, headroom = 0): Buffer {
  const ids = [uint64Of(c.cluster_id), uint64Of(c.from), uint64Of(c.to)];
  const offset = uint64Of(c.offset);
  const size =
    int64FieldSize(ids[0]) +
    int64FieldSize(ids[1]) +
    int64FieldSize(ids[2]) +
    (c.metadata.length > 0 ? lenFieldSize(c.metadata.length) : 0) +
    int64FieldSize(offset) +
    (c.data.length > 0 ? lenFieldSize(c.data.length) : 0) +
    (c.last ? 2 : 0);
  const w = new WireOut(size, headroom);
  for (let i = 0; i < 3; i++) w.int64Field(i + 1, ids[i]);
  w.bytesField(4, c.metadata);
  w.int64Field(5, offset);
  w.bytesField(6, c.data);
  w.boolField(7, c.last);
  return w.finish();
}

export function decodeSnapshotChunk(buf: Uint8Array): SnapshotChunkMsg {
  const out: SnapshotChunkMsg = { cluster_id: "0", from: 0, to: 0, metadata: new Uint8Array(0), offset: 0, data: new Uint8Array(0), last: false };
  const r = new WireIn(buf, "SnapshotChunk");
  while (!r.done) {
    const { field, wireType } = r.tag();
    if (field === 4 || field === 6) {
      r.expect(wireType, WIRE_LEN, field);
      if (field === 4) out.metadata = r.bytes();
      else out.data = r.bytes();
    } else if ((field >= 1 && field <= 3) || field === 5 || field === 7) {
      r.expect(wireType, WIRE_VARINT, field);
      const v = r.uint64();
      if (field === 1) out.cluster_id = String(v);
      else if (field === 2) out.from = v;
      else if (field === 3) out.to = v;
      else if (field === 5) out.offset = v;
      else out.last = v !== 0;
    } else r.skip(wireType, field);
  }
  return out;
}

export function encodeSnapshotAck(a: SnapshotAckMsg, headroom = 0): Buffer {
  const error = a.error ? encodeUtf8(a.error) : undefined;
  const received = uint64Of(a.received);
  const w = new WireOut(int64FieldSize(received) + (error === undefined ? 0 : lenFieldSize(error.length)), headroom);
  w.int64Field(1, received);
  w.bytesField(2, error);
  return w.finish();
}

export function decodeSnapshotAck(buf: Uint8Array): SnapshotAckMsg {
  const out: SnapshotAckMsg = { received: 0, error: "" };
  const r = new WireIn(buf, "SnapshotAck");
  while (!r.done) {
    const { field, wireType } = r.tag();
    if (field === 1) {
      r.expect(wireType, WIRE_VARINT, field);
      out.received = r.uint64();
    } else if (field === 2) {
      r.expect(wireType, WIRE_LEN, field);
      out.error = decodeUtf8(r.bytes());
    } else r.skip(wireType, field);
  }
  return out;
}
