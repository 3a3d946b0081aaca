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
