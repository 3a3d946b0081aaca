/**
 * The aggregator's metrics, with the platform's names: `aggregator_unavailable_apiservice`
 * (1 while an APIService is unavailable, 0 otherwise, by name) and
 * `aggregator_unavailable_apiservice_total` (times an APIService was marked unavailable,
 * by name and reason).
 */
import type { MetricsRegistry } from "../../../shared/observability/metrics.ts";

export interface AggregatorMetrics {
  /** The Available condition of `name` was computed (`reason` when unavailable). */
  observeAvailability(name: string, available: boolean, reason: string): void;
  /** `name` was marked unavailable (a status write that made it so). */
  observeMarkedUnavailable(name: string, reason: string): void;
  forget(name: string): void;
}

export function declareAggregatorMetrics(m: MetricsRegistry): AggregatorMetrics {
  const unavailable = m.gauge({
    name: "aggregator_unavailable_apiservice",
    help: "Gauge of APIServices which are marked as unavailable broken down by APIService name.",
    labelNames: ["name"],
    stabilityLevel: "ALPHA",
  });
  const unavailableTotal = m.counter({
    name: "aggregator_unavailable_apiservice_total",
    help: "Counter of APIServices which are marked as unavailable broken down by APIService name and reason.",
    labelNames: ["name", "reason"],
    stabilityLevel: "ALPHA",
  });
  return {
    observeAvailability: (name, available) => unavailable.set({ name }, available ? 0 : 1),
    observeMarkedUnavailable: (name, reason) => unavailableTotal.inc({ name, reason }),
    forget: (name) => unavailable.remove({ name }),
  };
}
