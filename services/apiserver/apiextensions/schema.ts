/**
 * Converts a CRD version's `openAPIV3Schema` (JSON, with the profile's vendor
 * extensions) into the shared typed schema (shared/schema/types.ts), so custom
 * resources share the engine of the built-in kinds: validation, unknown-field
 * detection, pruning, defaulting, OpenAPI output and apply's merge semantics.
 *
 * The root's `metadata` is replaced by ObjectMeta, and `apiVersion`/`kind` are
 * strings, as the platform does. Formats the engine does not know are ignored
 * (as the platform ignores unknown formats). Never throws: the CRD was
 * validated (structural) before it is served; anything else is skipped.
 */
import { objectMeta } from "../../../shared/api/groups/meta-v1.ts";
import type { ExtensionNames } from "../../../shared/platform/index.ts";
import type { ListType, MapType, Schema, SchemaFormat, SchemaType } from "../../../shared/schema/types.ts";
import { isObject } from "../storage/object.ts";

const TYPES: ReadonlySet<string> = new Set(["object", "array", "string", "integer", "number", "boolean"]);
/** OpenAPI formats the engine checks with the platform's semantics. */
const FORMATS: Readonly<Record<string, SchemaFormat>> = {
  int32: "int32",
  int64: "int64",
  double: "double",
  byte: "byte",
  "date-time": "date-time",
  date: "date",
  duration: "duration",
};
const MAX_DEPTH = 256;

type Json = Record<string, unknown>;

function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

function strings(v: unknown): string[] | undefined {
  return Array.isArray(v) && v.every((x) => typeof x === "string") ? (v as string[]) : undefined;
}

/** One schema node (not the root). */
export function convertNode(node: unknown, ext: ExtensionNames, depth = 0): Schema {
  if (!isObject(node) || depth > MAX_DEPTH) return { preserveUnknownFields: true };
  const s: Schema = {};
  const n = node as Json;
  if (typeof n.type === "string" && TYPES.has(n.type)) s.type = n.type as SchemaType;
  if (typeof n.description === "string") s.description = n.description;
  if (typeof n.format === "string" && FORMATS[n.format] && (s.type === "string" || s.type === "integer" || s.type === "number")) {
    const f = FORMATS[n.format];
    if ((f === "int32" || f === "int64") === (s.type === "integer") || (f === "double" && s.type === "number")) s.format = f;
    else if (s.type === "string" && f !== "int32" && f !== "int64" && f !== "double") s.format = f;
  }
  if (n.default !== undefined) s.default = n.default;
  if (n.nullable === true) s.nullable = true;
  if (Array.isArray(n.enum)) s.enum = n.enum as Array<string | number>;
  for (const k of ["minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems", "maxProperties"] as const) {
    const v = num(n[k]);
    if (v !== undefined) s[k] = v;
  }
  if (typeof n.pattern === "string") s.pattern = n.pattern;
  const required = strings(n.required);
  if (required && required.length > 0) s.required = required;
  if (n[ext.intOrString] === true) s.intOrString = true;
  if (n[ext.preserveUnknownFields] === true) s.preserveUnknownFields = true;
  if (n[ext.embeddedResource] === true) s.embeddedResource = true;
  const listType = n[ext.listType];
  if (listType === "atomic" || listType === "set" || listType === "map") s.listType = listType as ListType;
  const mapKeys = strings(n[ext.listMapKeys]);
  if (mapKeys) s.listMapKeys = mapKeys;
  const mapType = n[ext.mapType];
  if (mapType === "atomic" || mapType === "granular") s.mapType = mapType as MapType;
  if (isObject(n.properties)) {
    const props: Record<string, Schema> = {};
    for (const [k, v] of Object.entries(n.properties)) props[k] = convertNode(v, ext, depth + 1);
    s.properties = props;
    s.type ??= "object";
  }
  if (isObject(n.additionalProperties)) {
    s.additionalProperties = convertNode(n.additionalProperties, ext, depth + 1);
    s.type ??= "object";
  } else if (n.additionalProperties === true && !s.properties) {
    s.preserveUnknownFields = true;
  }
  if (isObject(n.items)) {
    s.items = convertNode(n.items, ext, depth + 1);
    s.type ??= "array";
  }
  // Custom resources without markers have atomic lists (Part 1, merge-strategy markers).
  if (s.type === "array" && !s.listType) s.listType = "atomic";
  return s;
}

/** The whole object schema of a custom resource version. */
export function convertRootSchema(openAPIV3Schema: unknown, ext: ExtensionNames): Schema {
  const root = convertNode(openAPIV3Schema ?? { type: "object" }, ext);
  const properties: Record<string, Schema> = { ...(root.properties ?? {}) };
  properties.apiVersion = { type: "string", ...(root.properties?.apiVersion?.description ? { description: root.properties.apiVersion.description } : {}) };
  properties.kind = { type: "string", ...(root.properties?.kind?.description ? { description: root.properties.kind.description } : {}) };
  properties.metadata = objectMeta;
  return { ...root, type: "object", properties };
}
