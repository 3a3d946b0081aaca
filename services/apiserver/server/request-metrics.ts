/**
 * The platform's request metrics (apiserver_request_total, apiserver_request_duration_seconds,
 * apiserver_current_inflight_requests), recorded with label objects built once per request
 * shape and code and reused: prom-client only reads the objects it is given. The shapes
 * kept are capped (paths of unknown resources are client-chosen); past the cap labels
 * are built per request as before. In-flight gauges are written only when a count changed.
 */
import type { ApiserverMetrics } from "../../../shared/observability/metrics.ts";
import type { RequestInfo } from "../endpoints/request-info.ts";

/** Request verbs as the platform's metrics spell them. */
const METRIC_VERBS: Readonly<Record<string, string>> = { create: "POST", update: "PUT", patch: "PATCH", delete: "DELETE", deletecollection: "DELETE", get: "GET", list: "LIST", watch: "WATCH" };

const MAX_SHAPES = 2048;

type Labels = Readonly<Record<"verb" | "group" | "version" | "resource" | "subresource" | "scope" | "component", string>>;

interface Shape {
  labels: Labels;
  withCode: Map<number, Readonly<Labels & { code: string }>>;
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
      shape = { labels: labelsOf(info), withCode: new Map() };
      if (this.shapes.size < MAX_SHAPES) this.shapes.set(key, shape);
    }
    return shape;
  }

  /** `terminated`: the server ended the request in self-defense (in-flight limit, deadline). */
  record(info: RequestInfo, code: number, seconds: number, inflight: { readOnly: number; mutating: number }, terminated = false): void {
    const shape = this.shape(info);
    let withCode = shape.withCode.get(code);
    if (!withCode) {
      withCode = { ...shape.labels, code: String(code) };
      shape.withCode.set(code, withCode);
    }
    this.m.requestTotal.inc(withCode);
    if (terminated) this.m.requestTerminations.inc(withCode);
    if (info.verb !== "watch") this.m.requestDuration.observe(shape.labels, seconds);
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
