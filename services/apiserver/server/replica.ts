/**
 * Starts one apiserver replica over a store: storage (direct + watch cache), the
 * catalog of served kinds, default namespaces, periodic compaction and bookmarks,
 * and the HTTPS server. Returns the bound address and a close function.
 */
import type { KubeletClientConfig } from "../endpoints/handlers/kubelet-client.ts";
import { serviceNetwork, type ServiceNetwork } from "../registry/service-allocation.ts";
import { ensureDefaultServiceCIDR } from "../registry/service-cidrs.ts";
import { LegacyTokenTracking } from "./legacy-token-tracking.ts";
import { startAllocationRepair } from "../registry/allocation-repair-loop.ts";
import type { AddressInfo, Socket } from "node:net";
import type { Server } from "node:http";
import { createServer as createHttpsServer, type ServerOptions } from "node:https";
import { serve, type ServerType } from "@hono/node-server";
import { isStatusError } from "../../../shared/api/status.ts";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import type { KindDefinition } from "../../../shared/schema/types.ts";
import { DEFAULT_MAX_BODY_BYTES } from "../endpoints/body.ts";
import type { NonResourceHandler } from "../endpoints/non-resource.ts";
import { discoveryRoutes } from "../endpoints/routes.ts";
import { Catalog } from "../registry/catalog.ts";
import { strategyFor } from "../registry/kind-strategies.ts";
import type { Strategy } from "../registry/strategy.ts";
import { declareDeclarativeValidationMetrics, withDeclarativeValidation } from "../registry/declarative-validation.ts";
import { BUILTIN_DECLARATIONS, parseDeclarationTable, type DeclarativeDeclarations } from "../registry/declarative-validation-rules.ts";
import { CachedStorage } from "../storage/cached-storage.ts";
import { DEFAULT_COMPACTION_INTERVAL_MS, startCompactor } from "../storage/compactor.ts";
import type { KvStore, RevisionFeed } from "../storage/kv.ts";
import { StoreStorage } from "../storage/store-storage.ts";
import { openEncryption, type EncryptionOptions } from "../storage/encryption/encryption.ts";
import { DEFAULT_SNAPSHOT_RETENTION_MS, WatchCache } from "../storage/watch-cache.ts";
import { Hono } from "hono";
import { HealthRegistry, healthRoutes, rateLimitedCheck } from "../endpoints/health.ts";
import { openapiRoutes } from "../endpoints/openapi-routes.ts";
import { buildApp, DEFAULT_MAX_MUTATING_REQUESTS_IN_FLIGHT, DEFAULT_MAX_REQUESTS_IN_FLIGHT, DEFAULT_REQUEST_TIMEOUT_MS, type Authenticate, type Authorize, type LogFn } from "./app.ts";
import type { Classifier, FlowControlConfigSource } from "../flowcontrol/contract.ts";
import { ApfDispatcher } from "../flowcontrol/dispatch/dispatcher.ts";
import { apfDebugRoutes } from "../flowcontrol/dispatch/debug-handlers.ts";
import { serverConcurrencyLimit } from "../flowcontrol/dispatch/concurrency-limits.ts";
import type { AuditSink } from "./filters/with-audit.ts";
import { createAuditor, type AuditOptions } from "../audit/options.ts";
import { debugRoutes, type DebugOptions } from "./debug-routes.ts";
import { applyRuntimeConfig } from "./runtime-config.ts";
import { candidateKinds, knownKinds } from "./served-versions.ts";
import { refreshObjectCounts } from "./object-count-metrics.ts";
import { resolveEffectiveVersion, type EffectiveVersion } from "./effective-version.ts";
import type { LifecycleMetricsOptions } from "./version-options.ts";
import { versionRoute } from "../endpoints/version-route.ts";
import { serveUpgrades } from "../endpoints/upgrade.ts";
import { componentStatusProvider } from "./component-status.ts";
import { SERVER_TIMEOUT_OPTIONS } from "./server-timeouts.ts";
import { GracefulShutdown } from "./shutdown.ts";
import { withDirectBodies } from "./direct-bodies.ts";
import { keepParserRunning, releaseParser } from "./tls-parser-pause.ts";
import { tlsServerOptions, type TlsFlags } from "./tls-options.ts";
import { FeatureGates } from "./feature-gates.ts";
import { declareApiserverMetrics, MetricsRegistry } from "../../../shared/observability/metrics.ts";
import { SERVER_VERSION } from "../endpoints/version.ts";
import { Security, type SecurityOptions } from "./security.ts";
import { buildAdmission } from "../admission/build.ts";
import type { AdmissionChain } from "../admission/chain.ts";
import type { AdmissionFlags, PluginRegistry } from "../admission/plugins.ts";
import { connectionCertificateUser, NO_RENEGOTIATION_SECURE_OPTIONS } from "./peer-identity.ts";
import { CrdController } from "../apiextensions/controller.ts";
import { crdStrategy } from "../apiextensions/crd-strategy.ts";
import { Aggregator, type AggregatorOptions } from "../aggregator/aggregator.ts";
import { declareAggregatorMetrics } from "../aggregator/metrics.ts";
import { declareConversionMetrics } from "../apiextensions/conversion-metrics.ts";
import { createFlowControlConfig } from "../flowcontrol/config.ts";

