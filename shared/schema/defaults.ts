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
 *
 * `applyDefaultsInPlace` is the same defaulting on a value the caller owns (no part of
 * it shared with anyone who must not see the change): it is changed in place and
 * returned (a copy of the schema's default when it is undefined). Only what gets a
 * default is written: a value that needs none is left untouched, even when frozen.
 */
import type { Schema } from "./types.ts";
import { cloneValue, hasOwn, isObject, setOwn } from "./values.ts";

export function applyDefaults(schema: Schema, value: unknown): unknown {
  if (value === undefined && schema.default !== undefined) return defaultInPlace(schema, cloneValue(schema.default));
  return defaultInPlace(schema, cloneValue(value));
}

export function applyDefaultsInPlace(schema: Schema, value: unknown): unknown {
  if (value === undefined && schema.default !== undefined) return defaultInPlace(schema, cloneValue(schema.default));
  return defaultInPlace(schema, value);
}

/** Per schema node: its properties that carry a default, and whether any default lies at or below it. */
interface DefaultPlan {
  defaulted: ReadonlyArray<readonly [string, Schema]>;
  reaches: boolean;
}

/** Schema nodes are not changed once built: plans are made once per node. */
const plans = new WeakMap<Schema, DefaultPlan>();
/** A node whose plan is being made (a recursive schema reaching itself): counted as reaching a default. */
const PLANNING: DefaultPlan = { defaulted: [], reaches: true };

function planOf(schema: Schema): DefaultPlan {
  const known = plans.get(schema);
  if (known) return known;
  plans.set(schema, PLANNING);
  const props = schema.properties ?? {};
  const defaulted: Array<readonly [string, Schema]> = [];
  let reaches = false;
  for (const [k, s] of Object.entries(props)) {
    if (s.default !== undefined) defaulted.push([k, s]);
    if (planOf(s).reaches) reaches = true;
  }
  if (schema.additionalProperties && planOf(schema.additionalProperties).reaches) reaches = true;
  if (schema.items && planOf(schema.items).reaches) reaches = true;
  const plan: DefaultPlan = { defaulted, reaches: reaches || defaulted.length > 0 };
  plans.set(schema, plan);
  return plan;
}

/** Defaults a value the caller owns (already a copy); returns it. Subtrees no default can reach are not walked. */
function defaultInPlace(schema: Schema, value: unknown): unknown {
  if (!planOf(schema).reaches) return value;
  if (Array.isArray(value)) {
    if (schema.items) {
      for (let i = 0; i < value.length; i++) {
        const v = defaultInPlace(schema.items, value[i]);
        if (v !== value[i]) value[i] = v;
      }
    }
    return value;
  }
  if (!isObject(value)) return value;
  const props = schema.properties ?? {};
  for (const [k, s] of planOf(schema).defaulted) {
    if (!hasOwn(value, k) || (value[k] === null && !s.nullable)) setOwn(value, k, cloneValue(s.default));
  }
  for (const k of Object.keys(value)) {
    const s = hasOwn(props, k) ? props[k] : schema.additionalProperties;
    if (!s) continue;
    const v = defaultInPlace(s, value[k]);
    if (v !== value[k]) value[k] = v;
  }
  return value;
}
