/**
 * The `Status` error model: every failure leaves the server as a `Status`
 * object (principle 5). The builders reproduce the platform's reasons, codes
 * and message formats so that clients that match on them keep working.
 *
 * Invariants:
 * - a built `Status` never carries empty optional fields (the platform omits
 *   empty `details.name`, `details.group`, `details.kind`, ...);
 * - `toStatus` never puts a stack trace in a message.
 */
import type { FieldError } from "../schema/types.ts";

export type StatusReason =
  | ""
  | "Unauthorized"
  | "Forbidden"
  | "NotFound"
  | "AlreadyExists"
  | "Conflict"
  | "Gone"
  | "Invalid"
  | "ServerTimeout"
  | "StoreReadError"
  | "Timeout"
  | "TooManyRequests"
  | "BadRequest"
  | "MethodNotAllowed"
  | "NotAcceptable"
  | "RequestEntityTooLarge"
  | "UnsupportedMediaType"
  | "InternalError"
  | "Expired"
  | "ServiceUnavailable";

/** One cause of a failure; `reason` is the cause type (`FieldValueRequired`, `ResourceVersionTooLarge`, ...). */
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  /** Resource (for resource errors) or kind (for `Invalid`). */
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface StatusMetadata {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface Status {
  kind: "Status";
  apiVersion: "v1";
  metadata: StatusMetadata;
  status: "Failure" | "Success";
  message: string;
  reason: StatusReason;
  details?: StatusDetails;
  code: number;
}

/** An error carrying a `Status`; its message is the status message. */
export class StatusError extends Error {
  readonly status: Status;

  constructor(status: Status) {
    super(status.message);
    this.name = "StatusError";
    this.status = status;
  }

  get code(): number {
    return this.status.code;
  }

  get reason(): StatusReason {
    return this.status.reason;
  }
}

/** The default detail of an optimistic-concurrency conflict. */
export const OBJECT_MODIFIED_MESSAGE = "the object has been modified; please apply your changes to the latest version and try again";

/** The cause type of a too-large resource version. */
export const CAUSE_RESOURCE_VERSION_TOO_LARGE = "ResourceVersionTooLarge";

export const CONTINUE_EXPIRED_MESSAGE =
  "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.";

export const LIST_EXPIRED_MESSAGE = "The resourceVersion for the provided list is too old.";

/** `pods` or `deployments.apps`: a resource qualified by its group. */
export function qualifiedResource(resource: string, group = ""): string {
  return group ? `${resource}.${group}` : resource;
}

/** Go's `%q` for the strings we print: a JSON string literal is the same for printable text. */
function quote(s: string): string {
  return JSON.stringify(s);
}

function compactDetails(d: StatusDetails): StatusDetails {
  const out: StatusDetails = {};
  if (d.name) out.name = d.name;
  if (d.group) out.group = d.group;
  if (d.kind) out.kind = d.kind;
  if (d.uid) out.uid = d.uid;
  if (d.causes && d.causes.length > 0) {
    out.causes = d.causes.map((c) => {
      const cause: StatusCause = {};
      if (c.reason) cause.reason = c.reason;
      if (c.message) cause.message = c.message;
      if (c.field) cause.field = c.field;
      return cause;
    });
  }
  if (d.retryAfterSeconds && d.retryAfterSeconds > 0) out.retryAfterSeconds = Math.floor(d.retryAfterSeconds);
  return out;
}

export interface StatusInit {
  code: number;
  reason: StatusReason;
  message: string;
  details?: StatusDetails;
  metadata?: StatusMetadata;
}

/** A failure `Status` object (no error wrapper). */
export function makeStatus(init: StatusInit): Status {
  const s: Status = {
    kind: "Status",
    apiVersion: "v1",
    metadata: { ...(init.metadata ?? {}) },
    status: "Failure",
    message: init.message,
    reason: init.reason,
    code: init.code,
  };
  if (init.details) s.details = compactDetails(init.details);
  return s;
}

/** A `StatusError` from the parts of a status. */
export function statusError(init: StatusInit): StatusError {
  return new StatusError(makeStatus(init));
}

/** The success `Status` returned by some deletes: `{status: "Success", details: {name, group, kind, uid}}`. */
export function successStatus(details?: StatusDetails): Status {
  const s: Status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", message: "", reason: "", code: 200 };
  if (details) s.details = compactDetails(details);
  return s;
}

// ---------------------------------------------------------------------------
// Resource errors

/** 404 NotFound: `pods "x" not found`, `deployments.apps "x" not found`. */
export function notFound(resource: string, name: string, group = ""): StatusError {
  return statusError({
    code: 404,
    reason: "NotFound",
    message: `${qualifiedResource(resource, group)} ${quote(name)} not found`,
    details: { name, group, kind: resource },
  });
}

/** 409 AlreadyExists: `pods "x" already exists`. */
export function alreadyExists(resource: string, name: string, group = ""): StatusError {
  return statusError({
    code: 409,
    reason: "AlreadyExists",
    message: `${qualifiedResource(resource, group)} ${quote(name)} already exists`,
    details: { name, group, kind: resource },
  });
}

/** 409 AlreadyExists when no unique name could be generated from `generateName`. */
export function generateNameConflict(resource: string, name: string, retryAfterSeconds: number, group = ""): StatusError {
  return statusError({
    code: 409,
    reason: "AlreadyExists",
    message: `${qualifiedResource(resource, group)} ${quote(name)} already exists, the server was not able to generate a unique name for the object`,
    details: { name, group, kind: resource, retryAfterSeconds },
  });
}

/** 409 Conflict: `Operation cannot be fulfilled on pods "x": <detail>`. */
export function conflict(resource: string, name: string, group = "", detail: string = OBJECT_MODIFIED_MESSAGE): StatusError {
  return statusError({
    code: 409,
    reason: "Conflict",
    message: `Operation cannot be fulfilled on ${qualifiedResource(resource, group)} ${quote(name)}: ${detail}`,
    details: { name, group, kind: resource },
  });
}

/** 409 Conflict of server-side apply, one cause per conflicting field. */
export function applyConflict(causes: StatusCause[], message: string): StatusError {
  return statusError({ code: 409, reason: "Conflict", message, details: { causes } });
}

/** `spec.replicas: Invalid value: -1: must be ...`: one field error on one line. */
export function fieldErrorLine(e: FieldError): string {
  return e.field ? `${e.field}: ${e.message}` : e.message;
}

/**
 * The platform's aggregate of field errors: the single message, or
 * `[m1, m2]` for several; identical lines are printed once.
 */
export function aggregateFieldErrors(errors: readonly FieldError[]): string {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const e of errors) {
    const line = fieldErrorLine(e);
    if (seen.has(line)) continue;
    seen.add(line);
    lines.push(line);
  }
  if (lines.length === 0) return "";
  return lines.length === 1 ? lines[0] : `[${lines.join(", ")}]`;
}

