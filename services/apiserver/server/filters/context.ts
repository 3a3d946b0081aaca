/**
 * The typed state of one request as it passes the filter chain: the request itself,
 * its id (the `Audit-ID`), a logger bound to that id, then what the filters add in
 * order — request info, the authenticated (then impersonated) user, the audit event,
 * warnings and the deadline. A filter is a decorator of the next handler; a handler
 * returns a promise, and may also throw synchronously before it has one (a filter
 * that does only synchronous work returns the next handler's promise as it is,
 * without a promise and microtask turns of its own): callers treat both alike.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { randomUUID } from "node:crypto";
import { internalError } from "../../../../shared/api/status.ts";
import type { LogFn, LogLevel } from "../../../../shared/observability/logger.ts";
import type { PlatformProfile } from "../../../../shared/platform/index.ts";
import type { RequestInfo } from "../../endpoints/request-info.ts";
import type { UserInfo } from "../../endpoints/scope.ts";
import type { AuditEvent } from "./with-audit.ts";
import { NEVER, type Deadline } from "./deadline.ts";

/** The structured log sink (shared/observability): `fields` never carries a request body. */
export type { LogFn, LogLevel } from "../../../../shared/observability/logger.ts";

export interface RequestContext {
  readonly request: Request;
  readonly url: URL;
  /** The node request (TLS socket, peer certificates); absent when driven without a server. */
  readonly incoming: IncomingMessage | undefined;
  /**
   * The node response, when there is one: its `close` event marks the end of the
   * response, its body written out or the client gone (a streamed list ends there,
   * not when the handler returns).
   */
  outgoing?: ServerResponse;
  /** The request id: the incoming `Audit-ID` when well formed, else a new UUID. */
  readonly requestId: string;
  /** Logs with the request id in every line. */
  readonly log: LogFn;
  readonly receivedAt: number;
  /** Set by with-request-info. */
  info?: RequestInfo;
  /** Set by with-authentication; replaced by with-impersonation. */
  user?: UserInfo;
  /** Set by with-audit. */
  audit?: AuditEvent;
  /** `Warning` header values (`299 - "text"`), written by with-warnings. */
  readonly warnings: string[];
  /** Headers of the answer as a flat name/value list, recorded by the app and filters and applied once (response-headers.ts). */
  readonly answerHeaders: string[];
  /** Set when the server ended the request in self-defense (429 of the in-flight limit, 504 at the deadline). */
  terminated?: boolean;
  /** Expires at the request's deadline (set by with-timeout; never for long-running requests). */
  deadline: Deadline;
  /** The server's naming profile (its protobuf media type encodes error Statuses); set by the app. */
  profile?: PlatformProfile;
}

export type Handler = (ctx: RequestContext) => Promise<Response>;
export type Filter = (next: Handler) => Handler;

export const AUDIT_ID_HEADER = "Audit-ID";
const AUDIT_ID = /^[\x21-\x7e]{1,256}$/;

/** The request id: an incoming `Audit-ID` (printable, at most 256 characters) is kept, as the platform does. */
export function requestIdOf(req: Request): string {
  const incoming = req.headers.get(AUDIT_ID_HEADER);
  return incoming && AUDIT_ID.test(incoming) ? incoming : randomUUID();
}

/** The context's one object per request: the logger is a method, not a closure per request. */
class RequestState implements RequestContext {
  readonly url: URL;
  readonly requestId: string;
  outgoing?: ServerResponse;
  info?: RequestInfo;
  user?: UserInfo;
  audit?: AuditEvent;
  readonly warnings: string[] = [];
  readonly answerHeaders: string[] = [];
  terminated?: boolean;
  deadline: Deadline = NEVER;
  profile?: PlatformProfile;

  constructor(
    readonly request: Request,
    readonly incoming: IncomingMessage | undefined,
    private readonly sink: LogFn | undefined,
    readonly receivedAt: number,
  ) {
    this.url = new URL(request.url);
    this.requestId = requestIdOf(request);
  }

  log(level: LogLevel, msg: string, fields?: Record<string, unknown>): void {
    this.sink?.(level, msg, { ...fields, auditID: this.requestId });
  }
}

export function createRequestContext(request: Request, incoming: IncomingMessage | undefined, log: LogFn | undefined, now = Date.now()): RequestContext {
  return new RequestState(request, incoming, log, now);
}

/** The request info; a filter that runs before with-request-info is a wiring error. */
export function infoOf(ctx: RequestContext): RequestInfo {
  if (!ctx.info) throw internalError(new Error("no request info in the request context"));
  return ctx.info;
}

/** The acting user; a filter that runs before with-authentication is a wiring error. */
export function userOf(ctx: RequestContext): UserInfo {
  if (!ctx.user) throw internalError(new Error("no user in the request context"));
  return ctx.user;
}

/** Applies filters so that the first one listed runs first (outermost). */
export function chain(handler: Handler, filters: readonly Filter[]): Handler {
  return filters.reduceRight<Handler>((next, filter) => filter(next), handler);
}
