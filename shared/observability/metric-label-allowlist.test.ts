import { Counter, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { allowedLabels, constrainLabels, parseAllowMetricLabels } from "./metric-label-allowlist.ts";

describe("--allow-metric-labels", () => {
  it("parses one pair per occurrence and several CSV-quoted pairs in one", () => {
    const list = parseAllowMetricLabels(["apiserver_request_total,verb='GET,LIST'", `"m1,l1=a,b","m2,l2=c"`]);
    expect([...(list.get("apiserver_request_total")?.get("verb") ?? [])]).toEqual(["GET", "LIST"]);
    expect([...(list.get("m1")?.get("l1") ?? [])]).toEqual(["a", "b"]);
    expect([...(list.get("m2")?.get("l2") ?? [])]).toEqual(["c"]);
  });

  it.each([
    ["no-equals", "no-equals must be formatted as key=value"],
    ["metriconly=a", 'invalid --allow-metric-labels key "metriconly"'],
  ])("refuses %s", (entry, message) => {
    expect(() => parseAllowMetricLabels([entry])).toThrow(message);
  });

  it.each([
    [{ verb: "GET", code: "200" }, { verb: "GET", code: "200" }],
    [{ verb: "PATCH", code: "200" }, { verb: "unexpected", code: "200" }],
    [{ code: "500" }, { code: "500" }],
  ])("replaces values outside the list: %j → %j", (input, output) => {
    expect(allowedLabels(input, new Map([["verb", new Set(["GET", "LIST"])]]))).toEqual(output);
  });

  it("a constrained counter records unexpected values under 'unexpected', by object and positionally", async () => {
    const registry = new Registry();
    const c = constrainLabels(new Counter({ name: "x_total", help: "x", labelNames: ["verb"], registers: [registry] }), ["verb"], new Map([["verb", new Set(["GET"])]]));
    c.inc({ verb: "GET" });
    c.inc({ verb: "DELETE" });
    c.labels("PUT").inc(2);
    const text = await registry.metrics();
    expect(text).toContain('x_total{verb="GET"} 1');
    expect(text).toContain('x_total{verb="unexpected"} 3');
    expect(text).not.toContain("DELETE");
  });
});
