import { describe, expect, it } from "vitest";
import {
  annotatedHelp,
  declareApiserverMetrics,
  isHidden,
  MetricsRegistry,
  parseMinorVersion,
  validateShowHiddenMetricsVersion,
  type StabilityLevel,
} from "./metrics.ts";

describe("help text and hiding", () => {
  it("prefixes the stability class and deprecation", () => {
    expect(annotatedHelp("Number of x.", "STABLE")).toBe("[STABLE] Number of x.");
    expect(annotatedHelp("Number of x.", "ALPHA", "1.32")).toBe("[ALPHA] (Deprecated since 1.32) Number of x.");
  });

  const cases: Array<[StabilityLevel, string | undefined, string, boolean]> = [
    ["STABLE", undefined, "1.35", false],
    ["STABLE", "1.33", "1.35", false],
    ["STABLE", "1.32", "1.35", true],
    ["STABLE", "1.30", "1.35", true],
    ["BETA", "1.35", "1.35", false],
    ["BETA", "1.34", "1.35", true],
    ["ALPHA", "1.35", "1.35", true],
    ["STABLE", "1.36", "1.35", false],
    ["STABLE", "v1.32.4", "1.35.0", true],
  ];
  it.each(cases)("%s deprecated in %s, running %s → hidden %s", (level, dep, cur, hidden) => {
    expect(isHidden(level, dep, cur)).toBe(hidden);
  });

  it("parses versions", () => {
    expect(parseMinorVersion("v1.35.2-alpha.1")).toEqual({ major: 1, minor: 35 });
    expect(() => parseMinorVersion("1")).toThrow(/invalid version/);
  });

  it("accepts only the previous release for show-hidden", () => {
    expect(() => validateShowHiddenMetricsVersion("1.34", "1.35")).not.toThrow();
    expect(() => validateShowHiddenMetricsVersion("1.33", "1.35")).toThrow("--show-hidden-metrics-for-version must be omitted or have the value '1.34'");
    expect(() => new MetricsRegistry({ currentVersion: "1.35", showHiddenMetricsForVersion: "1.35" })).toThrow(/1\.34/);
  });
});

describe("MetricsRegistry", () => {
  it("registers visible metrics with annotated help", async () => {
    const m = new MetricsRegistry({ currentVersion: "1.35" });
    const c = m.counter({ name: "demo_total", help: "Demo counter.", labelNames: ["code"], stabilityLevel: "BETA" });
    c.inc({ code: "200" });
    c.inc({ code: "200" });
    const text = await m.text();
    expect(text).toContain("# HELP demo_total [BETA] Demo counter.");
    expect(text).toContain("# TYPE demo_total counter");
    expect(text).toContain('demo_total{code="200"} 2');
    expect(m.stabilityOf("demo_total")).toBe("BETA");
    expect(m.contentType).toMatch(/^text\/plain/);
  });

  it("defaults to ALPHA", async () => {
    const m = new MetricsRegistry({ currentVersion: "1.35" });
    m.gauge({ name: "demo_gauge", help: "G." }).set(3);
    expect(await m.text()).toContain("# HELP demo_gauge [ALPHA] G.");
  });

  it("hides metrics past their window but keeps them usable", async () => {
    const deprecated: string[] = [];
    const m = new MetricsRegistry({ currentVersion: "1.35", onDeprecated: (n, v) => deprecated.push(`${n}@${v}`) });
    const old = m.counter({ name: "old_total", help: "Old.", stabilityLevel: "STABLE", deprecatedVersion: "1.32" });
    const fresh = m.counter({ name: "fresh_total", help: "Fresh.", stabilityLevel: "STABLE", deprecatedVersion: "1.34" });
    old.inc();
    fresh.inc();
    const text = await m.text();
    expect(text).not.toContain("old_total");
    expect(text).toContain("# HELP fresh_total [STABLE] (Deprecated since 1.34) Fresh.");
    expect(m.hiddenMetrics()).toEqual(["old_total"]);
    expect(deprecated).toEqual(["old_total@1.32", "fresh_total@1.34"]);
  });

  it("shows metrics hidden in this release with --show-hidden-metrics-for-version", async () => {
    const m = new MetricsRegistry({ currentVersion: "1.35", showHiddenMetricsForVersion: "1.34" });
    m.counter({ name: "just_hidden_total", help: "H.", stabilityLevel: "STABLE", deprecatedVersion: "1.32" }).inc();
    m.counter({ name: "long_hidden_total", help: "L.", stabilityLevel: "STABLE", deprecatedVersion: "1.31" }).inc();
    const text = await m.text();
    expect(text).toContain("# HELP just_hidden_total [STABLE] (Deprecated since 1.32) H.");
    expect(text).not.toContain("long_hidden_total");
  });

  it("--disabled-metrics never registers a metric, and the bookkeeping metrics count what happened", async () => {
    const m = new MetricsRegistry({ currentVersion: "1.35", disabledMetrics: ["noisy_total", "not_declared_total"] });
    m.counter({ name: "noisy_total", help: "N.", stabilityLevel: "STABLE" }).inc();
    m.counter({ name: "kept_total", help: "K.", stabilityLevel: "STABLE" }).inc();
    m.gauge({ name: "old_gauge", help: "O.", stabilityLevel: "ALPHA", deprecatedVersion: "1.35" }).set(1);
    m.gauge({ name: "late_gauge", help: "L.", stabilityLevel: "BETA", deprecatedVersion: "1.35" }).set(1);
    const text = await m.text();
    expect(text).not.toContain("noisy_total");
    expect(m.disabledMetrics()).toEqual(["noisy_total"]);
    expect(m.hiddenMetrics()).toEqual(["old_gauge"]);
    expect(text).toContain("disabled_metrics_total 2");
    expect(text).toContain("hidden_metrics_total 1");
    // registered_metrics_total, disabled_metrics_total, hidden_metrics_total (BETA) and kept_total (STABLE), late_gauge (BETA, deprecated)
    expect(text).toContain('registered_metrics_total{stability_level="BETA",deprecated_version=""} 3');
    expect(text).toContain('registered_metrics_total{stability_level="STABLE",deprecated_version=""} 1');
    expect(text).toContain('registered_metrics_total{stability_level="BETA",deprecated_version="1.35"} 1');
    expect(text).toContain("# HELP registered_metrics_total [BETA] ");
  });

  it("rejects duplicate and invalid names", () => {
    const m = new MetricsRegistry({ currentVersion: "1.35" });
    m.counter({ name: "dup_total", help: "D." });
    expect(() => m.gauge({ name: "dup_total", help: "D." })).toThrow(/already declared/);
    expect(() => m.gauge({ name: "bad-name", help: "B." })).toThrow(/invalid metric name/);
  });

  it("histograms use the given buckets", async () => {
    const m = new MetricsRegistry({ currentVersion: "1.35" });
    m.histogram({ name: "demo_seconds", help: "H.", buckets: [0.1, 1] }).observe(0.5);
    const text = await m.text();
    expect(text).toContain('demo_seconds_bucket{le="0.1"} 0');
    expect(text).toContain('demo_seconds_bucket{le="1"} 1');
    expect(text).toContain('demo_seconds_bucket{le="+Inf"} 1');
  });
});

