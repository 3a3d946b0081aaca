/**
 * Compiles a typed `Schema` into protobuf message layouts: which JSON property
 * sits at which field number with which wire representation. The encoder, the
 * decoder and the .proto generator all read these layouts, so they agree.
 *
 * The platform's mapping:
 *   string → string; `byte` → bytes (base64 in JSON); int32/int64 → varint;
 *   boolean → varint; number → double; `date-time` → Time{seconds 1, nanos 2};
 *   `quantity` → Quantity{string 1}; int-or-string → IntOrString{type 1, intVal 2, strVal 3};
 *   FieldsV1 → FieldsV1{Raw 1} and any other free-form value → RawExtension{raw 1},
 *   both holding JSON; objects → nested messages; lists → repeated fields;
 *   `map<string, V>` → repeated entries {key 1, value 2} (a list value is wrapped
 *   in a message with `items = 1`); inlined structs and union wrappers per inlined.ts.
 *
 * Layouts are built lazily and memoized per schema node, so recursive schemas
 * (JSONSchemaProps) compile in finite time.
 */
import type { GroupKey } from "../../platform/index.ts";
import type { KindDefinition, Schema } from "../../schema/types.ts";
import { listMeta } from "../../api/groups/meta-v1.ts";
import { EMBEDDINGS, PROTOBUF_UNIONS, type Embedding, type UnionKind } from "./inlined.ts";

export type Scalar = "string" | "bytes" | "int32" | "int64" | "bool" | "double" | "time" | "quantity" | "intOrString" | "json" | "fieldsV1";

export type ValueType =
  | { kind: "scalar"; scalar: Scalar }
  | { kind: "message"; layout: () => MessageLayout }
  /** A list inside a map value or a list item: `message <name> { repeated <item> items = 1; }`. */
  | { kind: "listWrapper"; message: string; item: ValueType }
  /** A union wrapper (inlined.ts); `inner` is the schema message it may hold. */
  | { kind: "union"; union: UnionKind; message: string; inner: () => MessageLayout };

export type FieldType = { shape: "single"; value: ValueType } | { shape: "list"; item: ValueType } | { shape: "map"; value: ValueType };

export interface DirectField {
  tag: number;
  /** JSON property name. */
  name: string;
  /** Field name in .proto output. */
  protoName: string;
  type: FieldType;
  embed?: undefined;
}

export interface EmbedField {
  tag: number;
  protoName: string;
  /** The embedded message; its fields are JSON properties of the parent object. */
  embed: MessageLayout;
}

export type FieldLayout = DirectField | EmbedField;

/** Where a message's .proto definition belongs. */
export interface PackageRef {
  group: GroupKey;
  version: string;
}

export interface MessageLayout {
  name: string;
  pkg: PackageRef;
  /** JSON property order of the object (schema order), for decoded output. */
  order: readonly string[];
  /** Fields by ascending field number. */
  fields: readonly FieldLayout[];
  byTag: ReadonlyMap<number, FieldLayout>;
  /** JSON properties that have no place on the wire (no tag and no embedding); tests keep this empty. */
  unmapped: readonly string[];
}

const upperFirst = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** A .proto identifier for a JSON property (`$ref` → `ref`, `x-a-b` → `xAB`). */
export function protoFieldName(json: string): string {
  const parts = json.split(/[^A-Za-z0-9_]+/).filter((p) => p !== "");
  if (parts.length === 0) return "field";
  const name = parts[0] + parts.slice(1).map(upperFirst).join("");
  return /^[0-9]/.test(name) ? `f${name}` : name;
}

const memo = new WeakMap<Schema, MessageLayout>();

function definitionKey(s: Schema): string | undefined {
  return s.definition ? `${s.definition.group}/${s.definition.version}/${s.definition.name}` : undefined;
}

/** The layout of an object schema; `name`/`pkg` apply when the schema has no definition of its own. */
export function messageLayout(schema: Schema, name: string, pkg: PackageRef): MessageLayout {
  const cached = memo.get(schema);
  if (cached) return cached;
  const own = schema.definition ? { name: schema.definition.name, pkg: { group: schema.definition.group, version: schema.definition.version } } : { name, pkg };
  const layout = compileObject(schema, own.name, own.pkg);
  memo.set(schema, layout);
  return layout;
}

/** The message of a kind (the top-level object), named after the kind. */
export function kindLayout(def: KindDefinition): MessageLayout {
  let l = kindMemo.get(def);
  if (!l) {
    l = compileObject(def.schema, def.kind, { group: def.group, version: def.version });
    kindMemo.set(def, l);
  }
  return l;
}
const kindMemo = new WeakMap<KindDefinition, MessageLayout>();

