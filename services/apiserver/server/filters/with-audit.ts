/**
 * The audit filter: builds the request's audit event (the platform's Event fields
 * known at this point) on the request context, asks the auditor's policy for the
 * request's level, and emits the event at each stage the policy keeps:
 * RequestReceived, ResponseStarted (long-running requests, when the response
 * starts) and ResponseComplete (when a long-running response ends), or Panic
 * instead of ResponseComplete when the handler threw something that is not a Status. At Request and
 * above the request body is kept (a copy read beside the handler), at
 * RequestResponse the response body too (JSON, or the profile's protobuf decoded by the
 * auditor); credentials are redacted first.
 *
 * Cost when auditing is off (no auditor, or level None): one small object per request.
 * A plain function sink receives every request at level Metadata (tests).
 */
import { internalError, toStatus } from "../../../../shared/api/status.ts";
import type { PlatformProfile } from "../../../../shared/platform/index.ts";
import type { AuditLevel, AuditStage } from "../../audit/policy.ts";
import { levelAtLeast, type AuditAttributes, type RequestAuditConfig } from "../../audit/policy-evaluator.ts";
import { redactCredentials, withoutManagedFields } from "../../audit/redact.ts";
import { microTime } from "../../audit/event.ts";
import { panicStatus } from "../../audit/panic.ts";
import type { UserInfo } from "../../endpoints/scope.ts";
import { authenticationAuditAnnotations } from "../../authn/types.ts";
import { isLongRunning } from "./long-running.ts";
import { infoOf, userOf, type Filter, type RequestContext } from "./context.ts";
import { sourceIps } from "./source-ips.ts";
import { withOwn } from "../../../../shared/schema/values.ts";

export type { AuditStage };

/** The response status as an event carries it (a Status without kind). */
export interface AuditResponseStatus {
  metadata: Record<string, never>;
  code: number;
  status?: string;
  message?: string;
  reason?: string;
}

export interface AuditObjectRef {
  resource: string;
  namespace?: string;
  name?: string;
  apiGroup?: string;
  apiVersion?: string;
  subresource?: string;
}

export interface AuditEvent {
  level?: AuditLevel;
  auditID: string;
  stage: AuditStage;
  requestURI: string;
  verb: string;
  /** Empty (`{}`) in the event of a refused authentication (failed-authentication-audit.ts). */
  user: UserInfo | NoUser;
  /** The impersonated user, set by with-impersonation. */
  impersonatedUser?: UserInfo;
  /** Filled in when a sink is configured, like the timestamps. */
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: AuditObjectRef;
  responseStatus?: AuditResponseStatus;
  requestObject?: unknown;
  responseObject?: unknown;
  /** Annotations added while the request is handled (deprecation, authorization, admission). */
  annotations?: Record<string, string>;
  requestReceivedTimestamp?: string;
  stageTimestamp?: string;
}

/** The event user of a request that has none (its authentication was refused). */
export interface NoUser {
  username?: undefined;
  groups?: undefined;
}

/** Receives audit events; must not throw and must not block. */
export type AuditSink = (event: Readonly<AuditEvent>) => void;

/** The policy and the backends of a replica's audit. */
export interface Auditor {
  readonly profile: PlatformProfile;
  /** The policy's decision for one request (level None: no event). */
  decide(attrs: AuditAttributes): RequestAuditConfig;
  /**
   * Receives each kept event; must not throw. Batch backends return nothing; blocking
   * ones resolve to whether the event was stored (false fails a request at RequestReceived).
   */
  emit(event: Readonly<AuditEvent>): void | Promise<boolean>;
  /** Counts a request refused because its RequestReceived event could not be stored. */
  countRejected?(): void;
  /** Decodes a body in the profile's protobuf media type (undefined: not decodable). */
  decodeProtobuf?(ref: AuditObjectRef | undefined, bytes: Uint8Array): unknown;
}

export const DISCARD_AUDIT: AuditSink = () => {};

/** A sink or an auditor's emit: blocking backends answer whether the event was stored. */
type AuditEmit = (event: Readonly<AuditEvent>) => void | Promise<boolean>;

