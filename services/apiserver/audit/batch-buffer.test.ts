import { describe, expect, it } from "vitest";
import { BatchBuffer, DEFAULT_LOG_BATCH_CONFIG, DEFAULT_WEBHOOK_BATCH_CONFIG, type AuditBatchConfig } from "./batch-buffer.ts";

/** A step at time `at`: offer items (expect which were taken), or ask what is due. */
type Step = { at: number; offer: string[]; taken?: boolean[] } | { at: number; due: string[][]; nextAt?: number } | { at: number; drain: string[][] };

const config = (c: Partial<AuditBatchConfig>): AuditBatchConfig => ({ bufferSize: 100, maxBatchSize: 3, maxBatchWaitMs: 1000, throttleEnable: false, throttleQps: 0, throttleBurst: 0, ...c });

function run(c: AuditBatchConfig, steps: Step[]): void {
  const b = new BatchBuffer<string>(c, 0);
  for (const [i, step] of steps.entries()) {
    if ("offer" in step) {
      const taken = step.offer.map((x) => b.offer(x, step.at));
      expect(taken, `step ${i}`).toEqual(step.taken ?? step.offer.map(() => true));
    } else if ("due" in step) {
      const got = b.due(step.at);
      expect(got, `step ${i}`).toEqual(step.nextAt === undefined ? { batches: step.due } : { batches: step.due, nextAt: step.nextAt });
    } else {
      expect(b.drain(), `step ${i}`).toEqual(step.drain);
    }
  }
}

describe("audit batch buffer", () => {
  it.each<{ name: string; config: AuditBatchConfig; steps: Step[] }>([
    {
      name: "a full batch is due at once, the rest waits for max-wait",
      config: config({}),
      steps: [
        { at: 0, offer: ["a", "b", "c", "d"] },
        { at: 0, due: [["a", "b", "c"]], nextAt: 1000 },
        { at: 999, due: [], nextAt: 1000 },
        { at: 1000, due: [["d"]] },
      ],
    },
    {
      name: "the wait counts from a batch's first event",
      config: config({}),
      steps: [
        { at: 0, due: [] },
        { at: 500, offer: ["a"] },
        { at: 500, due: [], nextAt: 1500 },
        { at: 1400, offer: ["b"] },
        { at: 1499, due: [], nextAt: 1500 },
        { at: 1500, due: [["a", "b"]] },
      ],
    },
    {
      name: "several full batches at once, in order",
      config: config({ maxBatchSize: 2 }),
      steps: [
        { at: 10, offer: ["a", "b", "c", "d", "e"] },
        { at: 10, due: [["a", "b"], ["c", "d"]], nextAt: 1010 },
        { at: 1010, due: [["e"]] },
      ],
    },
    {
      name: "a full buffer refuses events until a batch leaves",
      config: config({ bufferSize: 2, maxBatchSize: 5 }),
      steps: [
        { at: 0, offer: ["a", "b", "c"], taken: [true, true, false] },
        { at: 1000, due: [["a", "b"]] },
        { at: 1000, offer: ["d"] },
      ],
    },
    {
      name: "the throttle lets a burst through, then one batch per 1/qps",
      config: config({ maxBatchSize: 1, throttleEnable: true, throttleQps: 2, throttleBurst: 2 }),
      steps: [
        { at: 0, offer: ["a", "b", "c", "d"] },
        { at: 0, due: [["a"], ["b"]], nextAt: 500 },
        { at: 250, due: [], nextAt: 500 },
        { at: 500, due: [["c"]], nextAt: 1000 },
        { at: 1000, due: [["d"]] },
      ],
    },
    {
      name: "a throttled buffer fills behind the waiting batch and drops",
      config: config({ bufferSize: 3, maxBatchSize: 1, throttleEnable: true, throttleQps: 1, throttleBurst: 1 }),
      steps: [
        { at: 0, offer: ["a", "b", "c", "d"], taken: [true, true, true, false] },
        { at: 0, due: [["a"]], nextAt: 1000 },
        { at: 0, offer: ["e", "f"], taken: [true, false] },
        { at: 1000, due: [["b"]], nextAt: 2000 },
      ],
    },
    {
      name: "draining hands out everything, throttle aside",
      config: config({ maxBatchSize: 2, throttleEnable: true, throttleQps: 1, throttleBurst: 1 }),
      steps: [
        { at: 0, offer: ["a", "b", "c", "d", "e"] },
        { at: 0, due: [["a", "b"]], nextAt: 1000 },
        { at: 0, drain: [["c", "d"], ["e"]] },
        { at: 5000, due: [] },
      ],
    },
    {
      name: "the platform's log defaults: every event is its own batch, due at once",
      config: DEFAULT_LOG_BATCH_CONFIG,
      steps: [
        { at: 7, offer: ["a", "b", "c"] },
        { at: 7, due: [["a"], ["b"], ["c"]] },
      ],
    },
    {
      name: "the platform's webhook defaults: 400 events a batch, 30 s wait, 15 batches at once",
      config: DEFAULT_WEBHOOK_BATCH_CONFIG,
      steps: [
        { at: 0, offer: ["a"] },
        { at: 29_999, due: [], nextAt: 30_000 },
        { at: 30_000, due: [["a"]] },
      ],
    },
  ])("$name", ({ config: c, steps }) => run(c, steps));

  it("groups the webhook defaults' 400 events a batch and throttles past the burst of 15", () => {
    const b = new BatchBuffer<number>(DEFAULT_WEBHOOK_BATCH_CONFIG, 0);
    expect(Array.from({ length: 400 * 17 }, (_, i) => b.offer(i, 0)).every(Boolean)).toBe(true);
    const first = b.due(0);
    expect(first.batches.map((x) => x.length)).toEqual(Array.from({ length: 15 }, () => 400));
    expect(first.nextAt).toBe(100);
    expect(b.due(100).batches.map((x) => x[0])).toEqual([400 * 15]);
  });
});
