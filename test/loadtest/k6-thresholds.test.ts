/** k6 threshold evaluation of the adapter (loadtest/k6-adapter/thresholds.ts) on tables of samples. */
import { describe, expect, it } from "vitest";
import type { MetricType, Sample } from "../../loadtest/k6-adapter/metrics.ts";
import { evaluateThresholds, parseKey } from "../../loadtest/k6-adapter/thresholds.ts";

const s = (metric: string, value: number, tags: Record<string, string> = {}): Sample => ({ metric, value, tags });
const types = new Map<string, MetricType>([
  ["http_req_duration", "trend"],
  ["http_req_failed", "rate"],
  ["checks", "rate"],
  ["events", "counter"],
  ["depth", "gauge"],
]);
const samples: Sample[] = [
  ...[10, 20, 30, 40, 50, 60, 70, 80, 90, 100].map((v) => s("http_req_duration", v, { op: "get" })),
  s("http_req_duration", 900, { op: "create" }),
  s("http_req_failed", 0, { op: "get" }),
  s("http_req_failed", 1, { op: "create" }),
  s("checks", 1),
  s("checks", 1),
  s("checks", 0),
  s("events", 2),
  s("events", 3),
  s("depth", 7),
  s("depth", 4),
];

describe("k6 thresholds", () => {
  const cases: Array<[string, string, number | undefined, boolean]> = [
    ["http_req_duration{op:get}", "p(95)<100", 95.5, true],
    ["http_req_duration{op:get}", "p(50)<=55", 55, true],
    ["http_req_duration{op:get}", "avg<50", 55, false],
    ["http_req_duration{op:get}", "max<100", 100, false],
    ["http_req_duration{op:get}", "min>=10", 10, true],
    ["http_req_duration{op:get}", "med==55", 55, true],
    ["http_req_duration{op:create}", "p(99)<500", 900, false],
    ["http_req_duration{op:list}", "p(95)<500", undefined, true],
    ["http_req_failed", "rate<0.01", 0.5, false],
    ["http_req_failed{op:get}", "rate<0.01", 0, true],
    ["checks", "rate>0.99", 2 / 3, false],
    ["events", "count>0", 5, true],
    ["events", "count==0", 5, false],
    ["events{op:none}", "count>0", 0, false],
    ["depth", "value<5", 4, true],
  ];
  for (const [key, expression, actual, ok] of cases) {
    it(`${key} ${expression}`, () => {
      const [r] = evaluateThresholds({ [key]: [expression] }, samples, types, 1);
      expect(r.ok).toBe(ok);
      if (actual === undefined) expect(r.actual).toBeUndefined();
      else expect(r.actual).toBeCloseTo(actual, 6);
    });
  }

  it("reads keys with several tag filters", () => {
    expect(parseKey("http_req_duration{op:create, method:POST}")).toEqual({ metric: "http_req_duration", tags: { op: "create", method: "POST" } });
  });

  it("refuses what it cannot read", () => {
    expect(() => evaluateThresholds({ checks: ["rate less than 1"] }, samples, types, 1)).toThrow(/cannot read "rate less than 1"/);
    expect(() => evaluateThresholds({ nothing: ["count>0"] }, samples, types, 1)).toThrow(/no metric nothing/);
    expect(() => evaluateThresholds({ checks: ["p(95)<1"] }, samples, types, 1)).toThrow(/does not apply to a rate metric/);
  });
});
