/**
 * The aggregation layer of a replica. It watches APIServices through the replica's
 * watch cache and
 *  - creates the local APIService of every built-in group version at start (one per
 *    group version, as the platform's autoregistration keeps them), keeps one for every
 *    group version a CRD serves (crd-registration.ts), and marks local ones Available
 *    (reason Local);
 *  - checks every APIService with a service on each change and every
 *    `availabilityIntervalMs` (the platform: 30 s): Service and port, an endpoint, then
 *    GET /apis/<group>/<version> on the backend as `system:kube-aggregator`; writes the
 *    `Available` condition with the platform's reasons (Passed, ServiceNotFound,
 *    ServicePortError, EndpointsNotFound, MissingEndpoints, FailedDiscoveryCheck) when it
 *    changes, and keeps the backend's discovery for the merged discovery documents;
 *  - keeps the OpenAPI documents of the backends that passed their check (openapi.ts),
 *    for /openapi/v2 and /openapi/v3;
 *  - proxies every request for /apis/<group>/<version>/... of such an APIService (after
 *    authentication and authorization) to an endpoint of its service with the
 *    front-proxy identity headers (backend.ts); an APIService that is not Available,
 *    or a backend that cannot be reached, answers 503.
 * Replicas compute the same status; a conflicting write is retried on the next event.
 */
import { Readable } from "node:stream";
import { isStatusError, serviceUnavailable } from "../../../shared/api/status.ts";
import type { LogFn } from "../../../shared/observability/logger.ts";
import { catalogObjectAccess } from "../admission/object-access.ts";
import { Informer } from "../authz/informer.ts";
import type { VersionDiscovery } from "../endpoints/discovery-aggregated.ts";
import type { UserInfo } from "../endpoints/scope.ts";
import type { Catalog } from "../registry/catalog.ts";
import type { Registry } from "../registry/registry.ts";
import { timestamp } from "../registry/system-meta.ts";
import { meta, type JsonObject } from "../storage/object.ts";
import { apiServiceInfo, LOCAL_CONDITION, localApiService, PASSED_CONDITION, unavailable, withAvailable, type ApiServiceInfo, type AvailableCondition } from "./api-service.ts";
import { BackendClient, DEFAULT_FRONT_PROXY_HEADERS, toResponse, type FrontProxyHeaders, type ProxyClientCertificate } from "./backend.ts";
import { orderedGroups, versionFromResourceList } from "./discovery.ts";
import { CrdApiServiceRegistration } from "./crd-registration.ts";
import { AggregatedOpenApi } from "./openapi.ts";
import { endpointResolver, EndpointError, type Endpoint, type EndpointResolver } from "./endpoint.ts";
import type { AggregatorMetrics } from "./metrics.ts";

export const DEFAULT_AVAILABILITY_INTERVAL_MS = 30_000;
/** Deadline of one discovery check (the platform allows 5 s). */
const CHECK_TIMEOUT_MS = 5000;
const MAX_DISCOVERY_BYTES = 4 * 1024 * 1024;
/** The largest OpenAPI document taken from a backend. */
const MAX_OPENAPI_BYTES = 64 * 1024 * 1024;
/** The identity the availability check presents to backends. */
const AGGREGATOR_USER: UserInfo = { username: "system:kube-aggregator", groups: ["system:masters"] };

export interface AggregatorOptions {
  /** --proxy-client-cert-file / --proxy-client-key-file, read. */
  proxyClientCert?: ProxyClientCertificate;
  /** Front-proxy header names (the first of each --requestheader-* list). */
  headers?: FrontProxyHeaders;
  availabilityIntervalMs?: number;
  log?: LogFn;
  metrics?: AggregatorMetrics;
}

/** What the discovery documents need of the aggregated groups. */
export interface AggregatedGroups {
  /** Changes whenever an aggregated group, version or its discovery changes. */
  readonly generation: number;
  /** Groups served by other servers (in the platform's order), versions preferred first. */
  groups(): Array<{ name: string; versions: Array<{ version: string; discovery?: VersionDiscovery }> }>;
}

