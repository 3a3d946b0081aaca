/**
 * Conversion webhook metrics with the platform's name and labels:
 * `apiserver_crd_webhook_conversion_duration_seconds` by CRD, source and target group
 * version, and whether the call succeeded.
 */
import type { MetricsRegistry } from "../../../shared/observability/metrics.ts";

export interface ConversionMetrics {
  observe(crdName: string, fromVersion: string, toVersion: string, succeeded: boolean, seconds: number): void;
}

/** 1 ms doubling 15 times, as the platform's buckets. */
const BUCKETS = Array.from({ length: 15 }, (_, i) => 0.001 * 2 ** i);

export function declareConversionMetrics(m: MetricsRegistry): ConversionMetrics {
  const duration = m.histogram({
    name: "apiserver_crd_webhook_conversion_duration_seconds",
    help: "CRD webhook conversion duration in seconds",
    labelNames: ["crd_name", "from_version", "to_version", "succeeded"],
    stabilityLevel: "ALPHA",
    buckets: BUCKETS,
  });
  return {
    observe: (crdName, fromVersion, toVersion, succeeded, seconds) =>
      duration.observe({ crd_name: crdName, from_version: fromVersion, to_version: toVersion, succeeded: succeeded ? "true" : "false" }, seconds),
  };
}