/** The platform's `--event-ttl` default. */
export const DEFAULT_EVENT_TTL_MS = 60 * 60 * 1000;

export interface ReplicaOptions {
  profile: PlatformProfile;
  kinds: KindDefinition[];
  kv: KvStore;
  feed: RevisionFeed;
  /** Serving certificate and key, client CA, and `--tls-min-version` / `--tls-cipher-suites`. */
  tls: { key: string; cert: string; clientCa?: string } & TlsFlags;
  /** How pods/log reaches node agents (`--kubelet-client-certificate` and related flags). */
  kubeletClient?: KubeletClientConfig;
  /** Service ClusterIP and NodePort ranges (`--service-cluster-ip-range`, `--service-node-port-range`). */
  serviceNetwork?: ServiceNetwork;
  /** Allocation repair (allocation-repair-loop.ts): pass interval (default 3 minutes) and the grace before an orphan record is released (default 60 s). */
  allocationRepair?: { intervalMs?: number; graceMs?: number };
  /** `--event-ttl` (default 1 hour) and `--lease-reuse-duration-seconds` (default 60). */
  eventTtlMs?: number;
  leaseReuseDurationSeconds?: number;
  host?: string;
  port?: number;
  maxBodyBytes?: number;
  /** Store compaction period; 0 disables (default 5 minutes). */
  compactIntervalMs?: number;
  bookmarkIntervalMs?: number;
  /** How long a list's continue token stays valid (default 5 minutes; tests shorten it). */
  continueTokenValidityMs?: number;
  /** Watch history kept by the cache: time window and a cap on events. */
  watchHistoryWindowMs?: number;
  watchHistoryMaxEvents?: number;
  authenticate?: Authenticate;
  authorize?: Authorize;
  /** Authentication and authorization from flags; overrides `authenticate`/`authorize`. */
  security?: SecurityOptions;
  /** The admission flags (default: the default-on plugins, no configuration file). */
  admission?: AdmissionFlags;
  /** Registers admission plugins besides the ones of admission/ (the built-in plugins, tests). */
  registerAdmissionPlugins?: (registry: PluginRegistry) => void;
  extraRoutes?: Array<[string, NonResourceHandler]>;
  /** Health endpoints probed for componentstatuses (default: the platform's local scheduler and controller-manager ports). */
  componentProbes?: Readonly<Record<string, string>>;
  /** Receives the audit events of requests (default: dropped). */
  audit?: AuditSink;
  /** The audit policy and backends of the `--audit-*` flags (over `audit`). */
  auditOptions?: AuditOptions;
  /** Encryption at rest (`--encryption-provider-config`); none: values are stored as they are. */
  encryption?: EncryptionOptions;
  /** `/logs/` and `/debug/pprof/profile` (`--enable-logs-handler`, `--profiling`). */
  debug?: DebugOptions;
  /** `--runtime-config` entries (`<key>[=<value>]`); a bad one fails start-up. */
  runtimeConfig?: readonly string[];
  /** `--livez-grace-period` and `--shutdown-delay-duration`, in milliseconds. */
  livezGracePeriodMs?: number;
  /** Feature gates (default: the platform's defaults). */
  gates?: FeatureGates;
  /** `--emulated-version` resolved (default: the binary's release). */
  effectiveVersion?: EffectiveVersion;
  /** `--show-hidden-metrics-for-version`, `--disabled-metrics`, `--allow-metric-labels`. */
  metricsOptions?: LifecycleMetricsOptions;
  shutdownDelayMs?: number;
  /** `--shutdown-send-retry-after` and `--shutdown-watch-termination-grace-period` (server/shutdown.ts). */
  shutdownSendRetryAfter?: boolean;
  shutdownWatchTerminationGracePeriodMs?: number;
  /** `--max-requests-inflight` and `--max-mutating-requests-inflight` (0 = unlimited). */
  maxRequestsInFlight?: number;
  maxMutatingRequestsInFlight?: number;
  /** `--request-timeout` in milliseconds (default one minute). */
  requestTimeoutMs?: number;
  /** `--enable-priority-and-fairness` (default true); false: the plain in-flight limit. */
  enablePriorityAndFairness?: boolean;
  /** A fixed APF configuration and classifier in place of the served objects (tests). */
  flowControl?: { source: FlowControlConfigSource; classify: Classifier };
  /** The aggregation layer: proxy client certificate, front-proxy header names, check period. */
  aggregator?: Omit<AggregatorOptions, "log">;
  /** Declarative validation tags per `<group>/<Kind>` in place of the built-in ones (tests). */
  declarativeValidation?: DeclarativeDeclarations;
  log?: LogFn;
}

