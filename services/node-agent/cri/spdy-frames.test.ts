import { constants, createDeflate, inflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { dataFrame, decodeHeaderPairs, encodeHeaderPairs, FrameReader, HEADER_DICTIONARY, HeaderDeflater, HeaderInflater, pingFrame, SYN_REPLY, synReplyFrame } from "./spdy-frames.ts";

const headers = (pairs: Record<string, string[]>) => new Map(Object.entries(pairs));

describe("SPDY/3.1 frames", () => {
  it("has the protocol's 1423-byte header dictionary", () => {
    expect(HEADER_DICTIONARY.length).toBe(1423);
    expect(HEADER_DICTIONARY.subarray(0, 11).toString("latin1")).toBe("\0\0\0\x07options");
    expect(HEADER_DICTIONARY.subarray(-7).toString("latin1")).toBe(",enq=0.");
  });

  it("splits a byte stream into frames wherever it is cut", () => {
    const stream = Buffer.concat([dataFrame(1, Buffer.from("hello"), false), pingFrame(7), dataFrame(3, Buffer.alloc(0), true)]);
    for (let cut = 0; cut <= stream.length; cut++) {
      const reader = new FrameReader();
      const frames = [...reader.push(stream.subarray(0, cut)), ...reader.push(stream.subarray(cut))];
      expect(frames.map((f) => (f.kind === "data" ? `data ${f.streamId} ${f.data.toString()} ${f.flags}` : `control ${f.type}`))).toEqual(["data 1 hello 0", "control 6", "data 3  1"]);
    }
  });

  it("refuses another SPDY version and oversized frames", () => {
    const v2 = Buffer.from([0x80, 0x02, 0x00, 0x06, 0, 0, 0, 4, 0, 0, 0, 1]);
    expect(() => new FrameReader().push(v2)).toThrow("unsupported SPDY version 2");
    expect(() => new FrameReader().push(Buffer.from([0, 0, 0, 1, 0, 0x20, 0, 0]))).toThrow("too large");
  });

  it("writes header pairs lower-cased with NUL-joined values, and reads them back", () => {
    const raw = encodeHeaderPairs(headers({ StreamType: ["data"], port: ["80", "81"] }));
    expect(decodeHeaderPairs(raw)).toEqual(headers({ streamtype: ["data"], port: ["80", "81"] }));
    expect(() => decodeHeaderPairs(raw.subarray(0, raw.length - 1))).toThrow("truncated");
  });

  it("inflates blocks of one compressed stream primed with the dictionary, block after block", async () => {
    // One zlib stream with a sync flush after each block, as a SPDY peer writes it.
    const deflate = createDeflate({ dictionary: HEADER_DICTIONARY, level: 9 });
    const flushed = async (block: Buffer): Promise<Buffer> => {
      const out: Buffer[] = [];
      const collect = (d: Buffer) => out.push(d);
      deflate.on("data", collect);
      deflate.write(block);
      await new Promise<void>((resolve) => deflate.flush(constants.Z_SYNC_FLUSH, () => resolve()));
      deflate.off("data", collect);
      return Buffer.concat(out);
    };
    const first = await flushed(encodeHeaderPairs(headers({ streamtype: ["error"], port: ["8080"], requestid: ["0"] })));
    const second = await flushed(encodeHeaderPairs(headers({ streamtype: ["data"], port: ["8080"], requestid: ["0"] })));
    deflate.close();
    const inflater = new HeaderInflater();
    expect(inflater.decode(first)).toEqual(headers({ streamtype: ["error"], port: ["8080"], requestid: ["0"] }));
    expect(inflater.decode(second)).toEqual(headers({ streamtype: ["data"], port: ["8080"], requestid: ["0"] }));
  });

  it("deflates blocks as stored blocks of one zlib stream, each ended like a sync flush", () => {
    const deflater = new HeaderDeflater();
    const a = deflater.encode(headers({ a: ["1"] }));
    const b = deflater.encode(new Map());
    expect([...a.subarray(0, 2)]).toEqual([0x78, 0x01]);
    expect([...a.subarray(-5)]).toEqual([0, 0, 0, 0xff, 0xff]);
    const all = inflateSync(Buffer.concat([a, b]), { finishFlush: constants.Z_SYNC_FLUSH });
    expect(decodeHeaderPairs(all.subarray(0, all.length - 4))).toEqual(headers({ a: ["1"] }));
    expect([...all.subarray(-4)]).toEqual([0, 0, 0, 0]);
    const reply = synReplyFrame(5, b);
    expect(reply.readUInt16BE(2)).toBe(SYN_REPLY);
    expect(reply.readUIntBE(5, 3)).toBe(4 + b.length);
  });
});
