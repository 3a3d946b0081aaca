/**
 * The slicing core with an injected scheduler: a manual clock that pieces advance as
 * they are produced (their "work") and turns that pass only when the test says so.
 */
import { describe, expect, it } from "vitest";
import { ChunkProducer, PAUSE, TurnBudget, type Piece, type TurnScheduler } from "./chunked-stream.ts";

class ManualScheduler implements TurnScheduler {
  clock = 0;
  private waiting: Array<() => void> = [];
  now(): number {
    return this.clock;
  }
  nextTurn(): Promise<void> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }
  get waiters(): number {
    return this.waiting.length;
  }
  /** One turn of the loop: everything waiting for it goes on (and its microtasks run). */
  async turn(): Promise<void> {
    const now = this.waiting;
    this.waiting = [];
    for (const resolve of now) resolve();
    for (let i = 0; i < 20; i++) await Promise.resolve();
  }
}

/** `count` pieces of `bytes` bytes, each costing `costMs` of the scheduler's clock; records what was produced. */
function work(sched: ManualScheduler, count: number, bytes: number, costMs: number, log: { produced: number; finished: boolean }): Generator<Piece> {
  return (function* () {
    try {
      for (let i = 0; i < count; i++) {
        sched.clock += costMs;
        log.produced++;
        yield "x".repeat(bytes);
      }
    } finally {
      log.finished = true;
    }
  })();
}

async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

describe("ChunkProducer: where a chunk ends", () => {
  const cases: Array<{ name: string; pieces: number; bytes: number; costMs: number; chunkBytes: number; sliceMs: number; minChunkBytes?: number; first: number }> = [
    { name: "at chunkBytes when pieces are cheap", pieces: 100, bytes: 10, costMs: 0.001, chunkBytes: 50, sliceMs: 2, first: 50 },
    { name: "when the slice's time is used up", pieces: 100, bytes: 10, costMs: 0.5, chunkBytes: 1_000_000, sliceMs: 2, first: 40 },
    { name: "after one piece when that piece alone takes longer than a slice", pieces: 5, bytes: 10, costMs: 5, chunkBytes: 1_000_000, sliceMs: 2, first: 10 },
    { name: "at the end of a body smaller than one chunk and one slice", pieces: 3, bytes: 10, costMs: 0.1, chunkBytes: 1000, sliceMs: 2, first: 30 },
    { name: "by time only once it holds minChunkBytes", pieces: 100, bytes: 10, costMs: 0.5, chunkBytes: 1_000_000, sliceMs: 2, minChunkBytes: 70, first: 70 },
    { name: "by time at once when minChunkBytes is already reached", pieces: 100, bytes: 10, costMs: 0.5, chunkBytes: 1_000_000, sliceMs: 2, minChunkBytes: 20, first: 40 },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const sched = new ManualScheduler();
      const log = { produced: 0, finished: false };
      const producer = new ChunkProducer(work(sched, c.pieces, c.bytes, c.costMs, log), new TurnBudget(sched, 100), { chunkBytes: c.chunkBytes, sliceMs: c.sliceMs, minChunkBytes: c.minChunkBytes });
      const chunk = await producer.next(); // the first slice needs no turn
      expect(chunk?.length).toBe(c.first);
      expect(log.produced).toBe(c.first / c.bytes);
      expect(producer.finished).toBe(c.first === c.pieces * c.bytes);
    });
  }
});

