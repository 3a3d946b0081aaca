/**
 * The HTTP application of a replica: the platform's handler chain of decorators
 * (server/filters/, one file each) in front of the dispatcher, outermost first:
 *   request info → timeout → warnings (error boundary) → authentication → audit →
 *   impersonation → priority and fairness → authorization → handler.
 * Every response carries the request id as `Audit-ID`; every log line of a request
 * carries it as `auditID`. Handlers know HTTP, not kinds.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { Hono } from "hono";
import { statusError } from "../../../shared/api/status.ts";
import type { ApiserverMetrics } from "../../../shared/observability/metrics.ts";
import { dispatchResource, type DispatchConfig } from "../endpoints/dispatch.ts";
import { dispatchNonResource, type NonResourceRoutes } from "../endpoints/non-resource.ts";
import type { UserInfo } from "../endpoints/scope.ts";
import { mayCompress, maybeCompress } from "./compression.ts";
import { RequestMetrics } from "./request-metrics.ts";
import { AUDIT_ID_HEADER, chain, createRequestContext, infoOf, userOf, type Handler, type LogFn, type LogLevel, type RequestContext } from "./filters/context.ts";
import { errorResponse } from "./filters/errors.ts";
import { InFlightLimiter } from "./filters/in-flight-limiter.ts";
import { answerHeader, applyAnswerHeaders } from "./filters/response-headers.ts";
import { withAudit, type Auditor, type AuditSink } from "./filters/with-audit.ts";
import { withAuthentication, type Authenticate } from "./filters/with-authentication.ts";
import { failedAuthenticationAudit } from "./filters/failed-authentication-audit.ts";
import { withAuthorization, type Authorize } from "./filters/with-authorization.ts";
import { withDeprecation } from "./filters/with-deprecation.ts";
import { withImpersonation, type Impersonate } from "./filters/with-impersonation.ts";
import { withPriorityAndFairness } from "./filters/with-priority-and-fairness.ts";
import { withRequestInfo } from "./filters/with-request-info.ts";
import { withTimeout } from "./filters/with-timeout.ts";
import { withWarnings } from "./filters/with-warnings.ts";
import type { ObjectCount } from "./filters/work-estimate.ts";
import type { ApfDispatcher } from "../flowcontrol/dispatch/dispatcher.ts";

export type NodeEnv = { incoming: IncomingMessage; outgoing?: ServerResponse };
export type { Authenticate, Authorize, Impersonate, LogFn };

/** The platform's defaults: `--max-requests-inflight`, `--max-mutating-requests-inflight`, `--request-timeout`. */
export const DEFAULT_MAX_REQUESTS_IN_FLIGHT = 400;
export const DEFAULT_MAX_MUTATING_REQUESTS_IN_FLIGHT = 200;
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

export interface AppConfig extends DispatchConfig {
  authenticate: Authenticate;
  /** The impersonation step (none: impersonation headers are not looked at here). */
  impersonate?: Impersonate;
  authorize: Authorize;
  nonResource: NonResourceRoutes;
  /** Gzip get and list responses (the APIResponseCompression gate). */
  compression?: boolean;
  /** Request metrics (apiserver_request_total, apiserver_request_duration_seconds, inflight gauges). */
  metrics?: ApiserverMetrics;
  /** API Priority and Fairness (none: the in-flight limit of the two flags below). */
  flowControl?: ApfDispatcher;
  /** In-flight seats per pool; 0 = unlimited. */
  maxRequestsInFlight?: number;
  maxMutatingRequestsInFlight?: number;
  /** Stored objects of a resource, for the work estimate of lists. */
  objectCount?: ObjectCount;
  /** Deadline of requests that are not long-running, body reading included; 0 = none. */
  requestTimeoutMs?: number;
  /** Receives audit events (default: dropped): a plain sink, or a policy with backends. */
  audit?: AuditSink | Auditor;
  /** The aggregation layer: answers requests of aggregated group versions (undefined: served here). */
  aggregated?: (req: Request, url: URL, user: UserInfo) => Promise<Response> | undefined;
  /** The release the replica emulates (`--emulated-version`): which deprecations apply. */
  emulationVersion?: { major: number; minor: number };
  /** Method syntax on purpose: a sink that only knows info/warn/error is accepted too. */
  log?(level: LogLevel, msg: string, fields?: Record<string, unknown>): void;
}

