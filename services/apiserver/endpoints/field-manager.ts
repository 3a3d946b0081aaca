/**
 * Joins handlers to the field manager: every write records its manager in
 * `metadata.managedFields` (Update), and `application/apply-patch+yaml` (and
 * `+cbor` behind its gate) runs server-side apply. Managers for updates come from
 * `fieldManager` or, when absent, from the User-Agent.
 */
import { applyPatch, fieldPaths, recordUpdate, type KindContext } from "../fieldmanager/index.ts";
import { badRequest } from "../../../shared/api/status.ts";
import { decodeCbor } from "../../../shared/codec/cbor.ts";
import { parseBool } from "./list-options.ts";
import { deepEqual, withOwn } from "../../../shared/schema/values.ts";
import type { JsonObject } from "../storage/object.ts";
import { decodeBody } from "./body.ts";
import type { Patcher, PatchType } from "./handlers/patch.ts";
import type { RequestScope } from "./scope.ts";
import { parseFieldManager } from "./write-options.ts";

export const APPLY_PATCH_YAML = "application/apply-patch+yaml";
export const APPLY_PATCH_CBOR = "application/apply-patch+cbor";

function kindContext(s: RequestScope): KindContext {
  const hasStatus = (s.resource.def.subresources ?? []).includes("status");
  let resetFields;
  if (s.subresource === "status") resetFields = s.resource.def.schema.properties?.spec ? fieldPaths("spec") : undefined;
  else if (hasStatus) resetFields = fieldPaths("status");
  return { schema: s.resource.def.schema, apiVersion: s.resource.apiVersion, kind: s.resource.kind, subresource: s.subresource, resetFields };
}

function withoutManagedFields(obj: JsonObject): JsonObject {
  const { metadata, ...rest } = obj;
  const { managedFields: _mf, resourceVersion: _rv, ...meta } = (metadata ?? {}) as Record<string, unknown>;
  return withOwn(rest, { metadata: meta });
}

/**
 * The object to store after a non-apply write, with managedFields recording it.
 * A write that changes nothing keeps the stored managedFields, so it stays a no-op.
 */
export function recordWrite(s: RequestScope, live: JsonObject | undefined, object: JsonObject): JsonObject {
  const requested = (object.metadata as Record<string, unknown> | undefined)?.managedFields;
  const liveManaged = live ? (live.metadata as Record<string, unknown>).managedFields : undefined;
  if (live && (requested === undefined || deepEqual(requested, liveManaged)) && deepEqual(withoutManagedFields(live), withoutManagedFields(object))) {
    return { ...object, metadata: withOwn(object.metadata as Record<string, unknown>, { managedFields: liveManaged }) };
  }
  const manager = parseFieldManager(s.query, s.request.headers.get("user-agent"), false, s.profile.metaGroup) ?? "unknown";
  return recordUpdate({ kind: kindContext(s), live, object, manager, now: new Date() }) as JsonObject;
}

function applyPatcher(format: "yaml" | "cbor"): Patcher {
  return (s, body, current) => {
    const manager = parseFieldManager(s.query, null, true, s.profile.metaGroup) as string;
    const force = parseBool(s.query.get("force")) ?? false;
    let patch: unknown;
    if (format === "cbor") {
      try {
        patch = decodeCbor(body);
      } catch (err) {
        throw badRequest(`error decoding CBOR: ${err instanceof Error ? err.message : String(err)}`);
      }
    } else patch = decodeBody(body, "yaml").value;
    return applyPatch({ kind: kindContext(s), live: current, patch, manager, force, now: new Date() }) as JsonObject;
  };
}

/** Apply patch types for a request (CBOR only with the gate). */
export function applyPatchTypes(cbor: boolean): Array<[string, PatchType]> {
  const types: Array<[string, PatchType]> = [[APPLY_PATCH_YAML, { patch: applyPatcher("yaml"), createsWhenAbsent: true, isApply: true }]];
  if (cbor) types.push([APPLY_PATCH_CBOR, { patch: applyPatcher("cbor"), createsWhenAbsent: true, isApply: true }]);
  return types;
}