/** `<Kind>List { ListMeta metadata = 1; repeated <Kind> items = 2; }`. */
export function listLayout(def: KindDefinition): MessageLayout {
  let l = listMemo.get(def);
  if (!l) {
    const item = kindLayout(def);
    const pkg = { group: def.group, version: def.version };
    const fields: FieldLayout[] = [
      { tag: 1, name: "metadata", protoName: "metadata", type: { shape: "single", value: { kind: "message", layout: () => messageLayout(listMeta, "ListMeta", pkg) } } },
      { tag: 2, name: "items", protoName: "items", type: { shape: "list", item: { kind: "message", layout: () => item } } },
    ];
    l = { name: `${def.kind}List`, pkg, order: ["apiVersion", "kind", "metadata", "items"], fields, byTag: new Map(fields.map((f) => [f.tag, f])), unmapped: [] };
    listMemo.set(def, l);
  }
  return l;
}
const listMemo = new WeakMap<KindDefinition, MessageLayout>();

function compileObject(schema: Schema, name: string, pkg: PackageRef): MessageLayout {
  const props = schema.properties ?? {};
  const key = definitionKey(schema);
  const embedding = key ? EMBEDDINGS.get(key) : undefined;
  const unions = key ? PROTOBUF_UNIONS.get(key) : undefined;
  const embedded = new Set<string>();
  for (let e = embedding; e; e = e.nested) for (const p of Object.keys(e.tags)) embedded.add(p);

  const fields: FieldLayout[] = [];
  const unmapped: string[] = [];
  for (const [prop, s] of Object.entries(props)) {
    if (embedded.has(prop)) continue;
    if (s.protoTag === undefined) {
      if (prop !== "apiVersion" && prop !== "kind") unmapped.push(prop);
      continue;
    }
    const union = unions?.[prop];
    const type: FieldType = union
      ? union.mapValue
        ? { shape: "map", value: { kind: "union", union: union.kind, message: union.message, inner: () => messageLayout(schema, name, pkg) } }
        : { shape: "single", value: { kind: "union", union: union.kind, message: union.message, inner: () => messageLayout(schema, name, pkg) } }
      : fieldType(s, `${name}${upperFirst(protoFieldName(prop))}`, prop, pkg);
    fields.push({ tag: s.protoTag, name: prop, protoName: protoFieldName(prop), type });
  }
  if (embedding) fields.push(embedField(embedding, props, name, pkg));
  fields.sort((a, b) => a.tag - b.tag);
  return { name, pkg, order: Object.keys(props), fields, byTag: new Map(fields.map((f) => [f.tag, f])), unmapped };
}

function embedField(e: Embedding, parentProps: Record<string, Schema>, parentName: string, pkg: PackageRef): EmbedField {
  const fields: FieldLayout[] = [];
  for (const [prop, tag] of Object.entries(e.tags)) {
    const s = parentProps[prop];
    if (!s) continue;
    fields.push({ tag, name: prop, protoName: protoFieldName(prop), type: fieldType(s, `${parentName}${upperFirst(protoFieldName(prop))}`, prop, pkg) });
  }
  if (e.nested) fields.push(embedField(e.nested, parentProps, parentName, pkg));
  fields.sort((a, b) => a.tag - b.tag);
  const layout: MessageLayout = { name: e.message, pkg, order: Object.keys(parentProps), fields, byTag: new Map(fields.map((f) => [f.tag, f])), unmapped: [] };
  return { tag: e.field, protoName: e.fieldName, embed: layout };
}

function fieldType(s: Schema, anonName: string, prop: string, pkg: PackageRef): FieldType {
  if (s.type === "array" && !s.intOrString) return { shape: "list", item: valueType(s.items ?? {}, anonName, prop, pkg) };
  if (s.type === "object" && s.additionalProperties && !s.properties) return { shape: "map", value: valueType(s.additionalProperties, `${anonName}Value`, prop, pkg) };
  return { shape: "single", value: valueType(s, anonName, prop, pkg) };
}

function valueType(s: Schema, anonName: string, prop: string, pkg: PackageRef): ValueType {
  if (s.intOrString) return { kind: "scalar", scalar: "intOrString" };
  if (s.preserveUnknownFields && !s.properties) return { kind: "scalar", scalar: s.definition?.name === "FieldsV1" ? "fieldsV1" : "json" };
  switch (s.type) {
    case "object":
      if (s.additionalProperties && !s.properties) return { kind: "scalar", scalar: "json" };
      return { kind: "message", layout: () => messageLayout(s, anonName, pkg) };
    case "array":
      return { kind: "listWrapper", message: s.definition?.name ?? `${upperFirst(protoFieldName(prop))}Value`, item: valueType(s.items ?? {}, `${anonName}Item`, prop, pkg) };
    case "string":
      if (s.format === "byte") return { kind: "scalar", scalar: "bytes" };
      if (s.format === "date-time") return { kind: "scalar", scalar: "time" };
      if (s.format === "quantity") return { kind: "scalar", scalar: "quantity" };
      return { kind: "scalar", scalar: "string" };
    case "integer":
      return { kind: "scalar", scalar: s.format === "int32" ? "int32" : "int64" };
    case "number":
      return { kind: "scalar", scalar: "double" };
    case "boolean":
      return { kind: "scalar", scalar: "bool" };
    default:
      return { kind: "scalar", scalar: "json" };
  }
}