function readBody(res: import("node:http").IncomingMessage, limit = MAX_DISCOVERY_BYTES): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on("data", (c: Buffer) => {
      size += c.length;
      if (size > limit) res.destroy(new Error("document too large"));
      else chunks.push(c);
    });
    res.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    res.on("error", reject);
  });
}

export class Aggregator implements AggregatedGroups {
  generation = 0;
  // Unset when the catalog serves no APIServices (a replica built with a reduced kind list): the aggregator is then inert.
  private readonly informer!: Informer;
  private readonly registry!: Registry;
  private readonly enabled: boolean;
  private readonly backend: BackendClient;
  private readonly resolve: EndpointResolver;
  private readonly byGroupVersion = new Map<string, ApiServiceInfo>();
  /** How many group versions are served by a backend: 0 lets every request skip routing. */
  private remoteCount = 0;
  private readonly discovery = new Map<string, VersionDiscovery>();
  /** Checks in flight, by APIService name: one at a time per object. */
  private readonly checking = new Map<string, Promise<void>>();
  /** APIServices that changed while their check was in flight: checked again after it. */
  private readonly again = new Set<string>();
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private crdRegistration?: CrdApiServiceRegistration;
  /** The backends' OpenAPI documents, for /openapi/v2 and /openapi/v3. */
  readonly openapi: AggregatedOpenApi;

  constructor(
    private readonly catalog: Catalog,
    private readonly opts: AggregatorOptions = {},
  ) {
    const served = catalog.lookup(catalog.profile.group("apiregistration"), "v1", "apiservices");
    this.backend = new BackendClient(opts.proxyClientCert, opts.headers ?? DEFAULT_FRONT_PROXY_HEADERS);
    this.resolve = endpointResolver(catalog.profile, catalogObjectAccess(() => catalog));
    this.enabled = !!served;
    this.openapi = new AggregatedOpenApi(
      async (info, path, headers) => {
        if (!info.service) throw new Error("not an aggregated APIService");
        const ep = await this.resolve(info.service);
        const res = await this.backend.send(info, ep, "GET", path, AGGREGATOR_USER, headers, undefined, CHECK_TIMEOUT_MS);
        const etag = res.headers.etag;
        return { status: res.statusCode ?? 0, etag: typeof etag === "string" ? etag : undefined, text: await readBody(res, MAX_OPENAPI_BYTES) };
      },
      (msg, fields) => opts.log?.("warn", msg, fields),
    );
    if (!served) return;
    this.registry = served.registry;
    this.crdRegistration = new CrdApiServiceRegistration(catalog, served.registry, () => new Set(this.builtinApiServices().map((o) => meta(o).name ?? "")), opts.log);
    this.informer = new Informer(served.registry, (msg, fields) => opts.log?.("warn", msg, fields));
    this.informer.onChange((ev) => {
      this.refresh();
      if (ev.type === "SYNC") for (const obj of this.informer.items.values()) void this.check(obj);
      else if (ev.type !== "DELETED") void this.check(ev.object);
      else this.opts.metrics?.forget(meta(ev.object).name ?? "");
    });
  }

