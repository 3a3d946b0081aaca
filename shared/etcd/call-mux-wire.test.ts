import { describe, expect, it } from "vitest";
import { seededRng } from "../../test/support/seeded-rng.ts";
import { FrameReader, MuxWireError, decodeMuxAnswer, decodeMuxCall, encodeMuxAnswer, encodeMuxCall, leadingId, type Oversized } from "./call-mux-wire.ts";

const PATH = "/etcdserverpb.KV/Txn";

/** What a reader with `max` gives for `bytes` split at `cuts`: calls by id, oversized ones as "big:<id>". */
function readAll(bytes: Buffer, cuts: number[], max: number): string[] {
  const r = new FrameReader(max);
  const out: string[] = [];
  let from = 0;
  for (const at of [...cuts, bytes.length]) {
    for (const m of r.push(bytes.subarray(from, at))) {
      if (Buffer.isBuffer(m)) {
        const c = decodeMuxCall(m);
        out.push(`${c.id}:${c.method}:${c.request.length}`);
      } else out.push(`big:${leadingId((m as Oversized).head)}:${(m as Oversized).length > max}`);
    }
    from = at;
  }
  return out;
}

describe("the call multiplexer's wire", () => {
  const stream = Buffer.concat([encodeMuxCall(1, PATH, Buffer.alloc(10, 1)), encodeMuxCall(300, PATH, Buffer.alloc(5000, 2)), encodeMuxCall(2 ** 40, PATH, Buffer.alloc(0))]);
  const expected = [`1:${PATH}:10`, "big:300:true", `${2 ** 40}:${PATH}:0`];

  it("splits the same messages out of every two-chunk split, skipping an oversized one by its id", () => {
    for (let at = 0; at <= stream.length; at++) expect(readAll(stream, [at], 1000), `cut at ${at}`).toEqual(expected);
  });

  it("splits the same messages out of random chunkings", () => {
    const next = seededRng(7);
    for (let round = 0; round < 200; round++) {
      const cuts = [...new Set(Array.from({ length: 1 + Math.floor(next() * 20) }, () => Math.floor(next() * stream.length)))].sort((a, b) => a - b);
      expect(readAll(stream, cuts, 1000)).toEqual(expected);
    }
  });

  it("round-trips answers, leaving default fields out", () => {
    const ok = encodeMuxAnswer(9, 0, "", Buffer.from("resp"));
    const failed = encodeMuxAnswer(10, 9, "etcdserver: mvcc: required revision has been compacted ✓");
    expect(decodeMuxAnswer(ok.subarray(5))).toMatchObject({ id: 9, code: 0, message: "", response: Buffer.from("resp") });
    expect(decodeMuxAnswer(failed.subarray(5))).toMatchObject({ id: 10, code: 9, message: "etcdserver: mvcc: required revision has been compacted ✓" });
    expect(encodeMuxAnswer(9, 0, "").length).toBe(5 + 2);
  });

  it("refuses a compressed message and bytes that are not a message", () => {
    const compressed = Buffer.from(encodeMuxCall(1, PATH, Buffer.alloc(1)));
    compressed[0] = 1;
    expect(() => new FrameReader(100).push(compressed)).toThrow(MuxWireError);
    expect(() => decodeMuxCall(Buffer.from([0x0f, 0x01]))).toThrow(MuxWireError);
    expect(() => decodeMuxCall(Buffer.from([0x12, 0x05, 0x61]))).toThrow("truncated field");
    expect(leadingId(Buffer.from([0x12, 0x01]))).toBeUndefined();
  });
});
