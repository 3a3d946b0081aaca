/**
 * PATCH: JSON patch (RFC 6902), merge patch (RFC 7386) and, through the patcher
 * table, strategic merge patch and server-side apply. The logical operation is an
 * update computed from the current object; a patch of a missing object is 404
 * (apply creates).
 */
import fastJsonPatch from "fast-json-patch";
import { badRequest, statusError, unsupportedMediaType } from "../../../../shared/api/status.ts";
import { finishDeletionIfDone } from "../../registry/deletion.ts";
import { isObject, type JsonObject } from "../../storage/object.ts";
import { decodeBody, readBody } from "../body.ts";
import { respond } from "../encode.ts";
import { writeContext, type RequestScope } from "../scope.ts";
import { checkFields, parseDryRun, parseFieldValidation } from "../write-options.ts";
import { checkTypeMeta } from "./decode-object.ts";
import { applyPatchTypes, recordWrite } from "../field-manager.ts";
import { strategicMergePatch, StrategicMergeError } from "../../../../shared/schema/strategic-merge.ts";
import { withTypeMeta } from "./read.ts";

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

/** RFC 7386: objects merge recursively, null deletes, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  const out: JsonObject = isObject(target) ? structuredClone(target) : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

function requireCurrent(s: RequestScope, current: JsonObject | undefined): JsonObject {
  if (!current) throw statusError({ code: 404, reason: "NotFound", message: `${s.resource.group ? `${s.resource.plural}.${s.resource.group}` : s.resource.plural} "${s.name}" not found`, details: { name: s.name, group: s.resource.group, kind: s.resource.plural } });
  return current;
}

/**
 * RFC 6902 on a copy: every operation is validated, and a failed `test` (or any
 * failing operation) leaves the document unchanged and throws a Status.
 */
export function applyJsonPatch(doc: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) throw badRequest("the JSON patch must be an array of operations");
  try {
    return fastJsonPatch.applyPatch(doc, ops as fastJsonPatch.Operation[], true, false).newDocument;
  } catch (err) {
    const e = err as { name?: string; message?: string; operation?: { op?: string; path?: string } };
    if (e.name === "TEST_OPERATION_FAILED") {
      throw statusError({ code: 422, reason: "Invalid", message: `the server rejected our request due to an error in our request: test operation failed at ${e.operation?.path ?? ""}` });
    }
    throw badRequest(`the server rejected our request due to an error in our request: ${(e.message ?? String(err)).split("\n")[0]}`);
  }
}

const jsonPatch: Patcher = (s, body, current) => {
  const cur = requireCurrent(s, current);
  const { value } = decodeBody(body, "json");
  return applyJsonPatch(cur, value) as JsonObject;
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
    if (err instanceof StrategicMergeError) {
      throw statusError({ code: err.code, reason: err.code === 400 ? "BadRequest" : err.code === 422 ? "Invalid" : "InternalError", message: err.message });
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
      const checked = checkFields(s, s.resource.def.schema, patched, [], mode);
      checkTypeMeta(checked, s);
      return type.isApply ? checked : recordWrite(s, current, checked);
    },
    writeContext(s, dryRun),
    { forceAllowCreate: type.createsWhenAbsent },
  );
  const finished = await finishDeletionIfDone(s.registry, s.namespace, object, dryRun);
  return respond(s, withTypeMeta(finished ?? object, s), created ? 201 : 200, "object");
}
