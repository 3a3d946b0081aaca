/** The work queue's contract: one entry per key, never two workers on a key, re-processing of a key added while it runs, retries after failures. */
import { describe, expect, it } from "vitest";
import { WorkQueue } from "./work-queue.ts";

describe("work queue", () => {
  it("queues a key once and processes it again when it was added while running", async () => {
    const seen: string[] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const q = new WorkQueue<string>(async (k) => {
      seen.push(k);
      if (seen.length === 1) await gate;
    }, { workers: 4 });
    q.add("a");
    q.add("b");
    q.add("b"); // already queued: one entry
    q.start();
    expect(seen).toEqual(["a", "b"]);
    q.add("a"); // "a" is running: marked dirty, not run in parallel
    q.add("a");
    release();
    await q.idle();
    expect(seen).toEqual(["a", "b", "a"]);
    q.stop();
  });

  it("never runs more than `workers` keys at once", async () => {
    let running = 0;
    let peak = 0;
    const q = new WorkQueue<number>(async () => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
    }, { workers: 3 });
    q.start();
    for (let i = 0; i < 20; i++) q.add(i);
    await q.idle();
    expect(peak).toBe(3);
    q.stop();
  });

  it("retries a failed key with backoff and forgets failures after success", async () => {
    let attempts = 0;
    const failures: number[] = [];
    const q = new WorkQueue<string>(
      async () => {
        attempts++;
        if (attempts < 3) throw new Error("not yet");
      },
      { baseDelayMs: 1, log: (_m, f) => failures.push(f.attempt as number) },
    );
    q.start();
    q.add("k");
    while (attempts < 3) await new Promise((r) => setTimeout(r, 5));
    await q.idle();
    expect(failures).toEqual([1, 2]);
    q.stop();
  });

  it("stop() drops pending retries", async () => {
    let attempts = 0;
    const q = new WorkQueue<string>(async () => {
      attempts++;
      throw new Error("always");
    }, { baseDelayMs: 20 });
    q.start();
    q.add("k");
    await q.idle();
    q.stop();
    await new Promise((r) => setTimeout(r, 60));
    expect(attempts).toBe(1);
  });

  it("a key asked for later many times waits on one timer, at the earliest time asked", async () => {
    const seen: Array<[string, number]> = [];
    const t0 = Date.now();
    const q = new WorkQueue<string>(async (k) => {
      seen.push([k, Date.now() - t0]);
    });
    q.start();
    for (let i = 0; i < 50; i++) q.addAfter("a", 400); // one timer, not fifty
    q.addAfter("a", 30); // earlier: replaces the pending one
    q.addAfter("a", 300); // later than the pending one: ignored
    await new Promise((r) => setTimeout(r, 600));
    expect(seen.map(([k]) => k)).toEqual(["a"]);
    expect(seen[0][1]).toBeLessThan(300);
    q.stop();
  });
});