describe("API server metrics", () => {
  it("declares the platform's names, labels and classes", async () => {
    const m = new MetricsRegistry({ currentVersion: "1.35" });
    const am = declareApiserverMetrics(m);
    am.requestTotal.inc({ verb: "LIST", group: "", version: "v1", resource: "pods", subresource: "", scope: "cluster", component: "apiserver", code: "200" });
    am.requestDuration.observe({ verb: "LIST", group: "", version: "v1", resource: "pods", subresource: "", scope: "cluster", component: "apiserver" }, 0.03);
    am.currentInflightRequests.set({ request_kind: "readOnly" }, 2);
    am.requestedDeprecatedApis.set({ group: "batch", version: "v1beta1", resource: "cronjobs", subresource: "", removed_release: "1.25" }, 1);
    am.storageObjects.set({ resource: "pods" }, 7);
    am.etcdRequestDuration.observe({ operation: "get", type: "pods" }, 0.001);
    am.watchEventsTotal.inc({ group: "", version: "v1", resource: "pods" });
    const text = await m.text();
    expect(text).toContain(
      'apiserver_request_total{verb="LIST",group="",version="v1",resource="pods",subresource="",scope="cluster",component="apiserver",code="200"} 1',
    );
    expect(text).toContain("# HELP apiserver_request_total [STABLE] Counter of apiserver requests");
    expect(text).toContain("# TYPE apiserver_request_duration_seconds histogram");
    expect(text).toContain("# HELP apiserver_request_duration_seconds [STABLE]");
    expect(text).toContain('apiserver_current_inflight_requests{request_kind="readOnly"} 2');
    expect(text).toContain('apiserver_requested_deprecated_apis{group="batch",version="v1beta1",resource="cronjobs",subresource="",removed_release="1.25"} 1');
    expect(text).toContain('apiserver_storage_objects{resource="pods"} 7');
    expect(text).toContain("# HELP etcd_request_duration_seconds [ALPHA]");
    expect(text).toContain('apiserver_watch_events_total{group="",version="v1",resource="pods"} 1');
    expect(m.stabilityOf("apiserver_storage_objects")).toBe("STABLE");
  });
});
