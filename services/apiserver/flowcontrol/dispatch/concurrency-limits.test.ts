import { describe, expect, it } from "vitest";
import type { PriorityLevelView } from "../contract.ts";
import { allocateSeats, allocationItem, levelLimits, nextDemandStats, NO_DEMAND, serverConcurrencyLimit } from "./concurrency-limits.ts";
import { DemandIntegrator } from "./demand-integrator.ts";

const queue = (queues = 64, handSize = 6, queueLengthLimit = 50) => ({ type: "Queue" as const, queuing: { queues, handSize, queueLengthLimit } });
const limited = (name: string, shares: number, lendablePercent = 0, borrowingLimitPercent?: number, handSize = 6): PriorityLevelView => ({
  name,
  uid: `uid-${name}`,
  type: "Limited",
  nominalConcurrencyShares: shares,
  lendablePercent,
  borrowingLimitPercent,
  limitResponse: queue(64, handSize),
});
const exempt: PriorityLevelView = { name: "exempt", uid: "uid-exempt", type: "Exempt", nominalConcurrencyShares: 0, lendablePercent: 0 };
const catchAll: PriorityLevelView = { name: "catch-all", uid: "uid-catch-all", type: "Limited", nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: "Reject" } };

/** The platform's suggested levels (1.35 defaults). */
const suggested: PriorityLevelView[] = [
  exempt,
  catchAll,
  limited("system", 30, 33),
  limited("node-high", 40, 25),
  limited("leader-election", 10, 0),
  limited("workload-high", 40, 50),
  limited("workload-low", 100, 90),
  limited("global-default", 20, 50),
];

describe("concurrency limits", () => {
  it("the server limit is the sum of the two in-flight flags", () => {
    expect(serverConcurrencyLimit(400, 200)).toBe(600);
    expect(serverConcurrencyLimit(3, 0)).toBe(3);
  });

  it.each([
    // name, nominal, lower, upper, initial, max request seats (at the default 600 seats, shares sum 245)
    // max seats: max(1, min(ceil(0.15 x nominal), floor(nominal / handSize))), not capped at 10; 0 without queues
    { name: "exempt", nominal: 0, lower: 0, upper: 600, initial: 0, maxSeats: 0 },
    { name: "catch-all", nominal: 13, lower: 13, upper: 613, initial: 13, maxSeats: 0 },
    { name: "system", nominal: 74, lower: 50, upper: 674, initial: 62, maxSeats: 12 },
    { name: "node-high", nominal: 98, lower: 73, upper: 698, initial: 86, maxSeats: 15 },
    { name: "leader-election", nominal: 25, lower: 25, upper: 625, initial: 25, maxSeats: 4 },
    { name: "workload-high", nominal: 98, lower: 49, upper: 698, initial: 74, maxSeats: 15 },
    { name: "workload-low", nominal: 245, lower: 24, upper: 845, initial: 135, maxSeats: 37 },
    { name: "global-default", nominal: 49, lower: 24, upper: 649, initial: 37, maxSeats: 8 },
  ])("$name: nominal $nominal, lower $lower, upper $upper, starts at $initial", ({ name, nominal, lower, upper, initial, maxSeats }) => {
    const l = levelLimits(suggested, 600).find((x) => x.name === name);
    expect(l).toMatchObject({ nominal, lower, upper, initial, maxRequestSeats: maxSeats });
  });

  it("a borrowing limit bounds the upper limit; 0 shares get no nominal seats", () => {
    const [a, b] = levelLimits([limited("a", 10, 50, 100), limited("b", 0)], 40);
    expect(a).toMatchObject({ nominal: 40, lendable: 20, borrowing: 40, lower: 20, upper: 80 });
    expect(b).toMatchObject({ nominal: 0, lower: 0, upper: 40 });
  });

  it.each([
    { why: "no bound matters: proportional to targets", required: 30, items: [[10, 0, 100], [20, 0, 100]], allocs: [10, 20] },
    { why: "slack is divided by target", required: 60, items: [[10, 0, 100], [20, 0, 100]], allocs: [20, 40] },
    { why: "an upper bound caps one level, the other gets the rest", required: 60, items: [[10, 0, 15], [20, 0, 100]], allocs: [15, 45] },
    { why: "a lower bound holds a level up", required: 30, items: [[20, 20, 40], [40, 0, 100]], allocs: [20, 10] },
    { why: "lower bounds above the sum: all at lower bounds", required: 10, items: [[10, 8, 20], [10, 8, 20]], allocs: [8, 8] },
    { why: "upper bounds below the sum: all at upper bounds", required: 100, items: [[10, 0, 20], [10, 0, 30]], allocs: [20, 30] },
    { why: "zero targets count as tiny: the slack is shared evenly", required: 10, items: [[0, 0, 100], [0, 0, 100]], allocs: [5, 5] },
  ])("allocation: $why", ({ required, items, allocs }) => {
    const result = allocateSeats(required, items.map(([target, lowerBound, upperBound]) => ({ target, lowerBound, upperBound })));
    result.allocs.forEach((a, i) => expect(a).toBeCloseTo(allocs[i], 6));
  });

  it("allocations always sum to the required total when the bounds allow it (random tables)", () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let trial = 0; trial < 200; trial++) {
      const items = Array.from({ length: 1 + Math.floor(rand() * 8) }, () => {
        const lowerBound = Math.floor(rand() * 20);
        return { lowerBound, upperBound: lowerBound + Math.floor(rand() * 80), target: lowerBound + rand() * 50 };
      });
      const low = items.reduce((s, i) => s + i.lowerBound, 0);
      const high = items.reduce((s, i) => s + i.upperBound, 0);
      const required = Math.floor(low + rand() * (high - low));
      const { allocs } = allocateSeats(required, items);
      expect(allocs.reduce((s, a) => s + a, 0)).toBeCloseTo(required, 6);
      allocs.forEach((a, i) => {
        expect(a).toBeGreaterThanOrEqual(items[i].lowerBound - 1e-9);
        expect(a).toBeLessThanOrEqual(items[i].upperBound + 1e-9);
      });
    }
  });

  it("demand stats: the smoothed demand follows a rise at once and decays slowly", () => {
    let stats = nextDemandStats(NO_DEMAND, { durationMs: 10_000, average: 40, deviation: 10, max: 60 });
    expect(stats).toEqual({ average: 40, deviation: 10, highWatermark: 60, smoothed: 50 });
    stats = nextDemandStats(stats, { durationMs: 10_000, average: 0, deviation: 0, max: 0 });
    expect(stats.smoothed).toBeCloseTo(0.977 * 50, 9);
    // the lower bound of the next allocation is the high watermark within [lower, nominal]
    expect(allocationItem({ nominal: 30, lower: 10, upper: 90 }, { ...stats, highWatermark: 20 })).toEqual({ lowerBound: 20, upperBound: 90, target: 0.977 * 50 });
    expect(allocationItem({ nominal: 30, lower: 10, upper: 90 }, { ...NO_DEMAND, highWatermark: 50 })).toEqual({ lowerBound: 30, upperBound: 90, target: 30 });
  });

  it("the demand integrator gives time-weighted average, deviation and maximum", () => {
    const d = new DemandIntegrator(0);
    d.set(0, 10);
    d.set(5_000, 30);
    const obs = d.reset(10_000);
    expect(obs).toMatchObject({ durationMs: 10_000, average: 20, max: 30 });
    expect(obs.deviation).toBeCloseTo(10, 9);
    // the next period starts at the current value
    expect(d.reset(20_000)).toMatchObject({ average: 30, deviation: 0, max: 30 });
  });
});