export interface Replica {
  port: number;
  url: string;
  catalog: Catalog;
  cache: WatchCache;
  health: HealthRegistry;
  /** The admission chain (tests add internal checks to it). */
  admission: AdmissionChain;
  /** Graceful shutdown (server/shutdown.ts): readyz fails at once, requests drain, watches end, then everything stops. */
  close(): Promise<void>;
}

/**
 * Creates the namespaces every cluster has; concurrent replicas may race: existing ones
 * are kept. An admission plugin that refuses them (AlwaysDeny) is logged, not fatal.
 */
async function ensureDefaultNamespaces(catalog: Catalog, profile: PlatformProfile, log?: ReplicaOptions["log"]): Promise<void> {
  const ns = catalog.lookup("", "v1", "namespaces");
  if (!ns) return;
  for (const name of profile.defaultNamespaces) {
    try {
      await ns.registry.create({ apiVersion: "v1", kind: "Namespace", metadata: { name } }, { dryRun: false });
    } catch (err) {
      if (isStatusError(err, "Forbidden")) log?.("warn", "default namespace refused by admission", { namespace: name, error: err.message });
      else if (!isStatusError(err, "AlreadyExists")) throw err;
    }
  }
}

/**
 * The kinds this replica serves: the built-in ones and the pre-release versions of
 * release 1.35 under `--runtime-config`, less those the emulated release lacks.
 * MutatingAdmissionPolicy needs both its feature gate and the flag to enable its group
 * version (a beta introduced after 1.22, off by default), as on the platform.
 */
function servedKinds(opts: ReplicaOptions): KindDefinition[] {
  const emulation = (opts.effectiveVersion ?? resolveEffectiveVersion([])).emulation;
  const candidates = candidateKinds(opts.kinds, (gate) => opts.gates?.enabled(gate) ?? false, emulation);
  return applyRuntimeConfig(candidates, opts.runtimeConfig ?? [], opts.profile, knownKinds(opts.kinds));
}

/**
 * How long watch cache snapshots are kept (ListFromCacheSnapshot): the platform's 75 s,
 * within the watch history window, and shorter than one compaction interval so that no
 * snapshot outlives the store revision it stands for when another replica compacts (the
 * compactor keeps one full interval of history; compactions through this replica's store
 * client reach the cache at once through `onCompacted`).
 */
function snapshotRetentionMs(opts: ReplicaOptions): number {
  const compaction = opts.compactIntervalMs ?? DEFAULT_COMPACTION_INTERVAL_MS;
  const limits = [DEFAULT_SNAPSHOT_RETENTION_MS, opts.watchHistoryWindowMs ?? Infinity, compaction > 0 ? compaction : Infinity];
  return Math.min(...limits);
}

