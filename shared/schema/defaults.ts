/**
 * Structural defaulting, as the platform does it for custom resources and
 * built-in kinds alike.
 *
 * Contract: returns a copy of `value` (the input is never changed) where every
 * absent property whose schema has a `default` is set to a copy of it; a
 * `null` for a non-nullable property with a default counts as absent. Defaults
 * of a nested object's fields apply only when that object is present (or was
 * itself just defaulted); list items and map values are defaulted too.
 * Idempotent: applying twice equals applying once.
 */
import type { Schema } from "./types.ts";
import { cloneValue, hasOwn, isObject, setOwn } from "./values.ts";

export function applyDefaults(schema: Schema, value: unknown): unknown {
  if (value === undefined && schema.default !== undefined) return defaultInPlace(schema, cloneValue(schema.default));
  return defaultInPlace(schema, cloneValue(value));
}

/** Defaults a value the caller owns (already a copy); returns it. */
function defaultInPlace(schema: Schema, value: unknown): unknown {
  if (Array.isArray(value)) {
    if (schema.items) for (let i = 0; i < value.length; i++) value[i] = defaultInPlace(schema.items, value[i]);
    return value;
  }
  if (!isObject(value)) return value;
  const props = schema.properties ?? {};
  for (const [k, s] of Object.entries(props)) {
    const present = hasOwn(value, k);
    if (s.default !== undefined && (!present || (value[k] === null && !s.nullable))) setOwn(value, k, cloneValue(s.default));
  }
  for (const k of Object.keys(value)) {
    if (hasOwn(props, k)) value[k] = defaultInPlace(props[k], value[k]);
    else if (schema.additionalProperties) value[k] = defaultInPlace(schema.additionalProperties, value[k]);
  }
  return value;
}
