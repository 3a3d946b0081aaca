/**
 * Unknown-field detection: which object keys a schema does not know.
 *
 * The rule (`fieldRule`), shared with pruning: a key is known when the schema
 * declares it as a property, or the schema is a map (`additionalProperties`);
 * an embedded resource also knows `apiVersion`, `kind` and `metadata`; a
 * schema with `preserveUnknownFields`, or without any type (`anyValue`,
 * int-or-string), keeps unknown keys below it. An object schema with neither
 * properties nor a map drops all of its keys, as a structural schema does.
 *
 * Contract: never throws, never mutates; values whose JSON type does not match
 * the schema are not descended into (validation reports them).
 */
import { childPath, indexPath, keyPath } from "./path.ts";
import type { Schema } from "./types.ts";
import { isObject } from "./values.ts";

/** The key is known, and everything below it is kept as is. */
export const KEEP = Symbol("keep");
/** How a child governed by a schema is treated: its schema, KEEP (no checks below), or undefined (unknown). */
export type FieldRule = Schema | typeof KEEP | undefined;

const EMBEDDED_FIELDS = new Set(["apiVersion", "kind", "metadata"]);

/** True when the schema keeps any value below it unchecked. */
export function keepsEverything(schema: Schema): boolean {
  if (schema.properties || schema.additionalProperties || schema.items) return false;
  return schema.type === undefined || schema.preserveUnknownFields === true;
}

/** The rule for key `key` of an object governed by `schema`. */
export function fieldRule(schema: Schema, key: string): FieldRule {
  const props = schema.properties;
  if (props && Object.prototype.hasOwnProperty.call(props, key)) return props[key];
  if (schema.additionalProperties) return schema.additionalProperties;
  if (schema.embeddedResource && EMBEDDED_FIELDS.has(key)) return KEEP;
  if (schema.preserveUnknownFields || schema.type === undefined) return KEEP;
  return undefined;
}

/** The path of a child key: map entries print as `[key]`, fields as `.key`. */
export function fieldPath(schema: Schema, path: string, key: string): string {
  const isProp = schema.properties !== undefined && Object.prototype.hasOwnProperty.call(schema.properties, key);
  return !isProp && schema.additionalProperties ? keyPath(path, key) : childPath(path, key);
}

/** The platform's warning text for an unknown field. */
export function unknownFieldMessage(path: string): string {
  return `unknown field "${path}"`;
}

/** Paths of all fields of `value` that `schema` does not know, at any depth, in document order. */
export function findUnknownFields(schema: Schema, value: unknown, basePath = ""): string[] {
  const out: string[] = [];
  walk(schema, value, basePath, out);
  return out;
}

function walk(schema: Schema, value: unknown, path: string, out: string[]): void {
  if (keepsEverything(schema)) return;
  if (Array.isArray(value)) {
    const items = schema.items;
    if (items && schema.type !== "object") value.forEach((x, i) => walk(items, x, indexPath(path, i), out));
    return;
  }
  if (!isObject(value) || (schema.type !== undefined && schema.type !== "object")) return;
  for (const k of Object.keys(value)) {
    const rule = fieldRule(schema, k);
    if (rule === undefined) out.push(childPath(path, k));
    else if (rule !== KEEP) walk(rule, value[k], fieldPath(schema, path, k), out);
  }
}
