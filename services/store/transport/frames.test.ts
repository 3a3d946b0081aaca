// Frames of the peer stream cut from the bytes however the network splits them.
import { describe, expect, it } from "vitest";
import { FRAME_HEADER_BYTES, FrameError, FrameKind, FrameReader, MAX_FRAME_BYTES, sealFrame } from "./frames.ts";

function frame(kind: FrameKind, payload: number[] | Buffer): Buffer {
  const buf = Buffer.alloc(FRAME_HEADER_BYTES + payload.length);
  Buffer.from(payload).copy(buf, FRAME_HEADER_BYTES);
  return sealFrame(kind, buf);
}

function readAll(chunks: Buffer[]): Array<[number, string]> {
  const r = new FrameReader();
  return chunks.flatMap((c) => r.push(c)).map((f) => [f.kind, Buffer.from(f.payload).toString("hex")]);
}

const three = Buffer.concat([frame(FrameKind.Batch, [1, 2, 3]), frame(FrameKind.Ack, [9]), frame(FrameKind.SnapshotChunk, Buffer.alloc(300, 7))]);
const expected: Array<[number, string]> = [
  [FrameKind.Batch, "010203"],
  [FrameKind.Ack, "09"],
  [FrameKind.SnapshotChunk, "07".repeat(300)],
];

describe("peer stream frames", () => {
  it("writes the length of kind and payload, then the kind", () => {
    expect(frame(FrameKind.Ack, [0xaa, 0xbb]).toString("hex")).toBe("0000000302aabb");
  });

  it.each([
    ["one chunk", [three]],
    ["byte by byte", [...three].map((b) => Buffer.from([b]))],
    ["split inside a header", [three.subarray(0, 2), three.subarray(2, 9), three.subarray(9)]],
    ["split inside the large payload", [three.subarray(0, 20), three.subarray(20, 120), three.subarray(120, 200), three.subarray(200)]],
  ])("reads three frames from %s", (_name, chunks) => {
    expect(readAll(chunks)).toEqual(expected);
  });

  it("holds an incomplete frame until its last byte", () => {
    const r = new FrameReader();
    const f = frame(FrameKind.Batch, Buffer.alloc(10_000, 1));
    expect(r.push(f.subarray(0, 5000))).toEqual([]);
    expect(r.buffered).toBe(5000);
    expect(r.push(f.subarray(5000, f.length - 1))).toEqual([]);
    const done = r.push(f.subarray(f.length - 1));
    expect(done).toHaveLength(1);
    expect(done[0].payload.length).toBe(10_000);
    expect(r.buffered).toBe(0);
  });

  it.each([
    ["an empty frame", [0, 0, 0, 0, 1]],
    ["a frame above the limit", [...Buffer.from((MAX_FRAME_BYTES + 1).toString(16).padStart(8, "0"), "hex"), 1]],
    ["kind 0", [0, 0, 0, 1, 0]],
    ["an unknown kind", [0, 0, 0, 1, 5]],
  ])("refuses %s", (_name, bytes) => {
    expect(() => new FrameReader().push(Buffer.from(bytes))).toThrow(FrameError);
  });
});
