/**
 * The API benchmark's harness at CI size: tiny rounds and sizes, real processes
 * (apiserver, ceiling, load generator, watchers). It asserts that every comparison
 * produced one value a side and round and that the ratio table is printed, never a
 * timing. Pure parts of the harness (ratios, interleaving) are tested by table.
 */
import { describe, expect, it } from "vitest";
import { benchApi, parseBenchOnly } from "./api.ts";
import { alternate, interleave, machineLoad, median, ratioStats } from "./harness.ts";
import { cpuShares, settled, type CpuSample } from "./idle-cpu.ts";

describe("bench harness: ratios and interleaving", () => {
  it.each([
    { a: [2, 4, 6], b: [1, 2, 2], want: { min: 2, median: 2, max: 3 } },
    { a: [1, 1, 1, 1], b: [2, 4, 1, 1], want: { min: 0.25, median: 0.75, max: 1 } },
    { a: [5], b: [10], want: { min: 0.5, median: 0.5, max: 0.5 } },
  ])("ratioStats($a / $b)", ({ a, b, want }) => {
    expect(ratioStats(a, b)).toEqual(want);
  });

  it("ratioStats rejects sides of different lengths", () => {
    expect(() => ratioStats([1, 2], [1])).toThrow();
  });

  it.each([
    { values: [3, 1, 2], want: 2 },
    { values: [4, 1, 2, 3], want: 2.5 },
  ])("median($values) = $want", ({ values, want }) => {
    expect(median(values)).toBe(want);
  });

  it("alternate puts each side first in every other round and keeps each side's results in round order", async () => {
    const order: string[] = [];
    const res = await alternate(
      4,
      async (r) => (order.push(`a${r}`), r),
      async (r) => (order.push(`b${r}`), r * 10),
    );
    expect(order).toEqual(["a0", "b0", "b1", "a1", "a2", "b2", "b3", "a3"]);
    expect(res).toEqual({ a: [0, 1, 2, 3], b: [0, 10, 20, 30] });
    await expect(alternate(2, async () => 1, async () => 2)).rejects.toThrow(/at least 3/);
  });

  it("interleave alternates A and B and refuses fewer than 3 rounds", async () => {
    const order: string[] = [];
    const res = await interleave(
      3,
      async (r) => (order.push(`a${r}`), r),
      async (r) => (order.push(`b${r}`), r * 10),
    );
    expect(order).toEqual(["a0", "b0", "a1", "b1", "a2", "b2"]);
    expect(res).toEqual({ a: [0, 1, 2], b: [0, 10, 20] });
    await expect(interleave(2, async () => 0, async () => 0)).rejects.toThrow(/at least 3/);
  });

  it("machineLoad names the load averages and the cores", () => {
    expect(machineLoad()).toMatch(/^load \d+\.\d\d \d+\.\d\d \d+\.\d\d \(\d+ cores\)$/);
  });
});

describe("bench -- idle: CPU shares of one core", () => {
  it.each<{ a: CpuSample; b: CpuSample; want: Record<string, number> }>([
    { a: { cpu: { s: 10, r: 5 }, atMs: 0 }, b: { cpu: { s: 10.6, r: 5 }, atMs: 60_000 }, want: { s: 0.01, r: 0 } },
    { a: { cpu: { s: 1 }, atMs: 1000 }, b: { cpu: { s: 3 }, atMs: 3000 }, want: { s: 1 } },
    { a: { cpu: { s: 1, gone: 4 }, atMs: 0 }, b: { cpu: { s: 1.5 }, atMs: 10_000 }, want: { s: 0.05 } },
  ])("cpuShares($a → $b)", ({ a, b, want }) => {
    const got = cpuShares(a, b);
    expect(Object.keys(got).sort()).toEqual(Object.keys(want).sort());
    for (const [name, share] of Object.entries(want)) expect(got[name]).toBeCloseTo(share, 9);
  });

  it("cpuShares refuses samples that span no time", () => {
    expect(() => cpuShares({ cpu: {}, atMs: 5 }, { cpu: {}, atMs: 5 })).toThrow();
  });

  it.each<{ shares: Record<string, number>; want: boolean }>([
    { shares: { a: 0.01, b: 0.02 }, want: true },
    { shares: { a: 0.01, b: 0.021 }, want: false },
    { shares: {}, want: true },
  ])("settled($shares, 2 %) = $want", ({ shares, want }) => {
    expect(settled(shares, 0.02)).toBe(want);
  });
});

describe("bench -- api: BENCH_ONLY", () => {
  it.each([
    { value: undefined, want: undefined },
    { value: "", want: undefined },
    { value: "get", want: ["get"] },
    { value: "get, lb,list", want: ["get", "lb", "list"] },
  ])("parseBenchOnly($value)", ({ value, want }) => {
    const got = parseBenchOnly(value);
    expect(got && [...got]).toEqual(want);
  });

  it("refuses a part it does not know", () => {
    expect(() => parseBenchOnly("get,lsit")).toThrow(/unknown part "lsit"/);
  });
});

describe("bench -- api at CI size", () => {
  it("prints the ratio table of every comparison with one value a side and round", async () => {
    let text = "";
    const figures = await benchApi({
      rounds: 3,
      roundMs: 150,
      getClients: 4,
      writeClients: 2,
      listObjects: 20,
      listCalls: 2,
      watchers: 3,
      watchRatePerSec: 20,
      watchWritesPerRound: 4,
      cluster: false,
      write: (t) => (text += t),
    });
    expect(text).toMatch(/^machine before: load /m);
    expect(text).toMatch(/^machine after: load /m);
    expect(text).toContain("per-round ratios of A and B measured interleaved");
    for (const key of ["get_rps", "get_p99", "create_rps", "update_rps", "patch_rps", "apply_rps", "list_json", "list_protobuf_vs_json", "watch_p50", "watch_p99"]) {
      expect(figures[`${key}_rounds`], key).toBe(3);
      for (const stat of ["min", "median", "max"]) expect(Number.isFinite(figures[`${key}_ratio_${stat}`]), `${key}_ratio_${stat}`).toBe(true);
      expect(figures[`${key}_ratio_min`]).toBeLessThanOrEqual(figures[`${key}_ratio_max`]);
    }
    expect(text).toMatch(/GET one ConfigMap req\/s, 4 clients \(apiserver vs bare https/);
    expect(text).toMatch(/LIST 20 protobuf p50 \(protobuf vs JSON/);
    expect(text).toMatch(/offered 20\/s, sent [\d.]+\/s, completed [\d.]+\/s/);
    expect(figures.watch_events_delivered_min).toBe(4 * 3);
    expect(text).not.toMatch(/failed calls/);
  }, 120_000);
});
