import { describe, expect, it } from "vitest";
import { MetricsRegistry } from "../../../../shared/observability/metrics.ts";
import { NO_DEMAND } from "./concurrency-limits.ts";
import { declareFlowMetrics, LevelMetrics } from "./metrics.ts";
import { TimingRatioHistogram } from "./timing-histogram.ts";

const MS = 1e6;

describe("timing ratio histogram", () => {
  type Step = ["num" | "den", number, number];
  it.each<[string, Step[], number, { cumulative: number[]; count: number; sum: number }]>([
    ["a value that never changes fills its bucket with the whole time", [], 100, { cumulative: [100 * MS, 100 * MS, 100 * MS], count: 100 * MS, sum: 0 }],
    [
      "each value is weighted by how long it held, not by how often it was set",
      // ratio 0 for 10 ms, 2 for 1 ms, 0.5 for 89 ms: one short spike barely counts
      [["num", 10, 2], ["num", 11, 0.5], ["num", 11, 0.5]],
      100,
      { cumulative: [10 * MS, 99 * MS, 100 * MS], count: 100 * MS, sum: 2 * MS + 0.5 * 89 * MS },
    ],
    [
      "a new denominator changes the ratio from then on",
      // 3 seats of 4 for 50 ms (0.75), then of 2 (1.5) for 50 ms
      [["num", 0, 3], ["den", 0, 4], ["den", 50, 2]],
      100,
      { cumulative: [0, 50 * MS, 100 * MS], count: 100 * MS, sum: 0.75 * 50 * MS + 1.5 * 50 * MS },
    ],
    ["a ratio above the last bound counts only in +Inf", [["num", 0, 9]], 20, { cumulative: [0, 0, 0], count: 20 * MS, sum: 9 * 20 * MS }],
    // 0 for 30 ms; the 1 set at 30 ms is replaced "at 20 ms" (no time passes), so it never counts
    ["a clock that goes back adds no time", [["num", 30, 1], ["num", 20, 0]], 30, { cumulative: [30 * MS, 30 * MS, 30 * MS], count: 30 * MS, sum: 0 }],
  ])("%s", (_name, steps, end, want) => {
    const h = new TimingRatioHistogram([0, 1, 2], 0);
    for (const [what, at, value] of steps) {
      if (what === "num") h.setNumerator(at, value);
      else h.setDenominator(at, value);
    }
    const s = h.snapshot(end);
    expect(s.cumulative).toEqual(want.cumulative);
    expect(s.count).toBe(want.count);
    expect(s.sum).toBeCloseTo(want.sum, 0);
  });

  it("a snapshot brings the time up to now and later snapshots go on from there", () => {
    const h = new TimingRatioHistogram([0.5, 1], 1000, { numerator: 1, denominator: 4 });
    expect(h.snapshot(1010)).toMatchObject({ cumulative: [10 * MS, 10 * MS], count: 10 * MS });
    h.setNumerator(1010, 4);
    expect(h.snapshot(1030)).toMatchObject({ cumulative: [10 * MS, 30 * MS], count: 30 * MS });
    expect(h.snapshot(1030).sum).toBeCloseTo(0.25 * 10 * MS + 1 * 20 * MS, 0);
  });
});

describe("demand_seats and priority_level_seat_utilization on /metrics", () => {
  it("are weighted by time on the registry's exposition (injected clock)", async () => {
    let t = 0;
    const registry = new MetricsRegistry({ currentVersion: "1.35" });
    const level = new LevelMetrics(declareFlowMetrics(registry, () => t), "pl", 40);
    level.adjusted(4, NO_DEMAND, 4);
    // 2 seats of 4 wanted for 30 ms, 6 of 4 for 10 ms (a burst of 100 changes), then nothing for 60 ms
    level.demand(2);
    level.executing("fs", 1, 2);
    t = 30;
    for (let i = 0; i < 100; i++) level.demand(i % 2 === 0 ? 5 : 6);
    t = 40;
    level.demand(0);
    level.executing("fs", -1, -2);
    t = 100;
    const text = await registry.text();
    const value = (series: string) => Number(text.split("\n").find((l) => l.startsWith(series))?.split(" ")[1]);
    const demand = (le: string) => value(`apiserver_flowcontrol_demand_seats_bucket{le="${le}",priority_level="pl"}`);
    expect(text).toContain("# TYPE apiserver_flowcontrol_demand_seats histogram");
    expect(demand("0.2")).toBe(60 * MS); // 0 for 60 ms
    expect(demand("0.6") - demand("0.4")).toBe(30 * MS); // 0.5 for 30 ms
    expect(demand("1.7") - demand("1.4")).toBe(10 * MS); // 1.5 for 10 ms: the 100 changes count as 10 ms
    expect(value(`apiserver_flowcontrol_demand_seats_count{priority_level="pl"}`)).toBe(100 * MS);
    expect(value(`apiserver_flowcontrol_demand_seats_sum{priority_level="pl"}`)).toBeCloseTo(0.5 * 30 * MS + 1.5 * 10 * MS, -3);
    const seats = (le: string) => value(`apiserver_flowcontrol_priority_level_seat_utilization_bucket{le="${le}",phase="executing",priority_level="pl"}`);
    expect(seats("0")).toBe(60 * MS);
    expect(seats("0.5") - seats("0.4")).toBe(40 * MS);
  });
});
