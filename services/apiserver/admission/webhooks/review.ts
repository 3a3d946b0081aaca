/**
 * AdmissionReview v1 and v1beta1: the request a webhook receives (in the first
 * version of its `admissionReviewVersions` this server speaks) and the checks of
 * its answer: same version and kind, the request's uid, `allowed`, a JSONPatch
 * only from mutating webhooks. v1beta1 answers without apiVersion are accepted
 * the way the platform accepts them. `encodeReviewRequest` is the same request as
 * JSON text, with `object` and `oldObject` taken from a per-phase memo, so that the
 * webhooks of one phase (and the old object across both phases) encode each object
 * once however many webhooks they call.
 */
import type { PlatformProfile } from "../../../../shared/platform/index.ts";
import { isObject, type JsonObject } from "../../storage/object.ts";
import type { Attributes } from "../interfaces.ts";
import { EncodedJson, WebhookCallError } from "./client.ts";

export const REVIEW_VERSIONS = ["v1", "v1beta1"];

export function admissionGroup(profile: PlatformProfile): string {
  return `admission.${profile.groupDomain}`;
}

/** The first of the webhook's versions that this server speaks; undefined when none. */
export function reviewVersion(accepted: readonly string[]): string | undefined {
  return accepted.find((v) => REVIEW_VERSIONS.includes(v));
}

const OPTION_KINDS: Record<string, string> = { CREATE: "CreateOptions", UPDATE: "UpdateOptions", DELETE: "DeleteOptions", CONNECT: "" };

/** The request object; `object` may be the mutated or converted form. */
export function reviewRequest(profile: PlatformProfile, version: string, uid: string, a: Attributes, object: JsonObject | undefined, oldObject: JsonObject | undefined, as?: { version: string }): JsonObject {
  const kind = { group: a.kind.group, version: as?.version ?? a.kind.version, kind: a.kind.kind };
  const resource = { group: a.resource.group, version: as?.version ?? a.resource.version, resource: a.resource.resource };
  const optionsKind = OPTION_KINDS[a.operation];
  const options = a.options ?? (optionsKind ? { ...(a.dryRun ? { dryRun: ["All"] } : {}) } : undefined);
  const request: JsonObject = {
    uid,
    kind,
    resource,
    requestKind: { ...a.kind },
    requestResource: { ...a.resource },
    name: a.name || undefined,
    namespace: a.namespace || undefined,
    operation: a.operation,
    userInfo: { username: a.userInfo.username, uid: a.userInfo.uid, groups: a.userInfo.groups, extra: a.userInfo.extra },
    object: object ?? null,
    oldObject: oldObject ?? null,
    dryRun: a.dryRun,
    options: options && optionsKind ? { apiVersion: `${profile.group("meta")}/v1`, kind: optionsKind, ...options } : null,
  };
  if (a.subresource) {
    request.subResource = a.subresource;
    request.requestSubResource = a.subresource;
  }
  return { apiVersion: `${admissionGroup(profile)}/${version}`, kind: "AdmissionReview", request };
}

/**
 * The JSON text of objects already encoded, by identity. Valid while the objects
 * are not changed in place: one memo serves one phase's calls on one object (the
 * validating webhooks run in parallel on the same object), never a mutating plugin.
 */
export class EncodedObjects {
  private readonly texts = new Map<JsonObject, string>();

  text(obj: JsonObject | undefined): string {
    if (!obj) return "null";
    let t = this.texts.get(obj);
    if (t === undefined) {
      t = JSON.stringify(obj);
      this.texts.set(obj, t);
    }
    return t;
  }
}

/** `reviewRequest` as JSON text (the same document; `object` and `oldObject` come last in `request`), the objects from `memo`. */
export function encodeReviewRequest(profile: PlatformProfile, version: string, uid: string, a: Attributes, object: JsonObject | undefined, oldObject: JsonObject | undefined, memo: EncodedObjects, as?: { version: string }): EncodedJson {
  const review = reviewRequest(profile, version, uid, a, undefined, undefined, as);
  const { object: _o, oldObject: _old, ...request } = review.request as JsonObject;
  const head = JSON.stringify({ apiVersion: review.apiVersion, kind: review.kind });
  const rest = JSON.stringify(request);
  return new EncodedJson(`${head.slice(0, -1)},"request":${rest.slice(0, -1)},"object":${memo.text(object)},"oldObject":${memo.text(oldObject)}}}`);
}

export interface ReviewResponse {
  allowed: boolean;
  status?: JsonObject;
  /** Decoded JSONPatch operations. */
  patch?: unknown[];
  warnings: string[];
  auditAnnotations: Record<string, string>;
}

/** A field of an untrusted answer as text for a message: strings as they are, anything else as JSON (never calls the value's own methods). */
function displayValue(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return "<unprintable>";
  }
}

/** Checks and decodes a webhook's answer; problems are WebhookCallErrors (failure policy applies). */
export function parseReviewResponse(profile: PlatformProfile, version: string, uid: string, body: unknown, mutating: boolean): ReviewResponse {
  if (!isObject(body)) throw new WebhookCallError("received invalid webhook response: not an object");
  const expected = `${admissionGroup(profile)}/${version}`;
  const apiVersionOk = body.apiVersion === expected || (version === "v1beta1" && body.apiVersion === undefined);
  if (!apiVersionOk || (body.kind !== "AdmissionReview" && !(version === "v1beta1" && body.kind === undefined))) {
    throw new WebhookCallError(`received invalid webhook response: expected webhook response of ${expected}, Kind=AdmissionReview, got ${displayValue(body.apiVersion)}, Kind=${displayValue(body.kind)}`);
  }
  const r = body.response;
  if (!isObject(r)) throw new WebhookCallError("received invalid webhook response: webhook response was absent");
  if (r.uid !== uid) throw new WebhookCallError(`received invalid webhook response: expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(r.uid ?? "")}`);
  if (typeof r.allowed !== "boolean") throw new WebhookCallError("received invalid webhook response: response.allowed must be a boolean");
  const out: ReviewResponse = { allowed: r.allowed, warnings: [], auditAnnotations: {} };
  if (isObject(r.status)) out.status = r.status;
  if (Array.isArray(r.warnings)) out.warnings = r.warnings.filter((w): w is string => typeof w === "string");
  if (isObject(r.auditAnnotations)) for (const [k, v] of Object.entries(r.auditAnnotations)) if (typeof v === "string") out.auditAnnotations[k] = v;
  if (r.patch !== undefined && r.patch !== null && r.patch !== "") {
    if (!mutating) throw new WebhookCallError("received invalid webhook response: validating webhooks may not return patches");
    if (r.patchType !== "JSONPatch") throw new WebhookCallError(`received invalid webhook response: unsupported patch type ${JSON.stringify(r.patchType ?? "")}`);
    if (typeof r.patch !== "string") throw new WebhookCallError("received invalid webhook response: patch must be base64 text");
    let ops: unknown;
    try {
      ops = JSON.parse(Buffer.from(r.patch, "base64").toString("utf8"));
    } catch (err) {
      throw new WebhookCallError(`received invalid webhook response: the patch is not JSON: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (!Array.isArray(ops)) throw new WebhookCallError("received invalid webhook response: the patch is not a JSON array");
    out.patch = ops;
  }
  return out;
}
