/**
 * The apiserver's command line, assembled from what each subsystem contributes (the
 * run-options pattern): the generic server flags below, then authentication,
 * authorization and admission, each with its own table, completion and validation.
 * `--help` prints every section; a flag shared by two subsystems (`--client-ca-file`,
 * `--tls-private-key-file`) is one flag read by both.
 */
import { mergeSections, parseFlagSet, type FlagSection, type FlagSpec, type FlagValues } from "../../../shared/cli/flags.ts";
import { getProfile } from "../../../shared/platform/index.ts";
import { ADMISSION_FLAGS } from "../admission/options.ts";
import { AGGREGATOR_FLAGS } from "../aggregator/options.ts";
import { AUDIT_FLAGS } from "../audit/options.ts";
import { ENCRYPTION_FLAGS } from "../storage/encryption/options.ts";
import { DEBUG_FLAGS } from "./debug-routes.ts";
import { AUTHENTICATION_FLAG_SPECS, authenticationOptionsFrom, type AuthenticationOptions } from "../authn/options.ts";
import { AUTHORIZATION_FLAG_SPECS, authorizationFlagsFrom, type AuthorizationFlags } from "../authz/options.ts";
import { VERSIONING_FLAGS } from "./version-options.ts";
import { KUBELET_CLIENT_FLAGS } from "../endpoints/handlers/kubelet-client.ts";
import { SERVICE_NETWORK_FLAGS } from "../registry/service-options.ts";
import { STORE_CLIENT_TLS_FLAGS } from "../storage/store-tls-options.ts";

export const APISERVER_FLAGS: Record<string, FlagSpec> = {
  profile: { kind: "string", default: "plat", help: "naming profile: plat or kubernetes" },
  "data-dir": { kind: "string", default: ".plat", help: "embedded mode: store data, certificates and the admin client configuration" },
  "bind-address": { kind: "string", default: "127.0.0.1", help: "address to serve HTTPS on" },
  "secure-port": { kind: "number", default: 6443, help: "HTTPS port (0 picks a free one)" },
  "store-endpoints": { kind: "list", help: "store gRPC endpoints (host:port); required by a replica (services/apiserver/main.ts); empty in the single-process default (npm start) runs the embedded single-node store" },
  "storage-backend": { kind: "string", default: "etcd3", help: "storage backend: etcd3 (our store and a real etcd cluster both serve the etcd v3 API)" },
  "etcd-servers": { kind: "list", help: "etcd v3 servers (scheme://host:port or host:port) of a real etcd cluster, as --store-endpoints" },
  "etcd-prefix": { kind: "string", default: "/registry", help: "the prefix to prepend to all resource paths in the store" },
  "redis-url": { kind: "string", help: "Redis URL of the revision stream (redis://, rediss:// or redis+sentinel://host:port,host:port/master); without it the feed is the store's Watch" },
  "revision-stream": { kind: "string", default: "revisions", help: "name of the revision stream" },
  "tls-cert-file": { kind: "string", help: "serving certificate (default: generated under the data dir)" },
  "tls-private-key-file": { kind: "string", help: "serving key" },
  "client-ca-file": { kind: "string", help: "CA bundle for client certificates" },
  "max-request-bytes": { kind: "number", default: 3 * 1024 * 1024, help: "largest request body accepted (413 beyond)" },
  "max-requests-inflight": { kind: "number", default: 400, help: "read-only requests in flight (429 beyond)" },
  "max-mutating-requests-inflight": { kind: "number", default: 200, help: "mutating requests in flight (429 beyond)" },
  "enable-priority-and-fairness": { kind: "boolean", default: true, help: "If true, replace the max-in-flight handler with an enhanced one that queues and dispatches with priority and fairness" },
  "request-timeout": { kind: "duration", default: 60_000, help: "deadline of a request that is not long-running, body reading included (504 beyond)" },
  "tls-min-version": { kind: "string", default: "VersionTLS12", help: "minimum TLS version: VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13" },
  "tls-cipher-suites": { kind: "list", help: "TLS 1.2 cipher suites by IANA name (TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,...); default: the secure set" },
  "etcd-compaction-interval": { kind: "duration", default: 5 * 60 * 1000, help: "store compaction period (0 disables)" },
  "livez-grace-period": { kind: "duration", default: 0, help: "livez reports ok for this long after start" },
  "shutdown-delay-duration": { kind: "duration", default: 0, help: "readyz fails this long before the server stops" },
  "shutdown-send-retry-after": { kind: "boolean", default: false, help: "after the shutdown delay, keep listening until in-flight requests drain and answer new ones 429 with Retry-After and Connection: close" },
  "shutdown-watch-termination-grace-period": { kind: "duration", default: 0, help: "at shutdown, end active watches cleanly and wait this long for them to drain (0: they are cut)" },
  "watch-history-window": { kind: "duration", default: 5 * 60 * 1000, help: "watch history kept by the cache" },
  "event-ttl": { kind: "duration", default: 60 * 60 * 1000, help: "how long an Event is kept after its last write (whole seconds; the store deletes it then)" },
  "lease-reuse-duration-seconds": { kind: "number", default: 60, help: "longest time in seconds one store lease serves expiring objects (Events); smaller values put fewer objects on a lease at the cost of more lease grants" },
  help: { kind: "boolean", default: false, help: "print the flags" },
};

/** Every flag section of the apiserver, in `--help` order. */
export const APISERVER_FLAG_SECTIONS: readonly FlagSection[] = [
  { title: "Generic", flags: APISERVER_FLAGS },
  { title: "Etcd", flags: STORE_CLIENT_TLS_FLAGS },
  { title: "Versions, feature gates and metrics", flags: VERSIONING_FLAGS },
  { title: "Authentication", flags: AUTHENTICATION_FLAG_SPECS },
  { title: "Authorization", flags: AUTHORIZATION_FLAG_SPECS },
  { title: "Admission", flags: ADMISSION_FLAGS },
  { title: "Aggregator", flags: AGGREGATOR_FLAGS },
  { title: "Auditing", flags: AUDIT_FLAGS },
  { title: "Encryption at rest", flags: ENCRYPTION_FLAGS },
  { title: "Debugging", flags: DEBUG_FLAGS },
  { title: "Node agent connections", flags: KUBELET_CLIENT_FLAGS },
  { title: "Service network", flags: SERVICE_NETWORK_FLAGS },
];

/** Every flag the apiserver accepts (the union of its sections). */
export const ALL_APISERVER_FLAGS: Record<string, FlagSpec> = mergeSections(APISERVER_FLAG_SECTIONS);

export interface ApiserverCommandLine {
  /** Every flag's value (defaults filled in); the admission flags are read from here. */
  flags: FlagValues;
  authentication: AuthenticationOptions;
  authorization: AuthorizationFlags;
}

/**
 * Parses a whole command line (unknown flags and bad values throw a FlagError naming
 * the flag) and completes each subsystem's options; the profile is checked here, the
 * combinations later by each subsystem's validation (after the embedded defaults).
 */
export function parseApiserverCommandLine(argv: readonly string[]): ApiserverCommandLine {
  const parsed = parseFlagSet(argv, ALL_APISERVER_FLAGS);
  getProfile(String(parsed.values.profile));
  return { flags: parsed.values, authentication: authenticationOptionsFrom(parsed), authorization: authorizationFlagsFrom(parsed) };
}
