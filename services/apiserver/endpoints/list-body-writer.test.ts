/**
 * The list body's own writer: the bytes of the producer in order and then the end; a
 * chunk's pieces in one corked write; no chunk asked for while the response waits for
 * `drain`; the client going away stops the producer; a producer error destroys the
 * response.
 */
import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { ChunkProducer, TurnBudget, type Piece } from "../../../shared/codec/chunked-stream.ts";
import { ListBodyWriter, type BodyResponse } from "./list-body-writer.ts";

/** A node response stand-in: records writes by cork batch; `accept` decides what write() answers. */
class FakeResponse extends EventEmitter {
  /** One entry per socket write: the pieces written between cork and uncork, or a lone write. */
  batches: Uint8Array[][] = [];
  private corked: Uint8Array[] | undefined;
  ended = false;
  destroyed = false;
  error: Error | undefined;
  accept = true;

  write(chunk: Uint8Array): boolean {
    if (this.corked) this.corked.push(chunk);
    else this.batches.push([chunk]);
    return this.accept;
  }
  cork(): void {
    this.corked = [];
  }
  uncork(): void {
    if (this.corked) this.batches.push(this.corked);
    this.corked = undefined;
  }
  end(): this {
    this.ended = true;
    return this;
  }
  destroy(err?: Error): this {
    this.destroyed = true;
    this.error = err;
    this.emit("close");
    return this;
  }
  bytes(): Buffer {
    return Buffer.concat(this.batches.flat());
  }
}

const asResponse = (r: FakeResponse) => r as unknown as BodyResponse;

/** `count` pieces of `size` bytes (each byte its piece's index); records how many were taken and whether it was closed. */
function pieces(count: number, size: number, fail?: number) {
  const log = { taken: 0, closed: false };
  function* gen(): Generator<Piece> {
    try {
      for (let i = 0; i < count; i++) {
        if (i === fail) throw new Error("encoding failed");
        log.taken++;
        yield new Uint8Array(size).fill(i % 256);
      }
    } finally {
      log.closed = true;
    }
  }
  return { gen: gen(), log };
}

/** A producer of chunks of up to 4 pieces (chunkBytes 4 x size), with a budget that never runs out. */
function producerOf(it: Iterator<Piece>, size: number): ChunkProducer {
  return new ChunkProducer(it, new TurnBudget(undefined, 1e9, 0), { chunkBytes: 4 * size, firstChunkBytes: 4 * size });
}

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

describe("ListBodyWriter", () => {
  it("writes the first chunk, then every chunk's pieces in one corked write, and ends", async () => {
    const { gen } = pieces(10, 100);
    const producer = producerOf(gen, 100);
    const first = await producer.next();
    const out = new FakeResponse();
    await new ListBodyWriter(producer, first).writeTo(asResponse(out));
    const expected = Buffer.concat(Array.from({ length: 10 }, (_, i) => Buffer.alloc(100, i)));
    expect(out.bytes().equals(expected)).toBe(true);
    expect(out.ended).toBe(true);
    // first chunk (4 pieces, concatenated), then 4 pieces corked, then the last 2 corked
    expect(out.batches.map((b) => b.map((p) => p.length))).toEqual([[400], [100, 100, 100, 100], [100, 100]]);
  });

  it("asks for no chunk while the response waits for drain", async () => {
    const { gen, log } = pieces(40, 100);
    const producer = producerOf(gen, 100);
    const out = new FakeResponse();
    out.accept = false;
    const done = new ListBodyWriter(producer, undefined).writeTo(asResponse(out));
    await turns(10);
    expect(out.batches.length).toBe(1);
    expect(log.taken).toBe(4);
    out.emit("drain");
    await turns(10);
    expect(out.batches.length).toBe(2);
    expect(log.taken).toBe(8);
    out.accept = true;
    out.emit("drain");
    await done;
    expect(log.taken).toBe(40);
    expect(out.ended).toBe(true);
  });

  it("stops the producer when the response closes, and writes nothing more", async () => {
    const { gen, log } = pieces(1000, 100);
    const producer = producerOf(gen, 100);
    const out = new FakeResponse();
    out.accept = false;
    const done = new ListBodyWriter(producer, undefined).writeTo(asResponse(out));
    await turns(5);
    const written = out.batches.length;
    out.destroy();
    await done;
    expect(log.closed).toBe(true);
    expect(log.taken).toBeLessThan(1000);
    expect(out.batches.length).toBe(written);
    expect(out.ended).toBe(false);
  });

  it("destroys the response with the producer's error", async () => {
    const { gen } = pieces(20, 100, 9);
    const out = new FakeResponse();
    await new ListBodyWriter(producerOf(gen, 100), undefined).writeTo(asResponse(out));
    expect(out.destroyed).toBe(true);
    expect(out.error?.message).toBe("encoding failed");
    expect(out.ended).toBe(false);
    expect(out.bytes().length).toBe(800);
  });
});