/** The largest request body kept in an event; a larger one is left out. */
const MAX_KEPT_BODY_BYTES = 3 * 1024 * 1024;

const METADATA_ONLY: RequestAuditConfig = { level: "Metadata", omitStages: [], omitManagedFields: false };

/** Where the authorization decision goes, per audited event (set only while auditing). */
const decisionKeys = new WeakMap<AuditEvent, { decision: string; reason: string }>();

/** Records the authorization decision and the authorizer's reason ("" when it gave none, as the platform records it) on the request's audit event. */
export function noteAuthorization(ctx: RequestContext, decision: "allow" | "forbid", reason?: string): void {
  const event = ctx.audit;
  const keys = event && decisionKeys.get(event);
  if (!event || !keys) return;
  const annotations = (event.annotations ??= {});
  annotations[keys.decision] = decision;
  if (reason !== undefined) annotations[keys.reason] = reason;
}

function attributesOf(ctx: RequestContext): AuditAttributes {
  const info = infoOf(ctx);
  const user = userOf(ctx);
  return { user, verb: info.verb, isResourceRequest: info.isResourceRequest, path: info.path, apiGroup: info.apiGroup, resource: info.resource, subresource: info.subresource, namespace: info.namespace, name: info.name };
}

function isJson(contentType: string | null): boolean {
  return !!contentType && /^application\/(?:[\w.+-]*\+)?json\b/i.test(contentType);
}

/** Turns a kept body into its object: JSON, or the profile's protobuf through the auditor. */
type BodyDecoder = (contentType: string | null, bytes: Uint8Array) => unknown;

function bodyDecoder(auditor: Auditor | undefined, ref: AuditObjectRef | undefined): BodyDecoder {
  const protobufType = auditor?.profile.protobufMediaType;
  return (contentType, bytes) => {
    if (isJson(contentType)) return JSON.parse(new TextDecoder().decode(bytes));
    if (protobufType && contentType?.toLowerCase().startsWith(protobufType)) return auditor?.decodeProtobuf?.(ref, bytes);
    return undefined;
  };
}

/** The body of a copy of `message` as an object (undefined: none, too large, or not decodable); read beside the handler. */
async function readBody(message: Request | Response, decode: BodyDecoder): Promise<unknown> {
  if (!message.body) return undefined;
  const contentType = message.headers.get("content-type");
  try {
    const bytes = new Uint8Array(await message.clone().arrayBuffer());
    if (bytes.length === 0 || bytes.length > MAX_KEPT_BODY_BYTES) return undefined;
    return decode(contentType, bytes);
  } catch {
    return undefined;
  }
}

/** A create names its object in the body: the event's objectRef takes the name from it, as the platform's does. */
function fillObjectName(event: AuditEvent, obj: unknown): void {
  const ref = event.objectRef;
  if (!ref || ref.name || typeof obj !== "object" || obj === null) return;
  const name = (obj as { metadata?: { name?: unknown } }).metadata?.name;
  if (typeof name === "string" && name) ref.name = name;
}

function responseStatusOf(code: number, err: unknown): AuditResponseStatus {
  if (err === undefined) return { metadata: {}, code };
  const status = toStatus(err);
  return { metadata: {}, status: status.status, message: status.message, reason: status.reason || undefined, code: status.code ?? code };
}

export function withAudit(target: AuditSink | Auditor = DISCARD_AUDIT): Filter {
  // Without an event to emit the filter is synchronous: no promise or turn of its own (context.ts).
  if (target === DISCARD_AUDIT) {
    return (next) => (ctx) => {
      ctx.audit = baseEvent(ctx);
      return next(ctx);
    };
  }
  const auditor: Auditor | undefined = typeof target === "function" ? undefined : target;
  const emit: AuditEmit = typeof target === "function" ? target : (e) => target.emit(e);
  return (next) => async (ctx) => {
    const event = baseEvent(ctx);
    ctx.audit = event;
    const config = auditor ? auditor.decide(attributesOf(ctx)) : METADATA_ONLY;
    if (config.level === "None") return next(ctx);
    return audited(next, ctx, event, config, emit, auditor);
  };
}

