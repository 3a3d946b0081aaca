import { describe, expect, it } from "vitest";
import { declareApiserverMetrics, MetricsRegistry } from "../../../shared/observability/metrics.ts";
import { parseRequestInfo } from "../endpoints/request-info.ts";
import { RequestMetrics } from "./request-metrics.ts";

function setup() {
  const registry = new MetricsRegistry({ currentVersion: "1.35", defaultMetrics: false });
  return { registry, metrics: new RequestMetrics(declareApiserverMetrics(registry)) };
}

const idle = { readOnly: 0, mutating: 0 };

describe("RequestMetrics", () => {
  it("counts each shape and code under its own labels when label sets are reused", async () => {
    const { registry, metrics } = setup();
    const get = parseRequestInfo("GET", "/api/v1/namespaces/default/configmaps/a");
    const otherName = parseRequestInfo("GET", "/api/v1/namespaces/default/configmaps/b");
    const list = parseRequestInfo("GET", "/api/v1/namespaces/default/configmaps");
    const clusterList = parseRequestInfo("GET", "/api/v1/configmaps");
    const watch = parseRequestInfo("GET", "/api/v1/namespaces/default/configmaps?watch=1");
    metrics.record(get, 200, 0.001, idle);
    metrics.record(otherName, 200, 0.001, idle);
    metrics.record(get, 404, 0.001, idle);
    metrics.record(list, 200, 0.002, idle);
    metrics.record(clusterList, 200, 0.002, idle);
    metrics.record(watch, 200, 5, idle);
    metrics.record(parseRequestInfo("GET", "/healthz"), 200, 0.001, idle);
    const text = await registry.text();
    const total = (labels: string) => text.split("\n").find((l) => l.startsWith(`apiserver_request_total{${labels}}`));
    expect(total('verb="GET",group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver",code="200"')).toMatch(/ 2$/);
    expect(total('verb="GET",group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver",code="404"')).toMatch(/ 1$/);
    expect(total('verb="LIST",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver",code="200"')).toMatch(/ 1$/);
    expect(total('verb="LIST",group="",version="v1",resource="configmaps",subresource="",scope="cluster",component="apiserver",code="200"')).toMatch(/ 1$/);
    expect(total('verb="WATCH",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver",code="200"')).toMatch(/ 1$/);
    expect(total('verb="GET",group="",version="",resource="",subresource="",scope="",component="apiserver",code="200"')).toMatch(/ 1$/);
    // Watches are not timed; a GET of one object was, three times.
    expect(text).not.toContain('apiserver_request_duration_seconds_count{verb="WATCH"');
    expect(text).toContain('apiserver_request_duration_seconds_count{verb="GET",group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver"} 3');
  });

  it("records a known shape through its held series: no labelled inc or observe per request", async () => {
    const registry = new MetricsRegistry({ currentVersion: "1.35", defaultMetrics: false });
    const m = declareApiserverMetrics(registry);
    const metrics = new RequestMetrics(m);
    const get = parseRequestInfo("GET", "/api/v1/namespaces/default/configmaps/a");
    metrics.record(get, 200, 0.001, idle);
    metrics.record(get, 429, 0.001, idle, true);
    let labelled = 0;
    /** Counts the labelled calls of a metric method, still doing them. */
    const counted = (target: object, method: "inc" | "observe"): void => {
      const t = target as Record<string, (...a: unknown[]) => void>;
      const original = t[method].bind(target);
      t[method] = (...a: unknown[]) => {
        labelled++;
        original(...a);
      };
    };
    counted(m.requestTotal, "inc");
    counted(m.requestTerminations, "inc");
    counted(m.requestDuration, "observe");
    for (let i = 0; i < 10; i++) metrics.record(get, 200, 0.001, idle);
    metrics.record(get, 429, 0.001, idle, true);
    expect(labelled).toBe(0);
    const text = await registry.text();
    const labels = 'verb="GET",group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver"';
    expect(text).toContain(`apiserver_request_total{${labels},code="200"} 11`);
    expect(text).toContain(`apiserver_request_terminations_total{${labels},code="429"} 2`);
    expect(text).not.toContain(`apiserver_request_terminations_total{${labels},code="200"}`);
    expect(text).toContain(`apiserver_request_duration_seconds_count{${labels}} 13`);
  });

  it("follows the in-flight counts", async () => {
    const { registry, metrics } = setup();
    const info = parseRequestInfo("POST", "/api/v1/namespaces/default/configmaps");
    metrics.record(info, 201, 0.001, { readOnly: 3, mutating: 1 });
    expect(await registry.text()).toContain('apiserver_current_inflight_requests{request_kind="readOnly"} 3');
    metrics.record(info, 201, 0.001, { readOnly: 3, mutating: 0 });
    metrics.record(info, 201, 0.001, { readOnly: 0, mutating: 0 });
    const text = await registry.text();
    expect(text).toContain('apiserver_current_inflight_requests{request_kind="readOnly"} 0');
    expect(text).toContain('apiserver_current_inflight_requests{request_kind="mutating"} 0');
  });
});
