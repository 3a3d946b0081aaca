/**
 * PATCH: JSON patch (RFC 6902), merge patch (RFC 7386) and, through the patcher
 * table, strategic merge patch and server-side apply. The logical operation is an
 * update computed from the current object; a patch of a missing object is 404
 * (apply creates).
 */
import { badRequest, statusError, unsupportedMediaType } from "../../../../shared/api/status.ts";
import { isObject, type JsonObject } from "../../storage/object.ts";
import { decodeBody, readBody } from "../body.ts";
import { respond } from "../encode.ts";
import { writeContext, type RequestScope } from "../scope.ts";
import { checkFields, parseDryRun, parseFieldValidation } from "../write-options.ts";
import { checkTypeMeta } from "./decode-object.ts";
import { applyPatchTypes, recordWrite } from "../field-manager.ts";
import { strategicMergePatch, StrategicMergeError } from "../../../../shared/schema/strategic-merge.ts";
import { withTypeMeta } from "./read.ts";
import { applyJsonPatchBounded } from "./json-patch.ts";
import { checkPatchedIdentity } from "./patch-identity.ts";
import { cloneValue } from "../../../../shared/schema/values.ts";

/** Computes the patched object from the current one (undefined when absent). */
export type Patcher = (s: RequestScope, body: Uint8Array, current: JsonObject | undefined) => JsonObject | Promise<JsonObject>;

export interface PatchType {
  patch: Patcher;
  /** Creates the object when absent (server-side apply). */
  createsWhenAbsent?: boolean;
  /** Server-side apply: the patcher records managedFields itself. */
  isApply?: boolean;
}

export const JSON_PATCH = "application/json-patch+json";
export const MERGE_PATCH = "application/merge-patch+json";
export const STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json";

/**
 * RFC 7386: objects merge recursively, null deletes, anything else replaces. One
 * copy of the target, merged in place: the work is linear in target + patch.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return cloneValue(patch);
  const out: JsonObject = isObject(target) ? cloneValue(target) : {};
  mergeInto(out, patch);
  return out;
}

function mergeInto(out: JsonObject, patch: JsonObject): void {
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) {
      delete out[k];
      continue;
    }
    let next: unknown;
    if (isObject(v)) {
      const cur = Object.hasOwn(out, k) ? out[k] : undefined;
      const child: JsonObject = isObject(cur) ? cur : {};
      mergeInto(child, v);
      next = child;
    } else next = cloneValue(v);
    // A "__proto__" key of the patch stays an ordinary member (plain assignment would set the prototype).
    if (k === "__proto__") Object.defineProperty(out, k, { value: next, writable: true, enumerable: true, configurable: true });
    else out[k] = next;
  }
}

function requireCurrent(s: RequestScope, current: JsonObject | undefined): JsonObject {
  if (!current) throw statusError({ code: 404, reason: "NotFound", message: `${s.resource.group ? `${s.resource.plural}.${s.resource.group}` : s.resource.plural} "${s.name}" not found`, details: { name: s.name, group: s.resource.group, kind: s.resource.plural } });
  return current;
}

/**
 * RFC 6902 on a copy, under the platform's bounds (operation count, copy growth,
 * time slicing): a failing operation leaves the document unchanged and throws a Status.
 */
export function applyJsonPatch(doc: unknown, ops: unknown): Promise<unknown> {
  return applyJsonPatchBounded(doc, ops);
}

const jsonPatch: Patcher = async (s, body, current) => {
  const cur = requireCurrent(s, current);
  const { value } = decodeBody(body, "json");
  const patched = await applyJsonPatch(cur, value);
  if (!isObject(patched)) throw badRequest("the JSON patch must leave an object");
  return patched;
};

const mergePatcher: Patcher = (s, body, current) => {
  const cur = requireCurrent(s, current);
  const { value } = decodeBody(body, "json");
  if (!isObject(value)) throw badRequest("the merge patch must be a JSON object");
  return mergePatch(cur, value) as JsonObject;
};

/** Strategic merge patch: merge keys and strategies from the kind's schema (built-in kinds only). */
const strategicPatcher: Patcher = (s, body, current) => {
  const cur = requireCurrent(s, current);
  const { value } = decodeBody(body, "json");
  if (!isObject(value)) throw badRequest("the strategic merge patch must be a JSON object");
  try {
    return strategicMergePatch(s.resource.def.schema, cur, value) as JsonObject;
  } catch (err) {
    // The safe message carries no value of the patch or the object (they may be secrets).
    if (err instanceof StrategicMergeError) {
      throw err.code === 422 ? statusError({ code: 422, reason: "Invalid", message: err.safeMessage }) : badRequest(err.safeMessage);
    }
    throw err;
  }
};

export const PATCH_TYPES: Map<string, PatchType> = new Map([
  [JSON_PATCH, { patch: jsonPatch }],
  [MERGE_PATCH, { patch: mergePatcher }],
  [STRATEGIC_MERGE_PATCH, { patch: strategicPatcher }],
]);

export async function handlePatch(s: RequestScope): Promise<Response> {
  const contentType = (s.request.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  const patchTypes = new Map(PATCH_TYPES);
  for (const [name, t] of applyPatchTypes(s.cbor)) patchTypes.set(name, t);
  // Custom resources have no strategic merge semantics (the platform answers 415).
  if (s.resource.def.custom) patchTypes.delete(STRATEGIC_MERGE_PATCH);
  const type = patchTypes.get(contentType);
  if (!type) throw unsupportedMediaType([...patchTypes.keys()]);
  const dryRun = parseDryRun(s.query);
  const mode = parseFieldValidation(s.query);
  const body = await readBody(s.request, s.maxBodyBytes);
  const name = s.name as string;
  const { object, created } = await s.registry.update(
    s.namespace,
    name,
    async (current) => {
      const patched = await type.patch(s, body, current);
      if (current && !type.isApply) checkPatchedIdentity(s, current, patched);
      const checked = checkFields(s, s.resource.def.schema, patched, [], mode);
      checkTypeMeta(checked, s);
      return type.isApply ? checked : recordWrite(s, current, checked);
    },
    writeContext(s, dryRun, type.createsWhenAbsent ? s.authorizeCreate : undefined),
    { forceAllowCreate: type.createsWhenAbsent },
  );
  return respond(s, withTypeMeta(object, s), created ? 201 : 200, "object");
}
