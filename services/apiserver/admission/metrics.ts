/**
 * Admission metrics with the platform's names and labels: per plugin
 * (`controller`), per phase (`step`) and per webhook, plus webhook rejections
 * and requests. Observers are optional so the chain runs without a registry.
 */
import { seriesByValues, type MetricsRegistry } from "../../../shared/observability/metrics.ts";

export type StepType = "admit" | "validate";
/** Webhook metrics label mutating webhooks `admit` and validating ones `validating`. */
export type WebhookType = "admit" | "validating";

export interface AdmissionMetrics {
  observeController(name: string, type: StepType, operation: string, rejected: boolean, seconds: number): void;
  observeStep(type: StepType, operation: string, rejected: boolean, seconds: number): void;
  observeWebhook(name: string, type: WebhookType, operation: string, rejected: boolean, seconds: number): void;
  /** `errorType`: calling_webhook_error, apiserver_internal_error or no_error. */
  observeWebhookRejection(name: string, type: WebhookType, operation: string, errorType: string, code: number): void;
  observeWebhookRequest(name: string, type: WebhookType, operation: string, code: number, rejected: boolean): void;
}

const STEP_BUCKETS = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5];
const WEBHOOK_BUCKETS = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25];

export function declareAdmissionMetrics(m: MetricsRegistry): AdmissionMetrics {
  const controller = m.histogram({
    name: "apiserver_admission_controller_admission_duration_seconds",
    help: "Admission controller latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).",
    labelNames: ["name", "type", "operation", "rejected"],
    stabilityLevel: "STABLE",
    buckets: STEP_BUCKETS,
  });
  const step = m.histogram({
    name: "apiserver_admission_step_admission_duration_seconds",
    help: "Admission sub-step latency histogram in seconds, broken out for each operation and API resource and step type (validate or admit).",
    labelNames: ["type", "operation", "rejected"],
    stabilityLevel: "STABLE",
    buckets: STEP_BUCKETS,
  });
  const webhook = m.histogram({
    name: "apiserver_admission_webhook_admission_duration_seconds",
    help: "Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).",
    labelNames: ["name", "type", "operation", "rejected"],
    stabilityLevel: "STABLE",
    buckets: WEBHOOK_BUCKETS,
  });
  const rejections = m.counter({
    name: "apiserver_admission_webhook_rejection_count",
    help: "Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.",
    labelNames: ["name", "type", "operation", "error_type", "rejection_code"],
    stabilityLevel: "ALPHA",
  });
  const requests = m.counter({
    name: "apiserver_admission_webhook_request_total",
    help: "Admission webhook request total, identified by name and broken out for each admission type (validating or mutating) and operation. Additional labels specify whether the request was rejected or not and an HTTP status code. Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.",
    labelNames: ["name", "type", "operation", "code", "rejected"],
    stabilityLevel: "ALPHA",
  });
  // Every write observes each plugin that handles it (20+ per create): through held series, no label object hashed per call.
  const controllers = seriesByValues((name, type, operation, rejected) => controller.series({ name, type, operation, rejected }));
  const steps = seriesByValues((type, operation, rejected) => step.series({ type, operation, rejected }));
  const webhooks = seriesByValues((name, type, operation, rejected) => webhook.series({ name, type, operation, rejected }));
  return {
    observeController: (name, type, operation, rejected, s) => controllers(name, type, operation, String(rejected)).observe(s),
    observeStep: (type, operation, rejected, s) => steps(type, operation, String(rejected)).observe(s),
    observeWebhook: (name, type, operation, rejected, s) => webhooks(name, type, operation, String(rejected)).observe(s),
    observeWebhookRejection: (name, type, operation, errorType, code) =>
      rejections.inc({ name, type, operation, error_type: errorType, rejection_code: String(Math.min(code, 600)) }),
    observeWebhookRequest: (name, type, operation, code, rejected) => requests.inc({ name, type, operation, code: String(Math.min(code, 600)), rejected: String(rejected) }),
  };
}

