/**
 * The audit event of a request whose authentication was refused, as the platform's
 * failed-authentication audit writes it: the policy is asked with no user, and a kept
 * event goes out once, at stage ResponseStarted (unless the policy omits that stage),
 * with an empty `user`, the response status `{code: 401, message: "Authentication
 * failed, attempted: <methods>"}` (or "..., no credentials provided") and the
 * annotations the refusing method attached to its refusal (authn/types.ts
 * `failureAuditAnnotations`, e.g. an invalidated legacy token's Secret).
 */
import { toStatus } from "../../../../shared/api/status.ts";
import { peerCertificatesOf } from "../../authn/client-cert.ts";
import { failureAuditAnnotations } from "../../authn/types.ts";
import { microTime } from "../../audit/event.ts";
import type { AuditAttributes, RequestAuditConfig } from "../../audit/policy-evaluator.ts";
import { infoOf, type RequestContext } from "./context.ts";
import { sourceIps } from "./source-ips.ts";
import { DISCARD_AUDIT, type AuditEvent, type Auditor, type AuditSink } from "./with-audit.ts";
import type { AuthenticationFailed } from "./with-authentication.ts";

const METADATA_ONLY: RequestAuditConfig = { level: "Metadata", omitStages: [], omitManagedFields: false };
const NO_USER = Object.freeze({ username: "", groups: Object.freeze([]) as readonly string[] });

/** The platform's message naming the credentials a refused request presented. */
export function attemptedMethods(ctx: RequestContext): string {
  const methods: string[] = [];
  const authorization = (ctx.request.headers.get("authorization") ?? "").trim();
  if (/^basic /i.test(authorization)) methods.push("basic");
  const parts = authorization.split(" ");
  if (parts.length > 1 && parts[0].toLowerCase() === "bearer") methods.push("bearer");
  if ((ctx.url.searchParams.get("access_token") ?? "").trim() !== "") methods.push("access_token");
  if (peerCertificatesOf(ctx.incoming).length > 0) methods.push("x509");
  return methods.length > 0 ? `Authentication failed, attempted: ${methods.join(", ")}` : "Authentication failed, no credentials provided";
}

/** The failed-authentication hook for `target` (undefined when auditing is off). */
export function failedAuthenticationAudit(target: AuditSink | Auditor | undefined): AuthenticationFailed | undefined {
  if (!target || target === DISCARD_AUDIT) return undefined;
  const auditor = typeof target === "function" ? undefined : target;
  const emit = typeof target === "function" ? target : (e: Readonly<AuditEvent>) => target.emit(e);
  return (ctx, err) => {
    const info = infoOf(ctx);
    const attrs: AuditAttributes = { user: NO_USER, verb: info.verb, isResourceRequest: info.isResourceRequest, path: info.path, apiGroup: info.apiGroup, resource: info.resource, subresource: info.subresource, namespace: info.namespace, name: info.name };
    const config: RequestAuditConfig = auditor ? auditor.decide(attrs) : METADATA_ONLY;
    if (config.level === "None" || config.omitStages.includes("ResponseStarted")) return;
    const headers = ctx.request.headers;
    const annotations = failureAuditAnnotations(err);
    const event: AuditEvent = {
      level: config.level,
      auditID: ctx.requestId,
      stage: "ResponseStarted",
      requestURI: ctx.url.pathname + ctx.url.search,
      verb: info.verb,
      user: {},
      sourceIPs: sourceIps(headers.get("x-forwarded-for"), headers.get("x-real-ip"), ctx.incoming?.socket?.remoteAddress),
      userAgent: headers.get("user-agent") ?? undefined,
      objectRef: info.isResourceRequest
        ? { resource: info.resource, namespace: info.namespace || undefined, name: info.name || undefined, apiGroup: info.apiGroup, apiVersion: info.apiVersion, subresource: info.subresource || undefined }
        : undefined,
      responseStatus: { metadata: {}, message: attemptedMethods(ctx), code: toStatus(err).code ?? 401 },
      requestReceivedTimestamp: microTime(ctx.receivedAt),
      stageTimestamp: microTime(Date.now()),
    };
    if (Object.keys(annotations).length > 0) event.annotations = { ...annotations };
    void emit(event);
  };
}
