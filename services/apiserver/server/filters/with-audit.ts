/**
 * The audit slot: builds the request's audit event (the platform's audit
 * Event fields that are known at this point) and hands it to a sink at the
 * RequestReceived and ResponseComplete stages. The default sink drops events; the
 * audit issue supplies policy and backends.
 */
import { toStatus } from "../../../../shared/api/status.ts";
import type { UserInfo } from "../../endpoints/scope.ts";
import { infoOf, userOf, type Filter } from "./context.ts";

export type AuditStage = "RequestReceived" | "ResponseStarted" | "ResponseComplete" | "Panic";

export interface AuditEvent {
  auditID: string;
  stage: AuditStage;
  requestURI: string;
  verb: string;
  user: UserInfo;
  /** The impersonated user, set by with-impersonation. */
  impersonatedUser?: UserInfo;
  /** Filled in when a sink is configured, like the timestamps. */
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: { resource: string; namespace?: string; name?: string; apiGroup?: string; apiVersion?: string; subresource?: string };
  responseStatus?: { code: number };
  /** Annotations added while the request is handled (e.g. the deprecated-API ones). */
  annotations?: Record<string, string>;
  requestReceivedTimestamp?: string;
  stageTimestamp?: string;
}

/** Receives audit events; must not throw and must not block. */
export type AuditSink = (event: Readonly<AuditEvent>) => void;

export const DISCARD_AUDIT: AuditSink = () => {};

export function withAudit(sink: AuditSink = DISCARD_AUDIT): Filter {
  return (next) => async (ctx) => {
    const info = infoOf(ctx);
    const event: AuditEvent = {
      auditID: ctx.requestId,
      stage: "RequestReceived",
      requestURI: ctx.url.pathname + ctx.url.search,
      verb: info.verb,
      user: userOf(ctx),
      objectRef: info.isResourceRequest
        ? { resource: info.resource, namespace: info.namespace || undefined, name: info.name || undefined, apiGroup: info.apiGroup, apiVersion: info.apiVersion, subresource: info.subresource || undefined }
        : undefined,
    };
    ctx.audit = event;
    if (sink === DISCARD_AUDIT) return next(ctx);
    // What only a real sink reads is filled in for it (a socket call and two dates per request otherwise).
    const received = new Date(ctx.receivedAt).toISOString();
    const address = ctx.incoming?.socket?.remoteAddress;
    event.sourceIPs = address ? [address] : [];
    event.userAgent = ctx.request.headers.get("user-agent") ?? undefined;
    event.requestReceivedTimestamp = received;
    event.stageTimestamp = received;
    sink({ ...event });
    let code = 500;
    try {
      const response = await next(ctx);
      code = response.status;
      return response;
    } catch (err) {
      code = toStatus(err).code ?? 500;
      throw err;
    } finally {
      sink({ ...event, stage: "ResponseComplete", responseStatus: { code }, stageTimestamp: new Date().toISOString() });
    }
  };
}
