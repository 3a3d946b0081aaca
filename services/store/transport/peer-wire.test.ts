// The hand-written codec of peer.proto's stream and snapshot messages against
// proto-loader's codec: each side decodes what the other encodes, to the same
// shapes; headroom left for a frame header does not change the message.
import * as grpc from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";
import { describe, expect, it } from "vitest";
import { PROTO_LOADER_OPTIONS, STORE_PEER_PROTO, protoPath } from "../../../shared/proto/index.ts";
import { ProtobufError } from "../../../shared/codec/protobuf/wire.ts";
import {
  decodePeerAck,
  decodePeerBatch,
  decodeSnapshotAck,
  decodeSnapshotChunk,
  encodePeerAck,
  encodePeerBatch,
  encodeSnapshotAck,
  encodeSnapshotChunk,
  type PeerAckMsg,
  type PeerBatchMsg,
  type SnapshotAckMsg,
  type SnapshotChunkMsg,
} from "./peer-wire.ts";

const service = loadSync(protoPath(STORE_PEER_PROTO), PROTO_LOADER_OPTIONS)["store.peer.v1.Peer"] as grpc.ServiceDefinition;
const generic = service.Stream as grpc.MethodDefinition<PeerBatchMsg, PeerAckMsg>;
const genericSnapshot = service.SendSnapshot as grpc.MethodDefinition<SnapshotChunkMsg, SnapshotAckMsg>;

const bytes = (...v: number[]): Buffer => Buffer.from(v);

const batches: Array<[string, PeerBatchMsg]> = [
  ["all zero (nothing on the wire)", { cluster_id: "0", from: 0, to: 0, seq: 0, messages: [] }],
  ["small ids, one message", { cluster_id: "7", from: 1, to: 2, seq: 1, messages: [bytes(1, 2, 3)] }],
  ["a 64-bit cluster id and 48-bit member ids", { cluster_id: "18446744073709551615", from: 281474976710655, to: 123456789012345, seq: 2 ** 40, messages: [bytes(9), Buffer.alloc(0), Buffer.alloc(1500, 7)] }],
  ["an unsafe 64-bit seq", { cluster_id: "9007199254740993", from: 3, to: 4, seq: "9007199254740993", messages: [bytes(0xff, 0)] }],
];

const acks: Array<[string, PeerAckMsg]> = [
  ["accepted", { seq: 16, error: "", removed_index: 0, removed_term: 0 }],
  ["refused with a removal notice", { seq: 3, error: "member 5 was removed from the cluster", removed_index: 42, removed_term: 7 }],
  ["refused, UTF-8 text", { seq: 1, error: "cluster id mismatch: ü", removed_index: 0, removed_term: 0 }],
];

/** Decoded shapes compared as strings (proto-loader gives uint64 as strings, this codec numbers when safe). */
function normalizeBatch(b: PeerBatchMsg): unknown {
  return { cluster_id: String(b.cluster_id), from: String(b.from), to: String(b.to), seq: String(b.seq), messages: b.messages.map((m) => Buffer.from(m).toString("hex")) };
}

function normalizeAck(a: PeerAckMsg): unknown {
  return { seq: String(a.seq), error: a.error, removed_index: String(a.removed_index ?? 0), removed_term: String(a.removed_term ?? 0) };
}

