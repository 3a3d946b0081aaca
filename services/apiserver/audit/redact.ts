/**
 * Credentials never reach an audit event: the token a TokenReview asks about, and the
 * token a TokenRequest returns, are replaced before an event keeps a request or
 * response object. (Bearer headers and client keys are never copied into events.)
 * Other objects, Secrets among them, appear as the policy's level chose.
 */
import type { PlatformProfile } from "../../../shared/platform/index.ts";

export const REDACTED = "[REDACTED]";

export interface ObjectTarget {
  apiGroup?: string;
  resource: string;
  subresource?: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function redactField(obj: unknown, section: "spec" | "status"): unknown {
  if (!isObj(obj) || !isObj(obj[section]) || !("token" in obj[section])) return obj;
  return { ...obj, [section]: { ...obj[section], token: REDACTED } };
}

/** The object with its credentials replaced (a copy when something changed). */
export function redactCredentials(profile: PlatformProfile, target: ObjectTarget | undefined, obj: unknown): unknown {
  if (!target) return obj;
  const group = target.apiGroup ?? "";
  if (group === profile.group("authentication") && target.resource === "tokenreviews") return redactField(obj, "spec");
  if (group === "" && target.resource === "serviceaccounts" && target.subresource === "token") return redactField(redactField(obj, "status"), "spec");
  return obj;
}

/** The object without metadata.managedFields (the policy's omitManagedFields); lists lose it on every item. */
export function withoutManagedFields(obj: unknown): unknown {
  if (!isObj(obj)) return obj;
  let out: Obj = obj;
  if (isObj(obj.metadata) && "managedFields" in obj.metadata) {
    const { managedFields: _dropped, ...metadata } = obj.metadata;
    out = { ...obj, metadata };
  }
  if (Array.isArray(obj.items)) out = { ...out, items: obj.items.map(withoutManagedFields) };
  return out;
}
