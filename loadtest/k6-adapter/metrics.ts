/**
 * Metric samples of the k6 adapter, as k6 keeps them: each sample belongs to one
 * metric of one type (trend, rate, counter, gauge) and carries tags; thresholds
 * select samples by metric name and tags and aggregate them by the metric's type.
 * Shared by the VU workers (which record) and the runner (which evaluates).
 */
export type MetricType = "trend" | "rate" | "counter" | "gauge";

export interface Sample {
  metric: string;
  value: number;
  tags: Record<string, string>;
}

/** The metrics k6 itself emits that the adapter records. */
export const BUILTIN_METRICS: Readonly<Record<string, MetricType>> = {
  http_req_duration: "trend",
  http_req_failed: "rate",
  http_reqs: "counter",
  checks: "rate",
  iterations: "counter",
};