describe("ChunkProducer: turns and the shared budget", () => {
  it("waits for a turn between chunks and produces nothing meanwhile", async () => {
    const sched = new ManualScheduler();
    const log = { produced: 0, finished: false };
    const producer = new ChunkProducer(work(sched, 10, 10, 0, log), new TurnBudget(sched, 100), { chunkBytes: 20 });
    expect((await producer.next())?.length).toBe(20);
    let second: Uint8Array | undefined;
    void producer.next().then((c) => (second = c));
    await settle();
    expect(second).toBeUndefined();
    expect(log.produced).toBe(2);
    await sched.turn();
    expect(second?.length).toBe(20);
    expect(log.produced).toBe(4);
  });

  it("a spent budget holds every later slice until the turns that repay it, but not a body's first slice", async () => {
    const sched = new ManualScheduler();
    const budget = new TurnBudget(sched, 2, 0); // time only
    const logA = { produced: 0, finished: false };
    const logB = { produced: 0, finished: false };
    const a = new ChunkProducer(work(sched, 100, 10, 1, logA), budget, { chunkBytes: 1_000_000, sliceMs: 2 });
    const b = new ChunkProducer(work(sched, 100, 10, 1, logB), budget, { chunkBytes: 1_000_000, sliceMs: 2 });
    expect((await a.next())?.length).toBe(20);
    expect(budget.available).toBe(0);
    expect((await b.next())?.length).toBe(20); // a first slice runs although the turn's budget is spent
    // A small body arriving now is answered at once, too.
    const small = new ChunkProducer(work(sched, 2, 10, 0.1, { produced: 0, finished: false }), budget, { sliceMs: 2 });
    expect((await small.next())?.length).toBe(20);
    expect(small.finished).toBe(true);
    // What those two first slices did past the budget (2 + 0.2 ms) is a debt.
    expect(budget.available).toBeCloseTo(-2.2);
    const got: string[] = [];
    void a.next().then(() => got.push("a"));
    void b.next().then(() => got.push("b"));
    await settle();
    expect(got).toEqual([]);
    await sched.turn(); // one turn's budget repays most of the debt: nothing runs
    expect(got).toEqual([]);
    expect(budget.available).toBeCloseTo(-0.2);
    await sched.turn(); // 1.8 ms left: A's slice takes all of it (two pieces of 1 ms), B waits
    expect(got).toEqual(["a"]);
    expect([logA.produced, logB.produced]).toEqual([4, 2]);
    await sched.turn(); // refilled again: B's turn
    expect(got).toEqual(["a", "b"]);
    expect([logA.produced, logB.produced]).toEqual([4, 4]);
  });

  it("a first slice with budget left works within what is left of it, not a whole slice", async () => {
    const sched = new ManualScheduler();
    const budget = new TurnBudget(sched, 2, 0); // time only
    const x = new ChunkProducer(work(sched, 100, 10, 0.5, { produced: 0, finished: false }), budget, { chunkBytes: 1_000_000, sliceMs: 1 });
    expect((await x.next())?.length).toBe(20);
    expect(budget.available).toBe(1);
    const y = new ChunkProducer(work(sched, 100, 10, 0.5, { produced: 0, finished: false }), budget, { chunkBytes: 1_000_000, sliceMs: 2 });
    expect((await y.next())?.length).toBe(20); // 1 ms of its 2 ms slice: what the turn had left
    expect(budget.available).toBe(0);
  });

  it("refills stop once the budget is whole again", async () => {
    const sched = new ManualScheduler();
    const budget = new TurnBudget(sched, 2, 0);
    budget.spend(5);
    for (const left of [-1, 1, 2]) {
      await sched.turn();
      expect(budget.available).toBe(left);
    }
    expect(sched.waiters).toBe(0);
  });

  it("ends a slice on PAUSE pieces when they take the time, without bytes, and goes on next turn", async () => {
    const sched = new ManualScheduler();
    function* sizing(): Generator<Piece> {
      for (let i = 0; i < 6; i++) {
        sched.clock += 1;
        yield PAUSE;
      }
      yield "done";
    }
    const producer = new ChunkProducer(sizing(), new TurnBudget(sched, 100), { sliceMs: 2 });
    let chunk: Uint8Array | undefined;
    void producer.next().then((c) => (chunk = c));
    await settle();
    expect(chunk).toBeUndefined();
    for (let i = 0; i < 3 && !chunk; i++) await sched.turn();
    expect(new TextDecoder().decode(chunk)).toBe("done");
  });
});

