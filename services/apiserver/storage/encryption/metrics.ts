/**
 * Encryption-at-rest metrics with the platform's names:
 * `apiserver_storage_transformation_operations_total{transformation_type, transformer_prefix, status}`,
 * `apiserver_envelope_encryption_kms_operations_latency_seconds{provider_name, method_name, grpc_status_code}`,
 * `apiserver_encryption_config_controller_automatic_reloads_total{status, apiserver_id_hash}` and
 * `apiserver_encryption_config_controller_automatic_reload_last_timestamp_seconds{status, apiserver_id_hash}`.
 */
import type { MetricsRegistry } from "../../../../shared/observability/metrics.ts";
import type { KmsCallObserver } from "./kms.ts";
import { encryptionPrefixRoot, type TransformObserver } from "./transformer.ts";

export interface EncryptionMetrics {
  transform: TransformObserver;
  kmsCall: KmsCallObserver;
  reload(ok: boolean): void;
}

export function declareEncryptionMetrics(m: MetricsRegistry, profileId: string, apiserverIdHash: string): EncryptionMetrics {
  const operations = m.counter({
    name: "apiserver_storage_transformation_operations_total",
    help: "Total number of transformations. Successful transformation will have a status 'OK' and a varied status string when the transformation fails.",
    labelNames: ["transformation_type", "transformer_prefix", "status"],
    stabilityLevel: "ALPHA",
  });
  const kmsLatency = m.histogram({
    name: "apiserver_envelope_encryption_kms_operations_latency_seconds",
    help: "KMS operation duration with gRPC error code status total.",
    labelNames: ["provider_name", "method_name", "grpc_status_code"],
    buckets: [0.0001, 0.0002, 0.0004, 0.0008, 0.0016, 0.0032, 0.0064, 0.0128, 0.0256, 0.0512, 0.1024, 0.2048, 0.4096, 0.8192, 1.6384, 3.2768, 6.5536, 13.1072, 26.2144, 52.4288],
    stabilityLevel: "ALPHA",
  });
  const reloads = m.counter({ name: "apiserver_encryption_config_controller_automatic_reloads_total", help: "Total number of reload successes and failures of encryption configuration split by apiserver identity.", labelNames: ["status", "apiserver_id_hash"], stabilityLevel: "ALPHA" });
  const lastReload = m.gauge({ name: "apiserver_encryption_config_controller_automatic_reload_last_timestamp_seconds", help: "Timestamp of the last successful or failed automatic reload of encryption configuration split by apiserver identity.", labelNames: ["status", "apiserver_id_hash"], stabilityLevel: "ALPHA" });
  const root = encryptionPrefixRoot(profileId);
  const prefixLabel = (kind: string): string => (kind === "identity" ? "identity" : kind === "kms" ? `${root}kms:v2:` : `${root}${kind}:v1:`);
  return {
    transform: (type, kind, ok) => operations.inc({ transformation_type: type, transformer_prefix: prefixLabel(kind), status: ok ? "OK" : "Internal" }),
    kmsCall: (provider, method, code, seconds) => kmsLatency.observe({ provider_name: provider, method_name: `/v2.KeyManagementService/${method}`, grpc_status_code: code }, seconds),
    reload(ok) {
      const status = ok ? "success" : "failure";
      reloads.inc({ status, apiserver_id_hash: apiserverIdHash });
      lastReload.set({ status, apiserver_id_hash: apiserverIdHash }, Date.now() / 1000);
    },
  };
}
