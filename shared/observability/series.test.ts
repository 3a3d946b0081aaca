import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { parseAllowMetricLabels } from "./metric-label-allowlist.ts";
import { MetricsRegistry } from "./metrics.ts";
import { SeriesCounter, SeriesGauge, SeriesHistogram, seriesByValues } from "./series.ts";

const NAMES = ["verb", "code"] as const;
type L = (typeof NAMES)[number];
const BUCKETS = [0.01, 0.1, 1];

/** A label object that counts how often its values are read. */
function countingLabels(values: Record<L, string>): { labels: Record<L, string>; reads: () => number } {
  let reads = 0;
  const labels = {} as Record<L, string>;
  for (const n of NAMES) {
    Object.defineProperty(labels, n, {
      enumerable: true,
      get: () => {
        reads++;
        return values[n];
      },
    });
  }
  return { labels, reads: () => reads };
}

describe("held series", () => {
  it("a counter's series exports what prom-client's inc exports for the same increments, added to it on a shared tuple", async () => {
    const ours = new Registry();
    const plain = new Registry();
    const c = new SeriesCounter<L>({ name: "demo_total", help: "D.", labelNames: [...NAMES], registers: [ours] });
    const p = new Counter<L>({ name: "demo_total", help: "D.", labelNames: [...NAMES], registers: [plain] });
    const get200 = c.series({ verb: "GET", code: "200" });
    for (let i = 0; i < 5; i++) get200.inc();
    get200.inc(2.5);
    c.inc({ verb: "GET", code: "200" });
    c.series({ code: "404", verb: "GET" }).inc();
    for (let i = 0; i < 5; i++) p.inc({ verb: "GET", code: "200" });
    p.inc({ verb: "GET", code: "200" }, 2.5);
    p.inc({ verb: "GET", code: "200" });
    p.inc({ code: "404", verb: "GET" });
    expect(await ours.metrics()).toBe(await plain.metrics());
    expect(await ours.metrics()).toContain('demo_total{verb="GET",code="200"} 8.5');
    // A second export does not count the flushed amounts again.
    expect(await ours.metrics()).toBe(await plain.metrics());
  });

  it("a histogram's series exports what prom-client's observe exports, merged with it on a shared tuple", async () => {
    const ours = new Registry();
    const plain = new Registry();
    const h = new SeriesHistogram<L>({ name: "demo_seconds", help: "H.", labelNames: [...NAMES], buckets: BUCKETS, registers: [ours] });
    const p = new Histogram<L>({ name: "demo_seconds", help: "H.", labelNames: [...NAMES], buckets: BUCKETS, registers: [plain] });
    const values = [0.001, 0.01, 0.05, 0.1, 0.5, 1, 3, 0.2];
    const s = h.series({ verb: "GET", code: "200" });
    for (const v of values) {
      s.observe(v);
      p.observe({ verb: "GET", code: "200" }, v);
    }
    h.observe({ verb: "GET", code: "200" }, 0.02);
    p.observe({ verb: "GET", code: "200" }, 0.02);
    h.observe({ verb: "LIST", code: "200" }, 0.3);
    p.observe({ verb: "LIST", code: "200" }, 0.3);
    h.series({ verb: "PUT", code: "409" }).observe(7);
    p.observe({ verb: "PUT", code: "409" }, 7);
    const text = await ours.metrics();
    expect(text).toBe(await plain.metrics());
    expect(text).toContain('demo_seconds_bucket{le="0.1",verb="GET",code="200"} 5');
    expect(text).toContain('demo_seconds_count{verb="GET",code="200"} 9');
    expect((await h.get()).values).toEqual((await p.get()).values);
  });

  it("a gauge's series exports what prom-client's inc and dec export, a tuple that sums to zero included", async () => {
    const ours = new Registry();
    const plain = new Registry();
    const g = new SeriesGauge<L>({ name: "demo_current", help: "G.", labelNames: [...NAMES], registers: [ours] });
    const p = new Gauge<L>({ name: "demo_current", help: "G.", labelNames: [...NAMES], registers: [plain] });
    const get = g.series({ verb: "GET", code: "200" });
    for (let i = 0; i < 5; i++) get.inc();
    get.dec(2);
    get.inc(0.5);
    g.inc({ verb: "GET", code: "200" }, 3);
    const zero = g.series({ code: "404", verb: "GET" });
    zero.inc(2);
    zero.dec(2);
    for (let i = 0; i < 5; i++) p.inc({ verb: "GET", code: "200" });
    p.dec({ verb: "GET", code: "200" }, 2);
    p.inc({ verb: "GET", code: "200" }, 0.5);
    p.inc({ verb: "GET", code: "200" }, 3);
    p.inc({ code: "404", verb: "GET" }, 0);
    expect(await ours.metrics()).toBe(await plain.metrics());
    expect(await ours.metrics()).toContain('demo_current{verb="GET",code="200"} 6.5');
    expect(await ours.metrics()).toContain('demo_current{code="404",verb="GET"} 0');
    // A second export does not add the flushed amounts again.
    expect(await ours.metrics()).toBe(await plain.metrics());
    // A set replaces what was pending for its tuple; later deltas add to it.
    get.inc(10);
    g.set({ verb: "GET", code: "200" }, 1);
    get.dec();
    expect(await ours.metrics()).toContain('demo_current{verb="GET",code="200"} 0');
    get.inc();
    g.reset();
    expect(await ours.metrics()).not.toContain('verb="GET"');
    get.inc();
    g.remove("GET", "200");
    expect(await ours.metrics()).not.toContain('verb="GET"');
    expect(() => get.inc(Number.POSITIVE_INFINITY)).toThrow(/not a valid number/);
  });

  it("observing through a held series reads no label object", () => {
    const h = new SeriesHistogram<L>({ name: "demo_seconds", help: "H.", labelNames: [...NAMES], buckets: BUCKETS, registers: [] });
    const c = new SeriesCounter<L>({ name: "demo_total", help: "D.", labelNames: [...NAMES], registers: [] });
    const hl = countingLabels({ verb: "GET", code: "200" });
    const cl = countingLabels({ verb: "GET", code: "200" });
    const hs = h.series(hl.labels);
    const cs = c.series(cl.labels);
    const afterCreate = [hl.reads(), cl.reads()];
    for (let i = 0; i < 100; i++) {
      hs.observe(0.05);
      cs.inc();
    }
    expect([hl.reads(), cl.reads()]).toEqual(afterCreate);
    expect(h.series({ verb: "GET", code: "200" })).toBe(hs);
    expect(c.series({ code: "200", verb: "GET" })).toBe(cs);
  });

  it("a held series stays valid across reset and remove, counting again from zero", async () => {
    const reg = new Registry();
    const h = new SeriesHistogram<L>({ name: "demo_seconds", help: "H.", labelNames: [...NAMES], buckets: BUCKETS, registers: [reg] });
    const c = new SeriesCounter<L>({ name: "demo_total", help: "D.", labelNames: [...NAMES], registers: [reg] });
    const hs = h.series({ verb: "GET", code: "200" });
    const cs = c.series({ verb: "GET", code: "200" });
    hs.observe(0.5);
    cs.inc(3);
    h.reset();
    c.reset();
    expect(await reg.metrics()).not.toContain('verb="GET"');
    hs.observe(0.5);
    cs.inc();
    expect(await reg.metrics()).toContain('demo_seconds_count{verb="GET",code="200"} 1');
    expect(await reg.metrics()).toContain('demo_total{verb="GET",code="200"} 1');
    h.remove({ verb: "GET", code: "200" });
    c.remove("GET", "200");
    expect(await reg.metrics()).not.toContain('verb="GET"');
  });

  it("refuses bad values and unknown label names", () => {
    const h = new SeriesHistogram<L>({ name: "demo_seconds", help: "H.", labelNames: [...NAMES], buckets: BUCKETS, registers: [] });
    const c = new SeriesCounter<L>({ name: "demo_total", help: "D.", labelNames: [...NAMES], registers: [] });
    expect(() => h.series({ verb: "GET", nope: "x" } as never)).toThrow(/nope/);
    expect(() => h.series({ verb: "GET" }).observe(Number.NaN)).toThrow(/not a valid number/);
    expect(() => c.series({ verb: "GET" }).inc(-1)).toThrow(/not a valid number/);
  });

  it("a series made on a registry's metric takes the allow list's replacement once", async () => {
    const m = new MetricsRegistry({ currentVersion: "1.35", allowMetricLabels: parseAllowMetricLabels(["demo_total,verb='GET'"]) });
    const c = m.counter({ name: "demo_total", help: "D.", labelNames: ["verb", "code"] });
    c.series({ verb: "POST", code: "201" }).inc();
    c.series({ verb: "GET", code: "200" }).inc();
    const text = await m.text();
    expect(text).toContain('demo_total{verb="unexpected",code="201"} 1');
    expect(text).toContain('demo_total{verb="GET",code="200"} 1');
  });
});

describe("seriesByValues", () => {
  it("makes one series per tuple of values and hands the same one back", () => {
    const made: string[][] = [];
    const lookup = seriesByValues((a, b) => {
      made.push([a, b]);
      return { a, b };
    });
    const first = lookup("x", "true");
    expect(lookup("x", "true")).toBe(first);
    expect(lookup("x", "false")).not.toBe(first);
    expect(lookup("y", "true")).toEqual({ a: "y", b: "true" });
    expect(made).toEqual([["x", "true"], ["x", "false"], ["y", "true"]]);
  });

  it("keeps tuples apart whose values would join alike", () => {
    const lookup = seriesByValues((a, b) => ({ a, b }));
    expect(lookup("a b", "c")).not.toBe(lookup("a", "b c"));
    expect(lookup("a", "b c")).toEqual({ a: "a", b: "b c" });
  });
});