export async function startReplica(opts: ReplicaOptions): Promise<Replica> {
  const profile = opts.profile;
  const tlsOptions = tlsServerOptions(opts.tls); // bad TLS flags fail before anything starts
  const kinds = servedKinds(opts); // so does a bad --runtime-config
  // Encryption at rest wraps the store client and the feed: everything above sees plain values.
  const encryption = opts.encryption ? openEncryption(profile, opts.encryption, opts.kv, opts.feed, (level, msg, fields) => opts.log?.(level, msg, fields)) : undefined;
  const kv = encryption?.kv ?? opts.kv;
  const feed = encryption?.feed ?? opts.feed;
  const store = new StoreStorage(kv, feed, {
    initialEventsAnnotation: profile.annotations.initialEventsEnd,
    continueTtlMs: opts.continueTokenValidityMs,
    isStale: encryption?.kv.isStale,
    leases: { reuseDurationSeconds: opts.leaseReuseDurationSeconds },
  });
  const listFromCacheSnapshot = (opts.gates ?? new FeatureGates()).enabled("ListFromCacheSnapshot");
  const sizeBasedListCost = (opts.gates ?? new FeatureGates()).enabled("SizeBasedListCostEstimate");
  const cache = new WatchCache(kv, feed, {
    root: "/registry/",
    historyWindowMs: opts.watchHistoryWindowMs,
    maxHistory: opts.watchHistoryMaxEvents,
    snapshotRetentionMs: listFromCacheSnapshot ? snapshotRetentionMs(opts) : 0,
    log: (msg, fields) => opts.log?.("warn", msg, fields ?? {}) });
  const stopCompactionReports = opts.kv.onCompacted?.((revision) => cache.compacted(revision));
  await cache.start();
  const storage = new CachedStorage(store, cache, {
    initialEventsAnnotation: profile.annotations.initialEventsEnd,
    unsafeDeletionKv: opts.gates?.enabled("AllowUnsafeMalformedObjectDeletion") ? opts.kv : undefined,
    continueTtlMs: opts.continueTokenValidityMs,
  });
  // Admission and the security chain look the catalog up lazily, once it exists.
  const holder: { catalog?: Catalog } = {};
  const metricsRegistry = new MetricsRegistry({
    currentVersion: `${SERVER_VERSION.major}.${SERVER_VERSION.minor}`,
    defaultMetrics: false,
    ...opts.metricsOptions,
    onDeprecated: (name, version) => opts.log?.("warn", `This metric has been deprecated since ${version}`, { metric: name }),
  });
  const security = opts.security ? await Security.create(profile, opts.security, () => holder.catalog, opts.log, metricsRegistry) : undefined;
  const admission = buildAdmission({
    profile,
    flags: opts.admission,
    catalog: () => holder.catalog,
    authorize: (user, attrs) => (security ? security.allowed(user, attrs) : Promise.resolve(true)),
    ...(security ? { authorizeDecision: security.decide } : {}),
    metrics: metricsRegistry,
    log: (level, msg, fields) => opts.log?.(level, msg, fields ?? {}),
    register: opts.registerAdmissionPlugins,
  });
  const kindStrategy = strategyFor(profile);
  const validationGates = opts.gates ?? new FeatureGates();
  const declarative = {
    enabled: validationGates.enabled("DeclarativeValidation"),
    takeover: validationGates.enabled("DeclarativeValidationTakeover"),
    declarations: parseDeclarationTable(opts.declarativeValidation ?? BUILTIN_DECLARATIONS),
    metrics: declareDeclarativeValidationMetrics(metricsRegistry),
    log: opts.log,
  };
  const builtinStrategy = (def: KindDefinition): Strategy => withDeclarativeValidation(kindStrategy(def), declarative);
  // admissionregistration/v1beta1 (MutatingAdmissionPolicy) is served only while its gate is on.
  const catalog: Catalog = new Catalog(profile, kinds, storage, { admission: admission.chain, serviceNetwork: opts.serviceNetwork, eventTtlSeconds: Math.floor((opts.eventTtlMs ?? DEFAULT_EVENT_TTL_MS) / 1000) }, (def) =>
    def.group === "apiextensions" && def.plural === "customresourcedefinitions" ? crdStrategy(def, profile) : builtinStrategy(def),
  );
  holder.catalog = catalog;
  // Custom resources: every replica serves the established CRDs its watch cache sees.
  // (none when --runtime-config turned the CustomResourceDefinition API off)
  const servesCrds = !!catalog.lookup(profile.group("apiextensions"), "v1", "customresourcedefinitions");
  const crdController = servesCrds ? new CrdController(catalog, (level, msg, fields) => opts.log?.(level, msg, fields), declareConversionMetrics(metricsRegistry)) : undefined;
  await crdController?.start();
  await admission.start();
  await ensureDefaultNamespaces(catalog, profile, opts.log);
  const legacyTokenTracking = new LegacyTokenTracking(catalog, profile, { log: opts.log });
  await legacyTokenTracking.start();
  await ensureDefaultServiceCIDR(catalog.lookup(profile.group("networking"), "v1", "servicecidrs")?.registry, profile, (opts.serviceNetwork ?? serviceNetwork()).cidrs.map((c) => c.cidr), (error) =>
    opts.log?.("warn", "default ServiceCIDR refused by admission", { error }),
  );
  const allocationRepair = startAllocationRepair({ catalog, profile, net: opts.serviceNetwork ?? serviceNetwork(), ...opts.allocationRepair, log: (level, msg, fields) => opts.log?.(level, msg, fields ?? {}) });
  await security?.attach(catalog, admission.chain, opts.log);
  // APIServices: local ones for the built-in group versions, others proxied to their service.
  const aggregator = new Aggregator(catalog, { ...opts.aggregator, metrics: declareAggregatorMetrics(metricsRegistry), log: (level, msg, fields) => opts.log?.(level, msg, fields) });
  await aggregator.start();
  // API Priority and Fairness configuration: FlowSchemas/priority levels kept and classified (flowControlConfig.source, flowControlConfig.classify).
  const flowControlConfig = createFlowControlConfig({ catalog, log: opts.log });
  await flowControlConfig.start();

  const gates = opts.gates ?? new FeatureGates();
  gates.recordMetric(metricsRegistry, profile.id);
  const health = HealthRegistry.withDefaults({ livezGracePeriodMs: opts.livezGracePeriodMs ?? 0, shutdownDelayMs: opts.shutdownDelayMs ?? 0 });
  health.add("etcd", rateLimitedCheck(() => opts.kv.currentRevision(), 1000));
  for (const [name, check] of encryption?.healthChecks() ?? []) health.add(name, check);
  health.add("informer-sync", () => {
    if (cache.revision === 0) throw new Error("watch cache not synced");
  }, ["readyz"]);
  const healthApp = new Hono();
  healthRoutes(healthApp, health);
  const serveHealth: NonResourceHandler = (req) => healthApp.fetch(req);
  const openapi = openapiRoutes(catalog, profile, aggregator.openapi);
  const metrics = declareApiserverMetrics(metricsRegistry);
  encryption?.attachMetrics(metricsRegistry);
  const auditor = opts.auditOptions
    ? createAuditor(profile, opts.auditOptions, metricsRegistry, (msg, fields) => opts.log?.("warn", msg, fields), (ref) => catalog.lookup(ref.apiGroup ?? "", ref.apiVersion ?? "", ref.resource)?.resource.def)
    : undefined;
  const serveMetrics: NonResourceHandler = async () => {
    refreshObjectCounts(metrics, catalog, (prefix) => cache.countResource(prefix));
    return new Response(await metricsRegistry.text(), { status: 200, headers: { "content-type": metricsRegistry.contentType } });
  };

  let boundAddress = "127.0.0.1:0";
  const debug = debugRoutes(opts.debug);
  const flowControl =
    opts.enablePriorityAndFairness === false
      ? undefined
      : new ApfDispatcher({
          serverConcurrencyLimit: serverConcurrencyLimit(opts.maxRequestsInFlight ?? DEFAULT_MAX_REQUESTS_IN_FLIGHT, opts.maxMutatingRequestsInFlight ?? DEFAULT_MAX_MUTATING_REQUESTS_IN_FLIGHT),
          source: opts.flowControl?.source ?? flowControlConfig.source,
          classify: opts.flowControl?.classify ?? flowControlConfig.classify,
          requestTimeoutMs: opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
          metrics: metricsRegistry,
        });
  if (flowControl) debug.exact.push(...apfDebugRoutes(flowControl.controller));
  const app = buildApp({
    profile,
    catalog,
    maxBodyBytes: opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 5000,
    compression: gates.enabled("APIResponseCompression"),
    metrics,
    cbor: gates.enabled("CBORServingAndStorage"),
    authenticate: security?.authenticate ?? opts.authenticate ?? (async (_req, incoming) => connectionCertificateUser(incoming)),
    impersonate: security?.impersonate,
    authorize: security?.authorize ?? opts.authorize ?? (async () => {}),
    virtual: security?.virtualHandlers(),
    kubelet: opts.kubeletClient,
    componentStatuses: componentStatusProvider(opts.kv, opts.componentProbes),
    nonResource: discoveryRoutes(
      catalog,
      () => boundAddress,
      [...openapi.exact, ["/metrics", serveMetrics], ["/version", versionRoute(opts.effectiveVersion ?? resolveEffectiveVersion([]))], ...["/livez", "/readyz", "/healthz"].map((p): [string, NonResourceHandler] => [p, serveHealth]), ...(opts.extraRoutes ?? []), ...debug.exact],
      [openapi.prefix, ["/livez/", serveHealth], ["/readyz/", serveHealth], ["/healthz/", serveHealth], ...debug.prefix],
      aggregator,
    ),
    aggregated: (req, url, user) => aggregator.proxy(req, url, user),
    flowControl,
    emulationVersion: (opts.effectiveVersion ?? resolveEffectiveVersion([])).emulation,
    maxRequestsInFlight: opts.maxRequestsInFlight,
    maxMutatingRequestsInFlight: opts.maxMutatingRequestsInFlight,
    requestTimeoutMs: opts.requestTimeoutMs,
    objectCount: (info) => {
      const served = catalog.lookup(info.apiGroup, info.apiVersion, info.resource);
      if (!served) return undefined;
      const stats = cache.resourceStats(served.resource.keyPrefix);
      return sizeBasedListCost ? stats : { objects: stats.objects };
    },
    log: opts.log,
    audit: auditor ?? opts.audit,
  });

  // No renegotiation: a connection keeps the certificate of its handshake (peer-identity.ts relies on it).
  const serverOptions: ServerOptions = { key: opts.tls.key, cert: opts.tls.cert, requestCert: true, rejectUnauthorized: false, secureOptions: NO_RENEGOTIATION_SECURE_OPTIONS, ...tlsOptions, ...SERVER_TIMEOUT_OPTIONS };
  if (opts.tls.clientCa) serverOptions.ca = opts.tls.clientCa;
  let cacheStopped = false;
  const stopCache = (): void => {
    if (cacheStopped) return;
    cacheStopped = true;
    cache.stop(); // ends every watch stream cleanly
  };
  const shutdown = new GracefulShutdown({
    delayMs: opts.shutdownDelayMs ?? 0,
    sendRetryAfter: opts.shutdownSendRetryAfter ?? false,
    watchGraceMs: opts.shutdownWatchTerminationGracePeriodMs ?? 0,
    drainTimeoutMs: opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    log: (msg, fields) => opts.log?.("info", msg, fields),
  });
  const server: ServerType = await new Promise((resolve) => {
    const s = serve({ fetch: withDirectBodies(shutdown.wrap(app.fetch)), createServer: createHttpsServer, serverOptions, hostname: opts.host ?? "127.0.0.1", port: opts.port ?? 0 }, () => resolve(s));
  });
  server.on("secureConnection", keepParserRunning); // after node's own listener, which gives the socket its parser
  server.on("upgrade", (_req: unknown, socket: Socket) => releaseParser(socket));
  serveUpgrades(server, (request, env) => app.fetch(request, env), (msg, fields) => opts.log?.("error", msg, fields));
  const address = server.address() as AddressInfo;
  boundAddress = `${opts.host ?? "127.0.0.1"}:${address.port}`;

  const bookmarks = setInterval(() => cache.sendBookmarks(), opts.bookmarkIntervalMs ?? 5000);
  bookmarks.unref();
  const compaction = startCompactor(opts.kv, opts.compactIntervalMs ?? DEFAULT_COMPACTION_INTERVAL_MS, opts.log);

  return {
    port: address.port,
    url: `https://${boundAddress}`,
    catalog,
    cache,
    health,
    admission: admission.chain,
    async close() {
      legacyTokenTracking.stop(); // before the watches end: it would only watch again
      await shutdown.run({ beginShutdown: () => health.beginShutdown(), endWatches: stopCache, server: server as Server });
      clearInterval(bookmarks);
      flowControl?.close();
      security?.close();
      crdController?.stop();
      aggregator.stop();
      allocationRepair.stop();
      flowControlConfig.stop();
      admission.close();
      compaction.stop();
      stopCompactionReports?.();
      stopCache();
      await auditor?.close();
      encryption?.close();
    },
  };
}