/** `Pod` or `Deployment.apps`: a kind qualified by its group. */
export function qualifiedKind(kind: string, group = ""): string {
  return group ? `${kind}.${group}` : kind;
}

/**
 * 422 Invalid: `Pod "x" is invalid: [spec.containers[0].image: Required value, ...]`,
 * with one cause per field error (`reason` = the error type, `message` = the body).
 */
export function invalid(kindName: string, name: string, errors: readonly FieldError[], group = ""): StatusError {
  const aggregate = aggregateFieldErrors(errors);
  const head = `${qualifiedKind(kindName, group)} ${quote(name)} is invalid`;
  return statusError({
    code: 422,
    reason: "Invalid",
    message: aggregate ? `${head}: ${aggregate}` : head,
    details: {
      name,
      group,
      kind: kindName,
      causes: errors.map((e) => ({ reason: e.type, message: e.message, field: e.field })),
    },
  });
}

// ---------------------------------------------------------------------------
// Request errors

/** 400 BadRequest with the message as given. */
export function badRequest(message: string): StatusError {
  return statusError({ code: 400, reason: "BadRequest", message });
}

/** 401 Unauthorized; the server's authentication filter says `Unauthorized`. */
export function unauthorized(message = "Unauthorized"): StatusError {
  return statusError({ code: 401, reason: "Unauthorized", message: message || "not authorized" });
}

export interface ForbiddenAttributes {
  user: string;
  verb: string;
  /** Empty for a non-resource request (then `path` is printed). */
  resource?: string;
  group?: string;
  namespace?: string;
  name?: string;
  subresource?: string;
  /** Request path, for non-resource requests. */
  path?: string;
  /** Authorizer's reason, appended as `: <reason>`. */
  reason?: string;
}

/**
 * The denial text of the authorization filter:
 * `User "u" cannot get resource "pods/log" in API group "" in the namespace "ns"`,
 * `... at the cluster scope`, or `User "u" cannot get path "/logs"`.
 */