function baseEvent(ctx: RequestContext): AuditEvent {
  const info = infoOf(ctx);
  return {
    auditID: ctx.requestId,
    stage: "RequestReceived",
    requestURI: ctx.url.pathname + ctx.url.search,
    verb: info.verb,
    user: userOf(ctx),
    objectRef: info.isResourceRequest
      ? { resource: info.resource, namespace: info.namespace || undefined, name: info.name || undefined, apiGroup: info.apiGroup, apiVersion: info.apiVersion, subresource: info.subresource || undefined }
      : undefined,
  };
}

async function audited(
  next: (ctx: RequestContext) => Promise<Response>,
  ctx: RequestContext,
  event: AuditEvent,
  config: RequestAuditConfig,
  emit: AuditEmit,
  auditor: Auditor | undefined,
): Promise<Response> {
  const profile = auditor?.profile;
  const decode = bodyDecoder(auditor, event.objectRef);
  const received = microTime(ctx.receivedAt);
  const headers = ctx.request.headers;
  event.level = config.level;
  event.sourceIPs = sourceIps(headers.get("x-forwarded-for"), headers.get("x-real-ip"), ctx.incoming?.socket?.remoteAddress);
  event.userAgent = ctx.request.headers.get("user-agent") ?? undefined;
  event.requestReceivedTimestamp = received;
  event.stageTimestamp = received;
  event.annotations ??= {};
  const fromAuthentication = authenticationAuditAnnotations(ctx.user);
  for (const key in fromAuthentication) event.annotations[key] = fromAuthentication[key];
  if (profile) decisionKeys.set(event, { decision: profile.annotations.authorizationDecision, reason: profile.annotations.authorizationReason });
  const omitted = new Set(config.omitStages);
  const send = (stage: AuditStage, extra: Partial<AuditEvent> = {}): void | Promise<boolean> => {
    if (omitted.has(stage)) return;
    // Typed as the spread `{ ...event, ...extra }` would be: extra's keys are set or absent.
    const out = withOwn(event, extra) as AuditEvent;
    out.stage = stage;
    out.stageTimestamp = stage === "RequestReceived" ? received : microTime(Date.now());
    if (event.annotations) out.annotations = { ...event.annotations };
    if (out.annotations && Object.keys(out.annotations).length === 0) delete out.annotations;
    return emit(out);
  };
  const keep = (obj: unknown): unknown => {
    const redacted = profile ? redactCredentials(profile, event.objectRef, obj) : obj;
    return config.omitManagedFields ? withoutManagedFields(redacted) : redacted;
  };
  // Blocking-strict backends: a RequestReceived event that cannot be stored fails the request, with no further events.
  const stored = send("RequestReceived");
  if (stored instanceof Promise && !(await stored)) {
    auditor?.countRejected?.();
    throw internalError("failed to store audit event");
  }
  const requestBody = levelAtLeast(config.level, "Request") ? readBody(ctx.request, decode) : undefined;
  let response: Response | undefined;
  let failure: unknown;
  try {
    response = await next(ctx);
    return response;
  } catch (err) {
    failure = err;
    throw err;
  } finally {
    const code = response ? response.status : (toStatus(failure).code ?? 500);
    const panicked = panicStatus(failure);
    const responseStatus = panicked ?? responseStatusOf(code, failure);
    const longRunning = isLongRunning(infoOf(ctx)) && response !== undefined;
    const bodies = Promise.all([requestBody, !longRunning && response && levelAtLeast(config.level, "RequestResponse") ? readBody(response, decode) : undefined]);
    void bodies.then(([requestObject, responseObject]) => {
      const extra: Partial<AuditEvent> = { responseStatus };
      if (requestObject !== undefined) extra.requestObject = keep(requestObject);
      fillObjectName(event, responseObject ?? requestObject);
      if (responseObject !== undefined) extra.responseObject = keep(responseObject);
      if (panicked) return void send("Panic", extra);
      if (!longRunning) return void send("ResponseComplete", extra);
      void send("ResponseStarted", extra);
      const outgoing = ctx.outgoing;
      if (!outgoing || outgoing.closed) void send("ResponseComplete", extra);
      else outgoing.once("close", () => void send("ResponseComplete", extra));
    });
  }
}
