/**
 * The apiserver replica process: a stateless replica of a store cluster
 * (`--store-endpoints`, `--redis-url` for the revision stream), with generated
 * certificates and an admin client configuration under `--data-dir` unless given.
 *
 * `main(hooks)` is also what the single-process default (services/embedded/main.ts)
 * runs, with its own store connector: this file imports no store code.
 */
import { realpathSync } from "node:fs";
import { writeFile, readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { builtinKinds } from "../../shared/api/groups/index.ts";
import { FlagError, usage } from "../../shared/cli/flags.ts";
import { validateAuthenticationOptions } from "./authn/options.ts";
import { validateAuthorizationFlags } from "./authz/options.ts";
import { validateRuntimeConfig } from "./server/runtime-config.ts";
import { versioningOptionsFrom, type VersioningOptions } from "./server/version-options.ts";
import { createLogger } from "../../shared/observability/logger.ts";
import { getProfile } from "../../shared/platform/index.ts";
import { ensurePki, kubeconfigYaml } from "./server/certs.ts";
import { APISERVER_FLAG_SECTIONS, parseApiserverCommandLine } from "./server/options.ts";
import { admissionFlagsFrom } from "./admission/options.ts";
import { aggregatorOptionsFrom } from "./aggregator/options.ts";
import { auditOptionsFrom } from "./audit/options.ts";
import { encryptionOptionsFrom } from "./storage/encryption/options.ts";
import { debugOptionsFrom } from "./server/debug-routes.ts";
import { registerBuiltinPlugins } from "./admission/plugins/index.ts";
import { startReplica } from "./server/replica.ts";
import { kubeletClientFrom } from "./endpoints/handlers/kubelet-client.ts";
import { serviceNetworkFrom } from "./registry/service-options.ts";
import { leaseReuseSecondsFrom } from "./storage/lease-manager.ts";
import { tlsServerOptions } from "./server/tls-options.ts";
import { openStore, type StoreConnector } from "./server/store-connection.ts";
import { storeClientTlsFrom } from "./storage/store-tls-options.ts";

/** What an entry point adds to the replica: its store, and services started once the API serves. */
export interface ApiserverHooks {
  /** Opens the store (default: the remote store cluster of --store-endpoints). */
  connect?: StoreConnector;
  /** Called once the API serves; the returned close runs first at shutdown. */
  onReady?: (ready: ApiserverReady) => Promise<{ close(): Promise<void> } | void>;
}

/** The serving replica as an entry point's extra services see it. */
export interface ApiserverReady {
  /** https://host:port of the API. */
  url: string;
  /** The admin client configuration written under the data dir. */
  kubeconfigPath: string;
  caPem: string;
  admin: { certPem: string; keyPem: string };
  profile: ReturnType<typeof getProfile>;
  dataDir: string;
}

export async function main(hooks: ApiserverHooks = {}, argv: string[] = process.argv.slice(2)): Promise<void> {
  let flags;
  let authentication;
  let authorization;
  let versioning: VersioningOptions;
  try {
    ({ flags, authentication, authorization } = parseApiserverCommandLine(argv));
    versioning = versioningOptionsFrom(flags);
  } catch (err) {
    if (err instanceof FlagError || err instanceof Error) {
      process.stderr.write(`error: ${err.message}\n\n${usage(APISERVER_FLAG_SECTIONS)}\n`);
      process.exit(2);
    }
    throw err;
  }
  if (flags.help) {
    process.stdout.write(`Usage: apiserver [flags]\n\n${usage(APISERVER_FLAG_SECTIONS)}\n`);
    return;
  }
  const log = createLogger({ component: "apiserver" });
  for (const warning of versioning.gates.warnings()) log.warn(warning);
  const profile = getProfile(String(flags.profile));
  validateRuntimeConfig(flags["runtime-config"] as string[], profile); // a bad entry fails start-up with one line
  const dataDir = resolve(String(flags["data-dir"]));
  const bind = String(flags["bind-address"]);
  const pki = await ensurePki(dataDir, { profile });
  const tls = {
    cert: flags["tls-cert-file"] ? await readFile(String(flags["tls-cert-file"]), "utf8") : pki.serving.certPem,
    key: flags["tls-private-key-file"] ? await readFile(String(flags["tls-private-key-file"]), "utf8") : pki.serving.keyPem,
    clientCa: flags["client-ca-file"] ? await readFile(String(flags["client-ca-file"]), "utf8") : pki.ca.certPem,
    minVersion: String(flags["tls-min-version"]),
    cipherSuites: flags["tls-cipher-suites"] as string[],
  };
  tlsServerOptions(tls); // a bad TLS flag is a start-up error before anything starts
  // The embedded default authenticates client certificates of its own CA and service
  // account tokens signed with its own key, and authorizes with Node,RBAC.
  authentication.clientCaFile ??= flags["client-ca-file"] ? String(flags["client-ca-file"]) : pki.paths.caCert;
  if (!authentication.serviceAccountSigningKeyFile) authentication.serviceAccountSigningKeyFile = pki.paths.serviceAccountKey;
  if (authentication.serviceAccountKeyFiles.length === 0) authentication.serviceAccountKeyFiles.push(pki.paths.serviceAccountPub);
  if (authentication.serviceAccountIssuers.length === 0) authentication.serviceAccountIssuers.push(`https://${profile.apiServiceName}.default.svc.cluster.local`);
  if (authentication.apiAudiences.length === 0) authentication.apiAudiences.push(...authentication.serviceAccountIssuers);
  if (!authorization.modes && !authorization.configFile) authorization.modes = ["Node", "RBAC"];
  const authnErrors = validateAuthenticationOptions(authentication);
  if (authnErrors.length > 0) throw new Error(authnErrors.join("; "));
  validateAuthorizationFlags(authorization);
  // The default authorizes Node,RBAC: NodeRestriction goes with it unless the flags say otherwise.
  const admission = admissionFlagsFrom(flags);
  if (admission.enable.length === 0 && !admission.disable.includes("NodeRestriction")) admission.enable.push("NodeRestriction");
  const aggregator = await aggregatorOptionsFrom(flags, authentication);
  const auditOptions = auditOptionsFrom(flags);
  const encryption = encryptionOptionsFrom(flags);

  const store = await (hooks.connect ?? openStore)({
    dataDir,
    endpoints: [...(flags["store-endpoints"] as string[]), ...(flags["etcd-servers"] as string[])],
    storageBackend: String(flags["storage-backend"]),
    etcdPrefix: String(flags["etcd-prefix"]),
    redisUrl: flags["redis-url"] as string | undefined,
    tls: storeClientTlsFrom(flags),
    stream: String(flags["revision-stream"]),
    log: (level, msg, fields) => log[level](fields ?? {}, msg),
  });
  const replica = await startReplica({
    profile,
    kinds: builtinKinds(profile),
    kv: store.kv,
    feed: store.feed,
    tls,
    kubeletClient: await kubeletClientFrom(flags),
    serviceNetwork: serviceNetworkFrom(flags),
    eventTtlMs: Number(flags["event-ttl"]),
    leaseReuseDurationSeconds: leaseReuseSecondsFrom(flags),
    host: bind,
    port: Number(flags["secure-port"]),
    maxBodyBytes: Number(flags["max-request-bytes"]),
    maxRequestsInFlight: Number(flags["max-requests-inflight"]),
    maxMutatingRequestsInFlight: Number(flags["max-mutating-requests-inflight"]),
    requestTimeoutMs: Number(flags["request-timeout"]),
    enablePriorityAndFairness: flags["enable-priority-and-fairness"] !== false,
    compactIntervalMs: Number(flags["etcd-compaction-interval"]),
    livezGracePeriodMs: Number(flags["livez-grace-period"]),
    shutdownDelayMs: Number(flags["shutdown-delay-duration"]),
    shutdownSendRetryAfter: flags["shutdown-send-retry-after"] === true,
    shutdownWatchTerminationGracePeriodMs: Number(flags["shutdown-watch-termination-grace-period"]),
    watchHistoryWindowMs: Number(flags["watch-history-window"]),
    security: { authentication, authorization },
    admission,
    registerAdmissionPlugins: registerBuiltinPlugins,
    aggregator,
    auditOptions,
    encryption,
    debug: debugOptionsFrom(flags),
    gates: versioning.gates,
    effectiveVersion: versioning.effectiveVersion,
    metricsOptions: versioning.metrics,
    runtimeConfig: versioning.runtimeConfig,
    log: (level, msg, fields) => {
      // Request lines stay out of the process log; the shutdown steps are logged.
      if (level !== "info" || msg.startsWith("[graceful-termination]")) log[level](fields, msg);
    },
  });
  const kubeconfigPath = join(dataDir, "admin.kubeconfig");
  const server = `https://${bind}:${replica.port}`;
  await writeFile(
    kubeconfigPath,
    kubeconfigYaml({ server, caPem: pki.ca.certPem, certPem: pki.admin.certPem, keyPem: pki.admin.keyPem, user: "admin", clusterName: "local", contextName: "admin@local" }),
    { mode: 0o600 },
  );
  log.info({ server, kubeconfig: kubeconfigPath, profile: profile.id, store: store.description }, "apiserver ready");
  process.stdout.write(
    [
      `API server listening on ${server} (profile ${profile.id}, ${store.description})`,
      `Admin client configuration: ${kubeconfigPath}`,
      `Try: kubectl --kubeconfig ${kubeconfigPath} get namespaces   (with --profile kubernetes)`,
      `     curl --cacert ${pki.paths.caCert} --cert ${pki.paths.adminCert} --key ${pki.paths.adminKey} ${server}/api/v1/namespaces`,
      "",
    ].join("\n"),
  );
  const extra = await hooks.onReady?.({ url: server, kubeconfigPath, caPem: pki.ca.certPem, admin: { certPem: pki.admin.certPem, keyPem: pki.admin.keyPem }, profile, dataDir });
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "shutting down");
    if (extra) await extra.close();
    await replica.close();
    await store.close();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}

/** Whether this module is the process's entry point (not imported by another entry). */
function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  main().catch((err: unknown) => {
    process.stderr.write(`apiserver: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
