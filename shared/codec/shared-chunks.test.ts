/** One producer read by several streams: encoded once, joined from the start, bounded, stopped with its last reader. */
import { describe, expect, it } from "vitest";
import { ChunkProducer, TurnBudget, eventLoopScheduler, readAll, type Piece } from "./chunked-stream.ts";
import { SharedChunks } from "./shared-chunks.ts";

function counted(count: number, size: number): { pieces: Generator<Piece>; log: { produced: number; finished: boolean } } {
  const log = { produced: 0, finished: false };
  function* gen(): Generator<Piece> {
    try {
      for (let i = 0; i < count; i++) {
        log.produced++;
        yield String.fromCharCode(97 + (i % 26)).repeat(size);
      }
    } finally {
      log.finished = true;
    }
  }
  return { pieces: gen(), log };
}

const budget = new TurnBudget(eventLoopScheduler, 1000);
const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);
const expected = (count: number, size: number): string => Array.from({ length: count }, (_, i) => String.fromCharCode(97 + (i % 26)).repeat(size)).join("");

describe("SharedChunks", () => {
  it("hands the whole body to every reader, joined at once or after chunks were produced, encoding each piece once", async () => {
    const { pieces, log } = counted(50, 100);
    const producer = new ChunkProducer(pieces, budget, { chunkBytes: 500 });
    let idle = 0;
    const shared = new SharedChunks(producer, { maxKeptBytes: 1 << 20, onIdle: () => idle++ }, await producer.next());
    const first = shared.reader().getReader();
    const second = shared.reader();
    await first.read();
    await first.read();
    expect(shared.joinable).toBe(true);
    const late = shared.reader(); // joins after three chunks were produced
    const rest: Uint8Array[] = [];
    for (let r = await first.read(); !r.done; r = await first.read()) rest.push(r.value);
    const [a, b] = await Promise.all([readAll(second), readAll(late)]);
    expect(text(a)).toBe(expected(50, 100));
    expect(text(b)).toBe(expected(50, 100));
    expect(log.produced).toBe(50);
    expect(idle).toBe(1);
    expect(shared.joinable).toBe(false);
  });

  it("stops the producer at once when its last reader cancels, not before", async () => {
    const { pieces, log } = counted(10_000, 100);
    const producer = new ChunkProducer(pieces, budget, { chunkBytes: 500 });
    let idle = 0;
    const shared = new SharedChunks(producer, { maxKeptBytes: 1 << 20, onIdle: () => idle++ });
    const one = shared.reader().getReader();
    const two = shared.reader().getReader();
    await one.read();
    await two.read();
    await one.cancel();
    expect(log.finished).toBe(false);
    await two.read();
    await two.cancel();
    expect(log.finished).toBe(true);
    expect(idle).toBe(1);
    const produced = log.produced;
    await new Promise((r) => setImmediate(r));
    expect(log.produced).toBe(produced);
    expect(produced).toBeLessThan(20);
  });

  it("past maxKeptBytes it is no longer joinable and lets go of the chunks every reader has passed", async () => {
    const { pieces } = counted(100, 100);
    const producer = new ChunkProducer(pieces, budget, { chunkBytes: 1000 });
    const shared = new SharedChunks(producer, { maxKeptBytes: 2500 });
    const fast = shared.reader().getReader();
    const slow = shared.reader().getReader();
    const fastBytes: Uint8Array[] = [];
    for (let i = 0; i < 3; i++) fastBytes.push((await fast.read()).value as Uint8Array);
    expect(shared.joinable).toBe(false); // 3,000 bytes kept, and the slow reader has none yet
    expect(() => shared.reader()).toThrow();
    const slowBytes: Uint8Array[] = [];
    for (let r = await slow.read(); !r.done; r = await slow.read()) slowBytes.push(r.value);
    for (let r = await fast.read(); !r.done; r = await fast.read()) fastBytes.push(r.value);
    expect(text(Buffer.concat(slowBytes))).toBe(expected(100, 100));
    expect(text(Buffer.concat(fastBytes))).toBe(expected(100, 100));
  });

  it("errors every reader when the body fails", async () => {
    function* failing(): Generator<Piece> {
      yield "x".repeat(10);
      throw new Error("boom");
    }
    const producer = new ChunkProducer(failing(), budget, { chunkBytes: 10 });
    const shared = new SharedChunks(producer, { maxKeptBytes: 1 << 20 });
    const readers = [shared.reader(), shared.reader()];
    await Promise.all(readers.map((r) => expect(readAll(r)).rejects.toThrow("boom")));
  });
});