  async start(): Promise<void> {
    if (!this.enabled) return;
    await this.informer.start();
    const created = await this.registerLocal();
    this.refresh();
    // Local APIServices are Available before the replica serves; the others are checked in the background.
    const checks = [...this.informer.items.values(), ...created].map((obj) => ({ local: !apiServiceInfo(obj).service, done: this.check(obj) }));
    await Promise.all(checks.filter((c) => c.local).map((c) => c.done));
    await this.crdRegistration?.start();
    const interval = this.opts.availabilityIntervalMs ?? DEFAULT_AVAILABILITY_INTERVAL_MS;
    this.timer = setInterval(() => {
      for (const obj of this.informer.items.values()) void this.check(obj);
    }, interval);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.enabled) this.informer.stop();
    this.crdRegistration?.stop();
    this.backend.close();
  }

  /** The local APIServices of the built-in group versions this replica serves. */
  private builtinApiServices(): JsonObject[] {
    const out: JsonObject[] = [];
    for (const group of ["", ...this.catalog.groups()]) {
      for (const version of this.catalog.versionsOf(group)) {
        const def = this.catalog.groupVersion(group, version)?.resources.find((r) => !r.resource.def.custom)?.resource.def;
        if (def) out.push(localApiService(this.catalog.profile, def.group, version));
      }
    }
    return out;
  }

  /** Creates the local APIServices of the built-in group versions that are not stored yet; returns those it created. */
  private async registerLocal(): Promise<JsonObject[]> {
    const have = new Set([...this.informer.items.values()].map((o) => meta(o).name));
    const missing = this.builtinApiServices().filter((obj) => !have.has(meta(obj).name));
    // Written together: one round of store writes rather than one after the other.
    const created = await Promise.all(
      missing.map((obj) =>
        this.registry.create(obj, { dryRun: false }).catch((err: unknown) => {
          if (!isStatusError(err, "AlreadyExists")) this.opts.log?.("warn", "local APIService not created", { name: meta(obj).name, error: String(err) });
          return undefined;
        }),
      ),
    );
    return created.filter((o): o is JsonObject => o !== undefined);
  }

  /** Rebuilds the routing table from the informer and checks what changed. */
  private refresh(): void {
    if (this.stopped) return;
    const before = JSON.stringify([...this.byGroupVersion.values()].map((s) => [s.group, s.version, s.service, s.groupPriorityMinimum, s.versionPriority]));
    this.byGroupVersion.clear();
    for (const obj of this.informer.items.values()) {
      const info = apiServiceInfo(obj);
      this.byGroupVersion.set(`${info.group}/${info.version}`, info);
    }
    this.remoteCount = [...this.byGroupVersion.values()].filter((info) => info.service).length;
    this.openapi.retain(new Set([...this.byGroupVersion.values()].filter((info) => info.service).map((info) => info.name)));
    for (const key of [...this.discovery.keys()]) if (!this.byGroupVersion.get(key)?.service) this.discovery.delete(key);
    const after = JSON.stringify([...this.byGroupVersion.values()].map((s) => [s.group, s.version, s.service, s.groupPriorityMinimum, s.versionPriority]));
    if (before !== after) this.generation++;
  }

  /** Checks one APIService and writes its Available condition when it changed; one check at a time per object. */
  private check(obj: JsonObject): Promise<void> {
    const name = meta(obj).name ?? "";
    const inFlight = this.checking.get(name);
    if (inFlight) {
      this.again.add(name);
      return inFlight;
    }
    if (this.stopped) return Promise.resolve();
    const done = this.runCheck(obj, name).finally(() => {
      this.checking.delete(name);
      const latest = this.informer.items.get(`/${name}`);
      if (this.again.delete(name) && latest) void this.check(latest);
    });
    this.checking.set(name, done);
    return done;
  }

  private async runCheck(obj: JsonObject, name: string): Promise<void> {
    try {
      const info = apiServiceInfo(obj);
      const cond = info.service ? await this.probe(info) : LOCAL_CONDITION;
      if (this.stopped) return;
      this.opts.metrics?.observeAvailability(name, cond.status === "True", cond.reason);
      const current = this.informer.items.get(`/${name}`) ?? obj;
      const status = withAvailable(current, cond, timestamp(Date.now()));
      if (!status) return;
      if (cond.status !== "True") this.opts.metrics?.observeMarkedUnavailable(name, cond.reason);
      await this.registry.update(undefined, name, (latest) => ({ ...(latest ?? current), status: withAvailable(latest ?? current, cond, timestamp(Date.now())) ?? status, metadata: { ...meta(latest ?? current) } }), { subresource: "status", dryRun: false });
    } catch (err) {
      if (!isStatusError(err, "Conflict") && !isStatusError(err, "NotFound")) this.opts.log?.("warn", "APIService status not written", { name, error: String(err) });
    }
  }

  /** Service, endpoint and discovery of an APIService with a service. */
  private async probe(info: ApiServiceInfo): Promise<AvailableCondition> {
    const key = `${info.group}/${info.version}`;
    let ep: Endpoint;
    try {
      ep = await this.resolve(info.service as NonNullable<ApiServiceInfo["service"]>);
    } catch (err) {
      this.markStale(key);
      if (err instanceof EndpointError) return unavailable(err.reason, err.message);
      throw err;
    }
    const path = `/apis/${info.group}/${info.version}`;
    const url = `https://${ep.host.includes(":") ? `[${ep.host}]` : ep.host}:${ep.port}${path}`;
    try {
      const res = await this.backend.send(info, ep, "GET", path, AGGREGATOR_USER, [["accept", "application/json"]], undefined, CHECK_TIMEOUT_MS);
      const text = await readBody(res);
      const code = res.statusCode ?? 0;
      if (code < 200 || code >= 300) {
        this.markStale(key);
        return unavailable("FailedDiscoveryCheck", `bad status from ${url}: ${code}`);
      }
      let doc: unknown;
      try {
        doc = JSON.parse(text);
      } catch {
        doc = undefined;
      }
      const next = versionFromResourceList(info.group, info.version, doc);
      if (JSON.stringify(next) !== JSON.stringify(this.discovery.get(key))) {
        this.discovery.set(key, next);
        this.generation++;
      }
      void this.openapi.refresh(info);
      return PASSED_CONDITION;
    } catch (err) {
      this.markStale(key);
      return unavailable("FailedDiscoveryCheck", `failing or missing response from ${url}: Get "${url}": ${(err as Error).message}`);
    }
  }

  private markStale(key: string): void {
    const doc = this.discovery.get(key);
    if (doc && doc.freshness !== "Stale") {
      this.discovery.set(key, { ...doc, freshness: "Stale" });
      this.generation++;
    }
  }

  groups(): ReturnType<AggregatedGroups["groups"]> {
    return orderedGroups([...this.byGroupVersion.values()]).map((g) => ({ name: g.name, versions: g.versions.map((v) => ({ version: v.version, discovery: this.discovery.get(`${v.group}/${v.version}`) })) }));
  }

  /** Whether `/apis/<group>/<version>...` belongs to an aggregated server (true) or to this one. */
  owns(url: URL): boolean {
    return !!this.target(url);
  }

  private target(url: URL): ApiServiceInfo | undefined {
    if (this.remoteCount === 0 || !url.pathname.startsWith("/apis/")) return undefined;
    const m = /^\/apis\/([^/]+)\/([^/]+)(?:\/|$)/.exec(url.pathname);
    const info = m ? this.byGroupVersion.get(`${m[1]}/${m[2]}`) : undefined;
    return info?.service ? info : undefined;
  }

  /**
   * Proxies the request when its group version is aggregated; undefined (decided
   * synchronously, no promise) when this server serves it.
   */
  proxy(req: Request, url: URL, user: UserInfo): Promise<Response> | undefined {
    const info = this.target(url);
    return info?.service ? this.forward(info, req, url, user) : undefined;
  }

  private async forward(info: ApiServiceInfo, req: Request, url: URL, user: UserInfo): Promise<Response> {
    if (!info.service) throw serviceUnavailable("service unavailable");
    const current = this.informer.items.get(`/${info.name}`);
    if (!current || !apiServiceInfo(current).available) throw serviceUnavailable("service unavailable");
    let ep: Endpoint;
    try {
      ep = await this.resolve(info.service);
    } catch (err) {
      this.opts.log?.("warn", "aggregated API service not resolved", { name: info.name, error: String(err) });
      throw serviceUnavailable("service unavailable");
    }
    const body = req.body && req.method !== "GET" && req.method !== "HEAD" ? Readable.fromWeb(req.body as import("node:stream/web").ReadableStream<Uint8Array>) : undefined;
    try {
      return toResponse(await this.backend.send(info, ep, req.method, `${url.pathname}${url.search}`, user, req.headers.entries(), body));
    } catch (err) {
      throw serviceUnavailable(`Error trying to reach service: '${(err as Error).message}'`);
    }
  }
}
