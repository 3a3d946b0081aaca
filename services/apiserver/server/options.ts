/** The apiserver's command-line flags (the subset this replica implements) and their defaults. */
import type { FlagSpec } from "../../../shared/cli/flags.ts";

export const APISERVER_FLAGS: Record<string, FlagSpec> = {
  profile: { kind: "string", default: "plat", help: "naming profile: plat or kubernetes" },
  "data-dir": { kind: "string", default: ".plat", help: "embedded mode: store data, certificates and the admin client configuration" },
  "bind-address": { kind: "string", default: "127.0.0.1", help: "address to serve HTTPS on" },
  "secure-port": { kind: "number", default: 6443, help: "HTTPS port (0 picks a free one)" },
  "store-endpoints": { kind: "list", help: "store gRPC endpoints (host:port); empty runs the embedded single-node store" },
  "redis-url": { kind: "string", help: "Redis URL of the revision stream (with --store-endpoints)" },
  "revision-stream": { kind: "string", default: "revisions", help: "name of the revision stream" },
  "tls-cert-file": { kind: "string", help: "serving certificate (default: generated under the data dir)" },
  "tls-private-key-file": { kind: "string", help: "serving key" },
  "client-ca-file": { kind: "string", help: "CA bundle for client certificates" },
  "max-request-bytes": { kind: "number", default: 3 * 1024 * 1024, help: "largest request body accepted (413 beyond)" },
  "max-requests-inflight": { kind: "number", default: 400, help: "read-only requests in flight (429 beyond)" },
  "max-mutating-requests-inflight": { kind: "number", default: 200, help: "mutating requests in flight (429 beyond)" },
  "etcd-compaction-interval": { kind: "duration", default: 5 * 60 * 1000, help: "store compaction period (0 disables)" },
  "livez-grace-period": { kind: "duration", default: 0, help: "livez reports ok for this long after start" },
  "shutdown-delay-duration": { kind: "duration", default: 0, help: "readyz fails this long before the server stops" },
  "watch-history-window": { kind: "duration", default: 5 * 60 * 1000, help: "watch history kept by the cache" },
  "feature-gates": { kind: "list", help: "Gate=true|false pairs" },
  help: { kind: "boolean", default: false, help: "print the flags" },
};
