/**
 * A small declarative vocabulary for writing schemas. Every builder returns a
 * plain `Schema`; nothing here validates or evaluates — see validate.ts and friends.
 *
 *   obj({ name: tag(1, str({ format: "dns1123-label" })), ports: tag(2, list(ref(portDef), { listType: "map", mapKeys: ["containerPort"] })) }, { required: ["name"] })
 */
import type { GroupKey } from "../platform/index.ts";
import type { DefinitionRef, ListType, MapType, PatchStrategy, Schema, SchemaFormat, SchemaType } from "./types.ts";

type Opts = Omit<Schema, "type" | "properties" | "items" | "additionalProperties">;

export function str(opts: Opts = {}): Schema {
  return { type: "string", ...opts };
}
export function int32(opts: Opts = {}): Schema {
  return { type: "integer", format: "int32", ...opts };
}
export function int64(opts: Opts = {}): Schema {
  return { type: "integer", format: "int64", ...opts };
}
export function num(opts: Opts = {}): Schema {
  return { type: "number", format: "double", ...opts };
}
export function bool(opts: Opts = {}): Schema {
  return { type: "boolean", ...opts };
}
/** RFC 3339 timestamp (`metav1.Time`). */
export function time(opts: Opts = {}): Schema {
  return { type: "string", format: "date-time", ...opts };
}
/** Base64-encoded bytes. */
export function bytes(opts: Opts = {}): Schema {
  return { type: "string", format: "byte", ...opts };
}
/** Resource quantity (`500m`, `1Gi`). */
export function quantity(opts: Opts = {}): Schema {
  return { type: "string", format: "quantity", ...opts };
}
/** Integer or string (`IntOrString`). */
export function intOrString(opts: Opts = {}): Schema {
  return { intOrString: true, ...opts };
}
export function enumOf(values: string[], opts: Opts = {}): Schema {
  return { type: "string", enum: values, ...opts };
}
/** Any JSON value kept as is (raw extensions, JSON fields of custom resources); `type` may narrow it (`object`). */
export function anyValue(opts: Opts & { type?: SchemaType } = {}): Schema {
  return { preserveUnknownFields: true, ...opts };
}
export function format(f: SchemaFormat, opts: Opts = {}): Schema {
  return { type: "string", format: f, ...opts };
}

export interface ObjOpts extends Opts {
  required?: string[];
  mapType?: MapType;
}
export function obj(properties: Record<string, Schema>, opts: ObjOpts = {}): Schema {
  return { type: "object", properties, ...opts };
}

/** A map from string keys to values of one schema (`map[string]T`). */
export function mapOf(values: Schema, opts: Opts & { mapType?: MapType } = {}): Schema {
  return { type: "object", additionalProperties: values, ...opts };
}

export interface ListOpts extends Opts {
  listType?: ListType;
  mapKeys?: string[];
  patchStrategy?: PatchStrategy;
  patchMergeKey?: string;
}
/**
 * A list. With `mapKeys` the list type defaults to `map`; a patch strategy
 * with a merge key reads as list type `map` keyed by the merge key, as Part 1 says.
 */
export function list(items: Schema, opts: ListOpts = {}): Schema {
  const { mapKeys, ...rest } = opts;
  const s: Schema = { type: "array", items, ...rest };
  if (mapKeys) s.listMapKeys = mapKeys;
  if (!s.listType) {
    if (s.listMapKeys) s.listType = "map";
    else if (s.patchMergeKey && s.patchStrategy?.includes("merge")) {
      s.listType = "map";
      s.listMapKeys = [s.patchMergeKey];
    }
  }
  return s;
}

/** Sets the protobuf field number of a property. */
export function tag(n: number, schema: Schema): Schema {
  return { ...schema, protoTag: n };
}

/** Marks a schema as a named definition so OpenAPI emits it once and refers to it. */
export function named(group: GroupKey, version: string, name: string, schema: Schema): Schema {
  const definition: DefinitionRef = { group, version, name };
  if (schema.description !== undefined) definition.description = schema.description;
  return { ...schema, definition };
}

/** Applies extra options to an existing schema (description, default, immutability…). */
export function withOpts(schema: Schema, opts: Partial<Schema>): Schema {
  return { ...schema, ...opts };
}

/** Assigns protobuf tags 1..n in declaration order to properties that have none. */
export function tagged(properties: Record<string, Schema>, start = 1): Record<string, Schema> {
  const out: Record<string, Schema> = {};
  let n = start;
  for (const [k, v] of Object.entries(properties)) {
    out[k] = v.protoTag === undefined ? { ...v, protoTag: n } : v;
    n = Math.max(n, out[k].protoTag ?? n) + 1;
  }
  return out;
}