export function forbiddenMessage(a: ForbiddenAttributes): string {
  if (!a.resource) return `User ${quote(a.user)} cannot ${a.verb} path ${quote(a.path ?? "")}`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const head = `User ${quote(a.user)} cannot ${a.verb} resource ${quote(resource)} in API group ${quote(a.group ?? "")}`;
  return a.namespace ? `${head} in the namespace ${quote(a.namespace)}` : `${head} at the cluster scope`;
}

/**
 * 403 Forbidden of the authorization filter:
 * `pods "x" is forbidden: User "u" cannot get resource "pods" in API group "" in the namespace "ns"`.
 */
export function forbidden(a: ForbiddenAttributes): StatusError {
  const msg = forbiddenMessage(a);
  return forbiddenWithReason(a.resource ?? "", a.name ?? "", a.reason ? `${msg}: ${a.reason}` : msg, a.group ?? "");
}

/**
 * 403 Forbidden with a free-form reason (admission, namespace termination, ...):
 * `forbidden: <err>`, `pods is forbidden: <err>` or `pods "x" is forbidden: <err>`.
 */
export function forbiddenWithReason(resource: string, name: string, err: string, group = ""): StatusError {
  let message: string;
  if (!resource && !group) message = `forbidden: ${err}`;
  else if (!name) message = `${qualifiedResource(resource, group)} is forbidden: ${err}`;
  else message = `${qualifiedResource(resource, group)} ${quote(name)} is forbidden: ${err}`;
  return statusError({ code: 403, reason: "Forbidden", message, details: { name, group, kind: resource } });
}

/** 405 MethodNotAllowed: `create is not supported on resources of kind "nodes/proxy"`. */
export function methodNotAllowed(resource: string, action: string, group = ""): StatusError {
  return statusError({
    code: 405,
    reason: "MethodNotAllowed",
    message: `${action} is not supported on resources of kind ${quote(qualifiedResource(resource, group))}`,
    details: { group, kind: resource },
  });
}

/** 406 NotAcceptable: `only the following media types are accepted: application/json, ...`. */
export function notAcceptable(accepted: readonly string[]): StatusError {
  return statusError({ code: 406, reason: "NotAcceptable", message: `only the following media types are accepted: ${accepted.join(", ")}` });
}

/** 415 UnsupportedMediaType: `the body of the request was in an unknown format - accepted media types include: ...`. */
export function unsupportedMediaType(accepted: readonly string[]): StatusError {
  return statusError({
    code: 415,
    reason: "UnsupportedMediaType",
    message: `the body of the request was in an unknown format - accepted media types include: ${accepted.join(", ")}`,
  });
}

/** 413 RequestEntityTooLarge: `Request entity too large: <message>`. */
export function requestEntityTooLarge(message: string): StatusError {
  return statusError({ code: 413, reason: "RequestEntityTooLarge", message: `Request entity too large: ${message}` });
}

// ---------------------------------------------------------------------------
// Resource version errors

/** 410 Gone (deprecated reason; prefer `resourceExpired`). */
export function gone(message: string): StatusError {
  return statusError({ code: 410, reason: "Gone", message });
}

/** 410 Expired with the message as given; `continueToken` fills `metadata.continue`. */
export function resourceExpired(message: string, continueToken?: string): StatusError {
  return statusError({ code: 410, reason: "Expired", message, metadata: continueToken ? { continue: continueToken } : {} });
}

/** 410 Expired of a watch or list below the kept history: `too old resource version: 5 (10)`. */
export function tooOldResourceVersion(requested: number | bigint | string, oldest: number | bigint | string): StatusError {
  return resourceExpired(`too old resource version: ${requested} (${oldest})`);
}

/**
 * 410 Expired of a list continued with a compacted token. With `inconsistentContinue`
 * the client may go on with an inconsistent list (the token goes to `metadata.continue`).
 */
export function continueExpired(inconsistentContinue?: string): StatusError {
  return resourceExpired(CONTINUE_EXPIRED_MESSAGE, inconsistentContinue);
}

/** 410 Expired of a list at a compacted `resourceVersion` (no continue token). */
export function listExpired(): StatusError {
  return resourceExpired(LIST_EXPIRED_MESSAGE);
}

/** 504 Timeout: `Timeout: <message>`, with `details.retryAfterSeconds`. */
export function timeout(message: string, retryAfterSeconds = 0): StatusError {
  return statusError({ code: 504, reason: "Timeout", message: `Timeout: ${message}`, details: { retryAfterSeconds } });
}

