/**
 * The HTTP application of a replica: a fixed filter chain in front of the
 * dispatcher, as the platform's handler chain:
 *   request info → authentication → impersonation → max in flight → authorization → handler.
 * Filters are functions of the request context; handlers know HTTP, not kinds.
 */
import type { IncomingMessage } from "node:http";
import { Hono } from "hono";
import { toStatus, type Status } from "../../../shared/api/status.ts";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import type { Catalog } from "../registry/catalog.ts";
import { statusResponse } from "../endpoints/encode.ts";
import { dispatchResource } from "../endpoints/dispatch.ts";
import { dispatchNonResource, type NonResourceRoutes } from "../endpoints/non-resource.ts";
import type { UserInfo } from "../endpoints/scope.ts";
import { parseRequestInfo, type RequestInfo } from "../endpoints/request-info.ts";
import { InFlightLimiter } from "./max-in-flight.ts";
import type { VirtualHandler } from "../endpoints/virtual.ts";
import { maybeCompress } from "./compression.ts";
import type { ApiserverMetrics } from "../../../shared/observability/metrics.ts";
import { RequestMetrics } from "./request-metrics.ts";

export type NodeEnv = { incoming: IncomingMessage };

/** Decides who sent a request: a user, `undefined` (no opinion: anonymous), or a thrown 401 Status. */
export type Authenticate = (req: Request, incoming: IncomingMessage | undefined) => Promise<UserInfo | undefined>;
/** Allows or denies a request; throws a 403 Status to deny. */
export type Authorize = (user: UserInfo, info: RequestInfo, req: Request) => Promise<void>;

export interface AppConfig {
  profile: PlatformProfile;
  catalog: Catalog;
  maxBodyBytes: number;
  bookmarkIntervalMs: number;
  authenticate: Authenticate;
  authorize: Authorize;
  nonResource: NonResourceRoutes;
  /** Handlers of create-only virtual resources and subresources, keyed `<group>/<resource>[/<subresource>]`. */
  virtual?: Map<string, VirtualHandler>;
  /** Serve and read CBOR (the CBORServingAndStorage gate). */
  cbor?: boolean;
  /** Gzip get and list responses (the APIResponseCompression gate). */
  compression?: boolean;
  /** Request metrics (apiserver_request_total, apiserver_request_duration_seconds, inflight gauges). */
  metrics?: ApiserverMetrics;
  maxRequestsInFlight?: number;
  maxMutatingRequestsInFlight?: number;
  log?: (level: "info" | "warn" | "error", msg: string, fields: Record<string, unknown>) => void;
}

export function buildApp(cfg: AppConfig): Hono<{ Bindings: NodeEnv }> {
  const app = new Hono<{ Bindings: NodeEnv }>();
  const limiter = new InFlightLimiter(cfg.maxRequestsInFlight ?? 400, cfg.maxMutatingRequestsInFlight ?? 200);
  const metrics = cfg.metrics && new RequestMetrics(cfg.metrics);
  app.all("*", async (c) => {
    const req = c.req.raw;
    const url = new URL(req.url);
    const started = Date.now();
    let response: Response;
    let info: RequestInfo | undefined;
    try {
      info = parseRequestInfo(req.method, url, url.searchParams);
      const user = await cfg.authenticate(req, c.env?.incoming);
      const identity = user ?? { username: "system:anonymous", groups: ["system:unauthenticated"] };
      const release = limiter.acquire(info);
      const requestInfo = info;
      try {
        await cfg.authorize(identity, requestInfo, req);
        response = requestInfo.isResourceRequest
          ? await dispatchResource(cfg, requestInfo, req, url, identity)
          : await dispatchNonResource(cfg.nonResource, requestInfo, req, url, identity);
        if (cfg.compression && requestInfo.isResourceRequest) response = await maybeCompress(req, response, requestInfo.verb);
      } finally {
        release();
      }
    } catch (err) {
      const status: Status = toStatus(err);
      if ((status.code ?? 500) >= 500) cfg.log?.("error", "request failed", { method: req.method, path: url.pathname, error: String(err instanceof Error ? err.stack : err) });
      const headers: Record<string, string> = {};
      if (status.details?.retryAfterSeconds) headers["retry-after"] = String(status.details.retryAfterSeconds);
      response = statusResponse(status, { headers });
    }
    cfg.log?.("info", "request", { method: req.method, path: url.pathname, code: response.status, ms: Date.now() - started });
    if (metrics && info) metrics.record(info, response.status, (Date.now() - started) / 1000, limiter.counts);
    return response;
  });
  return app;
}