describe("peer wire codec", () => {
  // proto-loader writes a zero it was given (proto3 allows either); this codec leaves zeros out.
  it.each(batches)("PeerBatch %s: each codec decodes the other's bytes to the same message", (_name, batch) => {
    const ours = encodePeerBatch(batch);
    const theirs = generic.requestSerialize(batch);
    expect(normalizeBatch(decodePeerBatch(theirs))).toEqual(normalizeBatch(batch));
    expect(normalizeBatch(generic.requestDeserialize(ours))).toEqual(normalizeBatch(batch));
  });

  it.each(acks)("PeerAck %s: each codec decodes the other's bytes to the same message", (_name, ack) => {
    const ours = encodePeerAck(ack);
    expect(normalizeAck(decodePeerAck(generic.responseSerialize(ack)))).toEqual(normalizeAck(ack));
    expect(normalizeAck(generic.responseDeserialize(ours))).toEqual(normalizeAck(ack));
  });

  it("writes the same bytes as proto-loader when no field is zero", () => {
    const batch: PeerBatchMsg = { cluster_id: "18446744073709551615", from: 281474976710655, to: 9, seq: 2 ** 40, messages: [bytes(1), Buffer.alloc(300, 2)] };
    expect(encodePeerBatch(batch).toString("hex")).toBe(generic.requestSerialize(batch).toString("hex"));
    const ack: PeerAckMsg = { seq: 5, error: "refused ü", removed_index: 42, removed_term: 7 };
    expect(encodePeerAck(ack).toString("hex")).toBe(generic.responseSerialize(ack).toString("hex"));
    // A zero leaves the field out: one byte less for the tag and one for the value.
    expect(encodePeerAck({ seq: 5, error: "" }).length).toBe(2);
  });

  it("decodes uint64 fields to numbers when safe, else decimal strings", () => {
    const d = decodePeerBatch(encodePeerBatch({ cluster_id: "42", from: 5, to: 6, seq: "18446744073709551615", messages: [] }));
    expect(d).toMatchObject({ cluster_id: "42", from: 5, to: 6, seq: "18446744073709551615" });
  });

  it("skips unknown fields", () => {
    // field 9 varint 1, field 10 bytes "ab", then seq=3
    const withUnknown = Buffer.concat([bytes(0x48, 1, 0x52, 2, 0x61, 0x62), encodePeerBatch({ cluster_id: "0", from: 0, to: 0, seq: 3, messages: [] })]);
    expect(decodePeerBatch(withUnknown).seq).toBe(3);
    expect(decodePeerAck(Buffer.concat([bytes(0x48, 1), encodePeerAck({ seq: 2, error: "" })])).seq).toBe(2);
  });

  it.each([
    ["a truncated varint", bytes(0x20, 0x80)],
    ["a length past the end", bytes(0x2a, 5, 1)],
    ["seq with the bytes wire type", bytes(0x22, 1, 0)],
    ["messages with the varint wire type", bytes(0x28, 1)],
    ["a group wire type", bytes(0x0b)],
  ])("refuses %s with a ProtobufError", (_name, buf) => {
    expect(() => decodePeerBatch(buf)).toThrow(ProtobufError);
  });

  it("refuses to encode a value that is not a uint64", () => {
    expect(() => encodePeerBatch({ cluster_id: "-1", from: 0, to: 0, seq: 0, messages: [] })).toThrow(RangeError);
    expect(() => encodePeerBatch({ cluster_id: "18446744073709551616", from: 0, to: 0, seq: 0, messages: [] })).toThrow(RangeError);
  });

  it.each([
    ["the first chunk", { cluster_id: "18446744073709551615", from: 1, to: 2, metadata: bytes(1, 2, 3), offset: 0, data: Buffer.alloc(1000, 5), last: false }],
    ["a last chunk at a large offset", { cluster_id: "7", from: 3, to: 4, metadata: Buffer.alloc(0), offset: 2 ** 40, data: bytes(9), last: true }],
    ["an empty last chunk", { cluster_id: "7", from: 3, to: 4, metadata: bytes(7), offset: 0, data: Buffer.alloc(0), last: true }],
  ] as Array<[string, SnapshotChunkMsg]>)("SnapshotChunk %s: each codec decodes the other's bytes to the same message", (_name, chunk) => {
    const norm = (c: SnapshotChunkMsg): unknown => ({ ...c, cluster_id: String(c.cluster_id), from: String(c.from), to: String(c.to), offset: String(c.offset), metadata: Buffer.from(c.metadata).toString("hex"), data: Buffer.from(c.data).toString("hex") });
    expect(norm(decodeSnapshotChunk(genericSnapshot.requestSerialize(chunk)))).toEqual(norm(chunk));
    expect(norm(genericSnapshot.requestDeserialize(encodeSnapshotChunk(chunk)))).toEqual(norm(chunk));
    expect(encodeSnapshotChunk(chunk, 5).subarray(5).equals(encodeSnapshotChunk(chunk))).toBe(true);
  });

  it.each([
    ["accepted", { received: 3 * 1024 * 1024, error: "" }],
    ["refused", { received: 0, error: "chunk at offset 7, expected 0" }],
  ] as Array<[string, SnapshotAckMsg]>)("SnapshotAck %s: each codec decodes the other's bytes to the same message", (_name, ack) => {
    const norm = (a: SnapshotAckMsg): unknown => ({ received: String(a.received), error: a.error });
    expect(norm(decodeSnapshotAck(genericSnapshot.responseSerialize(ack)))).toEqual(norm(ack));
    expect(norm(genericSnapshot.responseDeserialize(encodeSnapshotAck(ack)))).toEqual(norm(ack));
  });

  it("leaves headroom before a batch and an ack without changing them", () => {
    const batch: PeerBatchMsg = { cluster_id: "7", from: 1, to: 2, seq: 3, messages: [bytes(1, 2)] };
    expect(encodePeerBatch(batch, 5).subarray(5).equals(encodePeerBatch(batch))).toBe(true);
    expect(encodePeerAck({ seq: 3, error: "x" }, 5).subarray(5).equals(encodePeerAck({ seq: 3, error: "x" }))).toBe(true);
  });
});