/**
 * 504 Timeout for a resource version the server has not reached:
 * `Timeout: Too large resource version: 12, current: 10`, cause `ResourceVersionTooLarge`.
 */
export function tooLargeResourceVersion(requested: number | bigint | string, current: number | bigint | string, retryAfterSeconds = 1): StatusError {
  return statusError({
    code: 504,
    reason: "Timeout",
    message: `Timeout: Too large resource version: ${requested}, current: ${current}`,
    details: { retryAfterSeconds, causes: [{ reason: CAUSE_RESOURCE_VERSION_TOO_LARGE, message: "Too large resource version" }] },
  });
}

/** 500 ServerTimeout: `The get operation against pods could not be completed at this time, please try again.` */
export function serverTimeout(resource: string, operation: string, retryAfterSeconds: number, group = ""): StatusError {
  return statusError({
    code: 500,
    reason: "ServerTimeout",
    message: `The ${operation} operation against ${qualifiedResource(resource, group)} could not be completed at this time, please try again.`,
    details: { group, kind: resource, name: operation, retryAfterSeconds },
  });
}

// ---------------------------------------------------------------------------
// Server errors

export const TOO_MANY_REQUESTS_MESSAGE = "Too many requests, please try again later.";

/** 429 TooManyRequests with `details.retryAfterSeconds` (sent as `Retry-After`). */
export function tooManyRequests(message: string = TOO_MANY_REQUESTS_MESSAGE, retryAfterSeconds = 1): StatusError {
  return statusError({ code: 429, reason: "TooManyRequests", message, details: { retryAfterSeconds } });
}

/** 500 InternalError: `Internal error occurred: <message>`, the message also as the only cause. */
export function internalError(err: unknown): StatusError {
  const message = errorText(err);
  return statusError({ code: 500, reason: "InternalError", message: `Internal error occurred: ${message}`, details: { causes: [{ message }] } });
}

/** 503 ServiceUnavailable with the message as given. */
export function serviceUnavailable(message: string, retryAfterSeconds = 0): StatusError {
  return statusError({ code: 503, reason: "ServiceUnavailable", message, details: retryAfterSeconds > 0 ? { retryAfterSeconds } : undefined });
}

// ---------------------------------------------------------------------------
// Conversion

/** The one-line text of anything thrown, never a stack trace. */
export function errorText(err: unknown): string {
  let text: string;
  if (err instanceof Error) text = err.message || err.name;
  else if (typeof err === "string") text = err;
  else if (typeof err === "number" || typeof err === "boolean" || typeof err === "bigint") text = String(err);
  else if (err === null || err === undefined) text = "unknown error";
  else {
    const m = (err as { message?: unknown }).message;
    text = typeof m === "string" && m ? m : "unknown error";
  }
  // A message that embeds a stack (`Error: x\n    at f (file:1:2)`) keeps only its first line.
  const nl = text.indexOf("\n");
  return nl >= 0 ? text.slice(0, nl) : text;
}

function isStatusObject(v: unknown): v is Status {
  if (typeof v !== "object" || v === null) return false;
  const o = v as Record<string, unknown>;
  return o.kind === "Status" && typeof o.code === "number" && typeof o.message === "string";
}

/** Turns anything thrown into a failure `Status`: a `StatusError`'s own, else a 500 InternalError. */
export function toStatus(err: unknown): Status {
  if (err instanceof StatusError) return err.status;
  if (isStatusObject(err)) {
    return makeStatus({
      code: err.code,
      reason: err.reason ?? "",
      message: err.message,
      details: err.details,
      metadata: err.metadata,
    });
  }
  if (typeof err === "object" && err !== null && isStatusObject((err as { status?: unknown }).status)) {
    return toStatus((err as { status: unknown }).status);
  }
  return internalError(err).status;
}

/** Wraps anything thrown in a `StatusError` (identity for a `StatusError`). */
export function toStatusError(err: unknown): StatusError {
  return err instanceof StatusError ? err : new StatusError(toStatus(err));
}

/** True when `err` is a `StatusError`, optionally of the given reason. */
export function isStatusError(err: unknown, reason?: StatusReason): err is StatusError {
  return err instanceof StatusError && (reason === undefined || err.status.reason === reason);
}

/** HTTP headers a status implies: `Retry-After` when it names a delay. */
export function statusHeaders(status: Status): Record<string, string> {
  const retry = status.details?.retryAfterSeconds;
  return retry && retry > 0 ? { "Retry-After": String(retry) } : {};
}