describe("ChunkProducer: bytes are work (their copy and socket write)", () => {
  const KIB = 1024;
  /** A budget of 2 ms per turn where 1 KiB costs 0.25 ms to write. */
  const budgetOf = (sched: ManualScheduler) => new TurnBudget(sched, 2, 256);

  it("ends a slice of pieces that take no time once its bytes' writing cost uses the slice", async () => {
    const sched = new ManualScheduler();
    const log = { produced: 0, finished: false };
    const producer = new ChunkProducer(work(sched, 100, KIB, 0, log), budgetOf(sched), { chunkBytes: 1_000_000, sliceMs: 2 });
    expect((await producer.next())?.length).toBe(8 * KIB);
    expect(log.produced).toBe(8);
  });

  it("bytes spend the turn's shared budget: once the first slices' debt is repaid, one producer's chunk of cheap bytes per turn", async () => {
    const sched = new ManualScheduler();
    const budget = budgetOf(sched);
    const logs = [0, 1, 2].map(() => ({ produced: 0, finished: false }));
    const producers = logs.map((log) => new ChunkProducer(work(sched, 100, KIB, 0, log), budget, { chunkBytes: 1_000_000, sliceMs: 2 }));
    for (const p of producers) await p.next(); // first slices: 8 KiB each, 2 ms of work each
    expect(budget.available).toBe(-4);
    const got: number[] = [];
    producers.forEach((p, i) => void p.next().then(() => got.push(i)));
    await settle();
    expect(got).toEqual([]);
    await sched.turn();
    await sched.turn(); // two turns repay the two first slices past the budget
    expect(got).toEqual([]);
    await sched.turn(); // one budget: one producer's 8 KiB
    expect(got).toEqual([0]);
    expect(logs.map((l) => l.produced)).toEqual([16, 8, 8]);
    await sched.turn();
    expect(got).toEqual([0, 1]);
    await sched.turn();
    expect(got).toEqual([0, 1, 2]);
  });

  it("with the budget spent, a body's first slice holds at most firstChunkBytes: a small body is answered whole at once, a large one goes on later", async () => {
    const sched = new ManualScheduler();
    const budget = budgetOf(sched);
    await new ChunkProducer(work(sched, 100, KIB, 0, { produced: 0, finished: false }), budget, { sliceMs: 2 }).next();
    expect(budget.available).toBeLessThanOrEqual(0);
    const small = new ChunkProducer(work(sched, 3, KIB, 0, { produced: 0, finished: false }), budget, { sliceMs: 2, firstChunkBytes: 4 * KIB });
    expect((await small.next())?.length).toBe(3 * KIB);
    expect(small.finished).toBe(true);
    const largeLog = { produced: 0, finished: false };
    const large = new ChunkProducer(work(sched, 100, KIB, 0, largeLog), budget, { sliceMs: 2, firstChunkBytes: 4 * KIB });
    expect((await large.next())?.length).toBe(4 * KIB);
    expect(large.finished).toBe(false);
    expect(largeLog.produced).toBe(4);
  });

  it("with budget left, a first slice is not held to firstChunkBytes", async () => {
    const sched = new ManualScheduler();
    const producer = new ChunkProducer(work(sched, 100, KIB, 0, { produced: 0, finished: false }), budgetOf(sched), { sliceMs: 2, firstChunkBytes: 4 * KIB });
    expect((await producer.next())?.length).toBe(8 * KIB);
  });
});

describe("ChunkProducer: stop and failure", () => {
  it("stop() while a slice waits for its turn: the generator ends and nothing more is produced", async () => {
    const sched = new ManualScheduler();
    const log = { produced: 0, finished: false };
    const producer = new ChunkProducer(work(sched, 1000, 10, 0, log), new TurnBudget(sched, 100), { chunkBytes: 10 });
    await producer.next();
    let result: Uint8Array | undefined | "pending" = "pending";
    void producer.next().then((c) => (result = c));
    await settle();
    expect(sched.waiters).toBeGreaterThan(0);
    producer.stop();
    expect(log.finished).toBe(true);
    await sched.turn();
    expect(result).toBeUndefined();
    expect(log.produced).toBe(1);
    expect(await producer.next()).toBeUndefined();
  });

  it("an exception from the generator rejects next() and finishes the producer", async () => {
    const sched = new ManualScheduler();
    function* failing(): Generator<Piece> {
      yield "a";
      throw new Error("boom");
    }
    const producer = new ChunkProducer(failing(), new TurnBudget(sched, 100));
    await expect(producer.next()).rejects.toThrow("boom");
    expect(producer.finished).toBe(true);
  });
});
