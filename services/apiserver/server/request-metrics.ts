/**
 * The platform's request metrics (apiserver_request_total, apiserver_request_duration_seconds,
 * apiserver_current_inflight_requests), recorded through series held per request shape
 * and code (shared/observability/series.ts): no label object is built, validated or
 * hashed per request. The shapes kept are capped (paths of unknown resources are
 * client-chosen); past the cap a request's series are looked up by its labels each time.
 * In-flight gauges are written only when a count changed.
 */
import type { ApiserverMetrics, CounterSeries, HistogramSeries } from "../../../shared/observability/metrics.ts";
import type { RequestInfo } from "../endpoints/request-info.ts";

/** Request verbs as the platform's metrics spell them. */
const METRIC_VERBS: Readonly<Record<string, string>> = { create: "POST", update: "PUT", patch: "PATCH", delete: "DELETE", deletecollection: "DELETE", get: "GET", list: "LIST", watch: "WATCH" };

const MAX_SHAPES = 2048;

type Labels = Readonly<Record<"verb" | "group" | "version" | "resource" | "subresource" | "scope" | "component", string>>;

interface Shape {
  labels: Labels;
  duration: HistogramSeries;
  withCode: Map<number, CodeSeries>;
}

interface CodeSeries {
  labels: Readonly<Labels & { code: string }>;
  total: CounterSeries;
  /** Made on the first termination: a series per code is exported once made. */
  terminations?: CounterSeries;
}

function labelsOf(info: RequestInfo): Labels {
  // scope: `resource` (one object), `namespace` or `cluster` (collections).
  const scope = !info.isResourceRequest ? "" : info.name ? "resource" : info.namespace ? "namespace" : "cluster";
  return {
    verb: (info.isResourceRequest ? METRIC_VERBS[info.verb] : undefined) ?? info.verb.toUpperCase(),
    group: info.apiGroup,
    version: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    scope,
    component: "apiserver",
  };
}

export class RequestMetrics {
  private readonly shapes = new Map<string, Shape>();
  private readonly lastInflight = { readOnly: -1, mutating: -1 };

  constructor(private readonly m: ApiserverMetrics) {}

  private shape(info: RequestInfo): Shape {
    const key = `${info.isResourceRequest ? "r" : "n"}|${info.verb}|${info.apiGroup}|${info.apiVersion}|${info.resource}|${info.subresource}|${info.name ? "o" : info.namespace ? "n" : "c"}`;
    let shape = this.shapes.get(key);
    if (!shape) {
      const labels = labelsOf(info);
      shape = { labels, duration: this.m.requestDuration.series(labels), withCode: new Map() };
      if (this.shapes.size < MAX_SHAPES) this.shapes.set(key, shape);
    }
    return shape;
  }

  /** `terminated`: the server ended the request in self-defense (in-flight limit, deadline). */
  record(info: RequestInfo, code: number, seconds: number, inflight: { readOnly: number; mutating: number }, terminated = false): void {
    const shape = this.shape(info);
    let withCode = shape.withCode.get(code);
    if (!withCode) {
      const labels = { ...shape.labels, code: String(code) };
      withCode = { labels, total: this.m.requestTotal.series(labels) };
      shape.withCode.set(code, withCode);
    }
    withCode.total.inc();
    if (terminated) (withCode.terminations ??= this.m.requestTerminations.series(withCode.labels)).inc();
    if (info.verb !== "watch") shape.duration.observe(seconds);
    if (inflight.readOnly !== this.lastInflight.readOnly) {
      this.m.currentInflightRequests.set({ request_kind: "readOnly" }, inflight.readOnly);
      this.lastInflight.readOnly = inflight.readOnly;
    }
    if (inflight.mutating !== this.lastInflight.mutating) {
      this.m.currentInflightRequests.set({ request_kind: "mutating" }, inflight.mutating);
      this.lastInflight.mutating = inflight.mutating;
    }
  }
}