/** HTTP methods the API serves; any other is 405 as the platform's router answers it. */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]);

function methodNotAllowed(): Error {
  return statusError({
    code: 405,
    reason: "MethodNotAllowed",
    message: "the server does not allow this method on the requested resource",
    details: { causes: [{ reason: "UnexpectedServerResponse", message: "405: Method Not Allowed" }] },
  });
}

/**
 * The innermost handler: dispatch to a resource or non-resource handler. Not async: a
 * resource request's answer is the handler's own promise (followed by one `then` only
 * when it may be compressed); it may throw synchronously (context.ts).
 */
function terminal(cfg: AppConfig): Handler {
  return (ctx) => {
    if (!METHODS.has(ctx.request.method.toUpperCase())) throw methodNotAllowed();
    const info = infoOf(ctx);
    const user = userOf(ctx);
    const proxied = cfg.aggregated?.(ctx.request, ctx.url, user);
    if (proxied) return proxied;
    if (!info.isResourceRequest) return Promise.resolve(dispatchNonResource(cfg.nonResource, info, ctx.request, ctx.url, user));
    const response = dispatchResource(cfg, {
      info,
      request: ctx.request,
      url: ctx.url,
      user,
      warnings: ctx.warnings,
      annotations: ctx.audit?.annotations,
      auditLevel: ctx.audit?.level,
      answerHeaders: ctx.answerHeaders,
    });
    // A log is a stream (follow): compression would hold it back until a kilobyte arrived.
    if (!cfg.compression || info.subresource === "log" || !mayCompress(ctx.request, info.verb)) return response;
    return response.then((r) => maybeCompress(ctx.request, r, info.verb));
  };
}

export function buildApp(cfg: AppConfig): Hono<{ Bindings: NodeEnv }> {
  const app = new Hono<{ Bindings: NodeEnv }>();
  const limiter = new InFlightLimiter({
    maxReadOnly: cfg.maxRequestsInFlight ?? DEFAULT_MAX_REQUESTS_IN_FLIGHT,
    maxMutating: cfg.maxMutatingRequestsInFlight ?? DEFAULT_MAX_MUTATING_REQUESTS_IN_FLIGHT,
  });
  const metrics = cfg.metrics && new RequestMetrics(cfg.metrics);
  const sink = cfg.log;
  const log: LogFn | undefined = sink && ((level, msg, fields) => sink.call(cfg, level, msg, fields));
  const handler = chain(terminal(cfg), [
    withRequestInfo,
    withTimeout(cfg.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS),
    withWarnings,
    withAuthentication(cfg.authenticate, failedAuthenticationAudit(cfg.audit)),
    withAudit(cfg.audit),
    withImpersonation(cfg.impersonate),
    withPriorityAndFairness(cfg.flowControl ? { dispatcher: cfg.flowControl, profile: cfg.profile } : limiter, cfg.objectCount, cfg.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS),
    withAuthorization(cfg.authorize),
    withDeprecation({ profile: cfg.profile, catalog: cfg.catalog, gauge: cfg.metrics?.requestedDeprecatedApis, emulationVersion: cfg.emulationVersion }),
  ]);
  app.all("*", async (c) => {
    const ctx: RequestContext = createRequestContext(c.req.raw, c.env?.incoming, log);
    ctx.outgoing = c.env?.outgoing;
    ctx.profile = cfg.profile;
    answerHeader(ctx, AUDIT_ID_HEADER, ctx.requestId);
    let response: Response;
    try {
      response = await handler(ctx);
    } catch (err) {
      response = errorResponse(ctx, err);
    }
    const seconds = (Date.now() - ctx.receivedAt) / 1000;
    if (log) log("info", "request", { method: ctx.request.method, path: ctx.url.pathname, code: response.status, ms: Math.round(seconds * 1000), user: ctx.user?.username, auditID: ctx.requestId });
    if (metrics && ctx.info) metrics.record(ctx.info, response.status, seconds, (cfg.flowControl ?? limiter).counts, ctx.terminated);
    return applyAnswerHeaders(ctx, response);
  });
  return app;
}
