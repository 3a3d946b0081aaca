/**
 * Query parameters shared by create, update, patch and delete: `dryRun` (unset or
 * `All`), `fieldValidation` (Ignore, Warn — the default —, Strict) and `fieldManager`.
 */
import { badRequest, invalid } from "../../../shared/api/status.ts";
import { findUnknownFields, prune } from "../../../shared/schema/index.ts";
import type { Schema } from "../../../shared/schema/types.ts";
import { withOlderManagedFieldsRead } from "../fieldmanager/managed-fields.ts";
import { isObject, type JsonObject } from "../storage/object.ts";
import { warningHeader, type RequestScope } from "./scope.ts";

export type FieldValidation = "Ignore" | "Warn" | "Strict";

export function parseDryRun(q: URLSearchParams): boolean {
  const values = q.getAll("dryRun");
  if (values.length === 0) return false;
  for (const v of values) {
    if (v !== "All") {
      throw badRequest(`Invalid dryRun value: "${v}": supported values: "All"`);
    }
  }
  return true;
}

export function parseFieldValidation(q: URLSearchParams): FieldValidation {
  const v = q.get("fieldValidation");
  if (v === null || v === "") return "Warn";
  const normalized = v.charAt(0).toUpperCase() + v.slice(1).toLowerCase();
  if (normalized === "Ignore" || normalized === "Warn" || normalized === "Strict") return normalized;
  throw badRequest(`fieldValidation parameter unsupported: ${v}`);
}

export function parseFieldManager(q: URLSearchParams, userAgent: string | null, required: boolean, metaGroup: string): string | undefined {
  const v = q.get("fieldManager");
  if (v !== null && v !== "") {
    if (v.length > 128) {
      throw invalid("PatchOptions", "", [{ type: "FieldValueTooLong", field: "fieldManager", value: v, message: "may not be more than 128 bytes" }], metaGroup);
    }
    return v;
  }
  if (required) throw invalid("PatchOptions", "", [{ type: "FieldValueRequired", field: "fieldManager", message: "is required for apply patch" }], metaGroup);
  if (!userAgent) return undefined;
  // The platform's default manager: the user agent's program name, up to the first "/".
  return userAgent.split("/")[0].slice(0, 128);
}

/**
 * Applies the field validation mode to a decoded body: Strict rejects unknown and
 * duplicate fields (400 listing every one), Warn drops them and adds one Warning each,
 * Ignore drops them silently. Returns the object with unknown fields removed. Managed
 * fields entries of the older form (`fields`) are first read as FieldsV1.
 */
export function checkFields(s: RequestScope, schema: Schema, value: unknown, duplicates: string[], mode: FieldValidation): JsonObject {
  if (!isObject(value)) throw badRequest("the request body must be a JSON or YAML object");
  const read = withOlderManagedFieldsRead(value);
  const unknown = findUnknownFields(schema, read);
  const problems = [...duplicates.map((p) => `duplicate field "${p}"`), ...unknown.map((p) => `unknown field "${p}"`)];
  if (problems.length > 0) {
    if (mode === "Strict") throw badRequest(`strict decoding error: ${problems.join(", ")}`);
    if (mode === "Warn") for (const p of problems) s.warnings.push(warningHeader(p));
  }
  return unknown.length > 0 ? pruneUnknown(schema, read) : read;
}

function pruneUnknown(schema: Schema, value: JsonObject): JsonObject {
  return prune(schema, value).value as JsonObject;
}
