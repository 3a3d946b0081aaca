/**
 * fast-check generators of valid-shaped objects from a kind's schema: required properties
 * always there, the others optional, lists and maps of at most two entries, nesting cut at a fixed depth, values
 * that fit the declared type and format (RFC 3339 times at second precision, canonical
 * quantities, base64 bytes, enum members). Used by the round-trip property tests.
 */
import fc from "fast-check";
import type { KindDefinition, Schema } from "../../shared/schema/types.ts";

const MAX_DEPTH = 6;
const NAME = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}[a-z0-9]$/);
const TEXT = fc.string({ unit: fc.constantFrom(..."abcxyz019-_. /:AZ"), maxLength: 12 });
const TIME = fc.date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2099-12-31T23:59:59Z"), noInvalidDate: true }).map((d) => `${d.toISOString().slice(0, 19)}Z`);
const QUANTITY = fc.constantFrom("1", "250m", "2", "128Mi", "1Gi", "10k");
const BYTES = fc.uint8Array({ maxLength: 8 }).map((b) => Buffer.from(b).toString("base64"));

function forString(schema: Schema): fc.Arbitrary<unknown> {
  switch (schema.format) {
    case "date-time":
      return TIME;
    case "date":
      return TIME.map((t) => t.slice(0, 10));
    case "byte":
      return BYTES;
    case "quantity":
      return QUANTITY;
    case "dns1123-label":
    case "dns1123-subdomain":
    case "path-segment-name":
    case "label-key":
    case "label-value":
      return NAME;
    case "uid":
      return fc.uuid();
    case "ip":
      return fc.ipV4();
    default:
      return TEXT;
  }
}

/** Values of one schema node; `undefined` when nothing sensible can be generated (untyped, too deep). */
export function schemaValue(schema: Schema, depth = 0): fc.Arbitrary<unknown> | undefined {
  if (schema.enum && schema.enum.length > 0) return fc.constantFrom(...schema.enum);
  if (schema.intOrString) return fc.oneof(fc.integer({ min: 0, max: 65535 }), NAME);
  switch (schema.type) {
    case "string":
      return forString(schema);
    case "integer":
      return schema.format === "int32" ? fc.integer({ min: -1000, max: 1_000_000 }) : fc.integer({ min: -1000, max: 2 ** 40 });
    case "number":
      return fc.integer({ min: -1000, max: 1000 }).map((n) => n / 4);
    case "boolean":
      return fc.boolean();
    case "array": {
      if (depth >= MAX_DEPTH || !schema.items) return undefined;
      const item = schemaValue(schema.items, depth + 1);
      return item ? fc.array(item, { maxLength: 2 }) : undefined;
    }
    case "object":
      return objectValue(schema, depth);
    default:
      return undefined;
  }
}

function objectValue(schema: Schema, depth: number): fc.Arbitrary<unknown> | undefined {
  if (depth >= MAX_DEPTH) return undefined;
  if (schema.additionalProperties) {
    const value = schemaValue(schema.additionalProperties, depth + 1);
    return value ? fc.dictionary(NAME, value, { maxKeys: 2 }) : undefined;
  }
  if (!schema.properties) return schema.preserveUnknownFields ? fc.constant({ "f:metadata": { "f:name": {} } }) : undefined;
  const fields: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, child] of Object.entries(schema.properties)) {
    const a = schemaValue(child, depth + 1);
    if (a) fields[name] = a;
  }
  const required = (schema.required ?? []).filter((k) => k in fields);
  const members = unionMembers(schema);
  if (members.size === 0) return fc.record(fields, { requiredKeys: required });
  // A discriminated union (`type: Resource` with `resource: {...}`): the member the type names, and no other.
  return fc.constantFrom(...members.keys()).chain((type) => {
    const member = members.get(type) as string;
    const own: Record<string, fc.Arbitrary<unknown>> = Object.fromEntries(Object.entries(fields).filter(([k]) => k === member || ![...members.values()].includes(k)));
    own.type = fc.constant(type);
    const requiredKeys: string[] = [...new Set([...required, "type", ...(member in own ? [member] : [])])];
    return fc.record(own, { requiredKeys });
  });
}

/** For an object with an enum `type` whose values name sibling properties: type value → member property. */
function unionMembers(schema: Schema): Map<string, string> {
  const out = new Map<string, string>();
  const values = schema.properties?.type?.enum ?? [];
  for (const v of values) {
    const member = String(v).charAt(0).toLowerCase() + String(v).slice(1);
    if (schema.properties && member in schema.properties) out.set(String(v), member);
  }
  return out.size === values.length ? out : new Map();
}

/** Whole objects of a kind: typed metadata (with managedFields), any other fields the schema has. */
export function kindObject(def: KindDefinition, apiVersion: string): fc.Arbitrary<Record<string, unknown>> {
  const { apiVersion: _a, kind: _k, metadata: metaSchema, ...rest } = def.schema.properties ?? {};
  const body = objectValue({ type: "object", properties: rest, required: def.schema.required }, 0) ?? fc.constant({});
  const meta = (metaSchema && objectValue(metaSchema, 2)) ?? fc.constant({});
  return fc.tuple(NAME, meta, body).map(([name, m, b]) => ({
    apiVersion,
    kind: def.kind,
    ...(b as Record<string, unknown>),
    metadata: { ...(m as Record<string, unknown>), name, ...(def.namespaced ? { namespace: "default" } : {}) },
  }));
}
