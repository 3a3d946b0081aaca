/**
 * The audit metrics with the platform's names: `apiserver_audit_event_total` (events
 * generated and sent to the backends), `apiserver_audit_error_total{plugin}` (events
 * lost: `log` and `webhook` failed writes and sends, `buffered` a full batch buffer,
 * `truncate` events too large), `apiserver_audit_level_total{level}` (requests
 * by the policy's level) and `apiserver_audit_requests_rejected_total`.
 */
import type { MetricsRegistry } from "../../../shared/observability/metrics.ts";
import type { AuditLevel } from "./policy.ts";

export interface AuditMetrics {
  observeEvent(): void;
  observeLevel(level: AuditLevel): void;
  /** `count` events of `plugin` (log, webhook, buffered, truncate) were lost. */
  observeErrors(plugin: string, count: number): void;
  /** A request failed because its audit event could not be stored (blocking-strict). */
  observeRejected(): void;
}

export const NO_AUDIT_METRICS: AuditMetrics = { observeEvent() {}, observeLevel() {}, observeErrors() {}, observeRejected() {} };

export function declareAuditMetrics(m: MetricsRegistry): AuditMetrics {
  const events = m.counter({ name: "apiserver_audit_event_total", help: "Counter of audit events generated and sent to the audit backend.", stabilityLevel: "ALPHA" });
  const errors = m.counter({ name: "apiserver_audit_error_total", help: "Counter of audit events that failed to be audited properly. Plugin identifies the plugin affected by the error.", labelNames: ["plugin"], stabilityLevel: "ALPHA" });
  const levels = m.counter({ name: "apiserver_audit_level_total", help: "Counter of policy levels for audit events (1 per request).", labelNames: ["level"], stabilityLevel: "ALPHA" });
  const rejected = m.counter({ name: "apiserver_audit_requests_rejected_total", help: "Counter of apiserver requests rejected due to an error in audit logging backend.", stabilityLevel: "ALPHA" });
  return {
    observeEvent: () => events.inc(),
    observeLevel: (level) => levels.inc({ level }),
    observeErrors: (plugin, count) => errors.inc({ plugin }, count),
    observeRejected: () => rejected.inc(),
  };
}
