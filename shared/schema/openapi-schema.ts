/**
 * Conversion of one `Schema` into an OpenAPI schema object (v2 or v3), with the
 * profile's vendor extensions. Named definitions (`schema.definition`) are
 * emitted once into `defs` and referred to by `$ref`.
 *
 * Contract: a named node's definition body is taken from the first node met
 * with that name, with the type's own description (`definition.description`,
 * recorded by `named`); what a use site adds (any other description,
 * default, nullable, patch strategy and merge key) stays beside the `$ref` —
 * as plain siblings in v2, wrapped as `allOf: [{$ref}]` plus siblings in v3.
 * Internal keywords (protobuf tags, immutability, read-only) and the
 * validator's private formats are not emitted.
 */
import type { PlatformProfile } from "../platform/index.ts";
import type { Schema, SchemaFormat } from "./types.ts";

export type JsonObject = Record<string, unknown>;

export interface ConvertContext {
  profile: PlatformProfile;
  v3: boolean;
  /** Definitions emitted so far, by definition name. */
  defs: Map<string, JsonObject>;
}

/** Formats that OpenAPI readers know; the others are validator-internal. */
const PUBLISHED_FORMATS: ReadonlySet<SchemaFormat> = new Set<SchemaFormat>(["int32", "int64", "double", "byte", "date-time", "date", "duration"]);

export function refPrefix(v3: boolean): string {
  return v3 ? "#/components/schemas/" : "#/definitions/";
}

/** A `$ref` to a definition name. */
export function refTo(name: string, v3: boolean): JsonObject {
  return { $ref: `${refPrefix(v3)}${name}` };
}

/** Emits `schema` (under `name`) into the context's definitions if not there yet; returns the name. */
export function define(name: string, schema: Schema, ctx: ConvertContext, extra: JsonObject = {}): string {
  if (!ctx.defs.has(name)) {
    const body: JsonObject = {};
    ctx.defs.set(name, body); // placeholder first: recursive types terminate
    Object.assign(body, convertBody(schema, ctx), extra);
  }
  return name;
}

/** Converts a schema at a use site: a `$ref` (with siblings) for named nodes, an inline object otherwise. */
export function convert(schema: Schema, ctx: ConvertContext): JsonObject {
  if (!schema.definition) return convertBody(schema, ctx);
  const { group, version, name } = schema.definition;
  const defName = ctx.profile.definitionName(group, version, name);
  const own = schema.definition.description;
  define(defName, { ...schema, description: own, default: undefined, nullable: undefined, patchStrategy: undefined, patchMergeKey: undefined }, ctx);
  const siblings: JsonObject = {};
  if (schema.description !== undefined && schema.description !== own) {
    siblings.description = schema.description;
  }
  if (schema.default !== undefined) siblings.default = schema.default;
  if (schema.nullable && ctx.v3) siblings.nullable = true;
  const x = ctx.profile.ext;
  if (schema.patchStrategy) siblings[x.patchStrategy] = schema.patchStrategy;
  if (schema.patchMergeKey) siblings[x.patchMergeKey] = schema.patchMergeKey;
  const ref = refTo(defName, ctx.v3);
  if (Object.keys(siblings).length === 0) return ref;
  return ctx.v3 ? { allOf: [ref], ...siblings } : { ...ref, ...siblings };
}

/** The schema object of a node itself (never a `$ref` for the node; children may be refs). */
function convertBody(s: Schema, ctx: ConvertContext): JsonObject {
  const x = ctx.profile.ext;
  const out: JsonObject = {};
  if (s.description !== undefined) out.description = s.description;
  if (s.intOrString) {
    if (ctx.v3) out.anyOf = [{ type: "integer" }, { type: "string" }];
    else {
      out.type = "string";
      out.format = "int-or-string";
    }
    out[x.intOrString] = true;
  } else {
    if (s.type !== undefined) out.type = s.type;
    if (s.format !== undefined && PUBLISHED_FORMATS.has(s.format)) out.format = s.format;
  }
  if (s.enum) out.enum = [...s.enum];
  if (s.default !== undefined) out.default = s.default;
  if (s.nullable && ctx.v3) out.nullable = true;
  for (const k of ["minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems", "maxProperties", "pattern"] as const) {
    if (s[k] !== undefined) out[k] = s[k];
  }
  if (s.properties) {
    const props: JsonObject = {};
    for (const [k, v] of Object.entries(s.properties)) props[k] = convert(v, ctx);
    out.properties = props;
  }
  if (s.required?.length) out.required = [...s.required];
  if (s.additionalProperties) out.additionalProperties = convert(s.additionalProperties, ctx);
  if (s.items) out.items = convert(s.items, ctx);
  if (s.preserveUnknownFields) out[x.preserveUnknownFields] = true;
  if (s.embeddedResource) out[x.embeddedResource] = true;
  if (s.listType) out[x.listType] = s.listType;
  if (s.listMapKeys?.length) out[x.listMapKeys] = [...s.listMapKeys];
  if (s.mapType) out[x.mapType] = s.mapType;
  if (s.patchStrategy) out[x.patchStrategy] = s.patchStrategy;
  if (s.patchMergeKey) out[x.patchMergeKey] = s.patchMergeKey;
  return out;
}
