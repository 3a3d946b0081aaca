/**
 * Immutability on update: a field marked `immutable` may be set once; after
 * that any change (including removal) is `field is immutable` (or Forbidden with the
 * schema's `immutableForbidden` detail, where the platform words it so).
 *
 * Contract: walks the schema and both values in parallel; list items of
 * list-type `map` pair up by their keys, other lists by index, maps by key.
 * An old value that is absent allows any new value; removing an object
 * removes its immutable fields (an error), removing a list item does not.
 * Subtrees whose schema has no immutable field at or below it are not walked.
 */
import { fieldErrors } from "./field-errors.ts";
import { childPath, indexPath, keyPath } from "./path.ts";
import type { FieldError, Schema } from "./types.ts";
import { deepEqual, hasOwn, isObject, toJSONText } from "./values.ts";

export const FIELD_IMMUTABLE_MSG = "field is immutable";

export function validateImmutable(schema: Schema, oldValue: unknown, newValue: unknown, basePath = ""): FieldError[] {
  const errs: FieldError[] = [];
  walk(schema, oldValue, newValue, basePath, errs);
  return errs;
}

/** Schema nodes are not changed once built: whether an immutable field lies at or below a node is worked out once. */
const reaches = new WeakMap<Schema, boolean>();

/** True when `schema` or a schema below it is immutable (a recursive schema reaching itself counts as true). */
function reachesImmutable(schema: Schema): boolean {
  const known = reaches.get(schema);
  if (known !== undefined) return known;
  reaches.set(schema, true); // while it is worked out: a cycle back to it walks, as before
  let found = !!schema.immutable;
  for (const s of Object.values(schema.properties ?? {})) found ||= reachesImmutable(s);
  if (schema.additionalProperties) found ||= reachesImmutable(schema.additionalProperties);
  if (schema.items) found ||= reachesImmutable(schema.items);
  reaches.set(schema, found);
  return found;
}

function walk(schema: Schema, oldV: unknown, newV: unknown, path: string, errs: FieldError[]): void {
  if (oldV === undefined || !reachesImmutable(schema)) return;
  if (schema.immutable) {
    if (!deepEqual(oldV, newV)) errs.push(schema.immutableForbidden ? fieldErrors.forbidden(path, schema.immutableForbidden) : fieldErrors.invalid(path, newV ?? null, FIELD_IMMUTABLE_MSG));
    return;
  }
  if (isObject(oldV)) {
    // A removed or retyped parent removes its immutable children too.
    const n = isObject(newV) ? newV : {};
    const props = schema.properties ?? {};
    for (const [k, s] of Object.entries(props)) {
      if (hasOwn(oldV, k)) walk(s, oldV[k], hasOwn(n, k) ? n[k] : undefined, childPath(path, k), errs);
    }
    if (schema.additionalProperties) {
      for (const k of Object.keys(oldV)) {
        if (!hasOwn(props, k)) walk(schema.additionalProperties, oldV[k], hasOwn(n, k) ? n[k] : undefined, keyPath(path, k), errs);
      }
    }
  } else if (Array.isArray(oldV) && Array.isArray(newV) && schema.items) {
    const items = schema.items;
    if (schema.listType === "map" && schema.listMapKeys?.length) {
      const keys = schema.listMapKeys;
      const id = (x: unknown) => (isObject(x) ? toJSONText(keys.map((k) => x[k] ?? null)) : toJSONText(x));
      const byKey = new Map<string, number>();
      newV.forEach((x, i) => byKey.set(id(x), i));
      oldV.forEach((x) => {
        const j = byKey.get(id(x));
        if (j !== undefined) walk(items, x, newV[j], indexPath(path, j), errs);
      });
    } else {
      oldV.forEach((x, i) => {
        if (i < newV.length) walk(items, x, newV[i], indexPath(path, i), errs);
      });
    }
  }
}
