/**
 * Checks made before copying a custom resource on its way in or out, so that a
 * value with nothing to prune and nothing to default is handed on as it is
 * instead of copied twice (pruning's copy, then defaulting's):
 * - `hasUnknownFields(schema, v)` is true exactly when shared/schema `prune`
 *   would remove something (the same rule, `fieldRule`), without building paths;
 * - `needsDefaults(schema, v)` is true exactly when shared/schema `applyDefaults`
 *   would set something. It walks only the parts of the schema that hold a
 *   `default`, from a plan compiled once per schema (one per CRD version).
 * Both never mutate and never throw.
 */
import type { Schema } from "../../../shared/schema/types.ts";
import { fieldRule, keepsEverything, KEEP } from "../../../shared/schema/unknown-fields.ts";
import { applyDefaults } from "../../../shared/schema/defaults.ts";
import { hasOwn, isObject, setOwn } from "../../../shared/schema/values.ts";

const MAX_DEPTH = 512;

/** True when `prune(schema, value)` would drop a field (same traversal as prune's copy). */
export function hasUnknownFields(schema: Schema, value: unknown, depth = 0): boolean {
  if (keepsEverything(schema)) return false;
  if (depth > MAX_DEPTH) return true; // deeper than any decoded body: let prune decide
  if (Array.isArray(value)) {
    const items = schema.items;
    if (!items || schema.type === "object") return false;
    for (const x of value) if (hasUnknownFields(items, x, depth + 1)) return true;
    return false;
  }
  if (!isObject(value) || (schema.type !== undefined && schema.type !== "object")) return false;
  for (const k in value) {
    if (!hasOwn(value, k)) continue;
    const rule = fieldRule(schema, k);
    if (rule === undefined) return true;
    if (rule !== KEEP && hasUnknownFields(rule, value[k], depth + 1)) return true;
  }
  return false;
}

/** Where a schema sets defaults: only nodes with a default at or below them get a plan. */
interface DefaultsPlan {
  /** Properties with a default: set when absent, or null and not nullable. */
  readonly defaulted: Array<{ key: string; nullable: boolean }>;
  /** Properties whose own schema holds defaults below. */
  readonly props: Array<{ key: string; plan: DefaultsPlan }>;
  /** The declared properties (map values are the other keys). */
  readonly declared: Readonly<Record<string, Schema>> | undefined;
  additional?: DefaultsPlan;
  items?: DefaultsPlan;
}

const plans = new WeakMap<Schema, DefaultsPlan | null>();
const DEEPER: DefaultsPlan = { defaulted: [], props: [], declared: undefined };

/** The plan of `schema`, or undefined when nothing below it has a default (memoized; a schema met again while planned counts as having defaults). */
function planOf(schema: Schema, depth = 0): DefaultsPlan | undefined {
  const known = plans.get(schema);
  if (known !== undefined) return known ?? undefined;
  if (depth > MAX_DEPTH) return DEEPER; // a schema this deep is not planned: its values always go to applyDefaults
  const plan: DefaultsPlan = { defaulted: [], props: [], declared: schema.properties };
  plans.set(schema, plan);
  for (const [key, s] of Object.entries(schema.properties ?? {})) {
    if (s.default !== undefined) plan.defaulted.push({ key, nullable: s.nullable === true });
    const below = planOf(s, depth + 1);
    if (below) plan.props.push({ key, plan: below });
  }
  if (schema.additionalProperties) plan.additional = planOf(schema.additionalProperties, depth + 1);
  if (schema.items) plan.items = planOf(schema.items, depth + 1);
  const empty = plan.defaulted.length === 0 && plan.props.length === 0 && !plan.additional && !plan.items;
  if (empty) plans.set(schema, null);
  return empty ? undefined : plan;
}

function needs(plan: DefaultsPlan, value: unknown, depth: number): boolean {
  if (plan === DEEPER || depth > MAX_DEPTH) return true; // let applyDefaults decide
  if (Array.isArray(value)) {
    const items = plan.items;
    if (!items) return false;
    for (const x of value) if (needs(items, x, depth + 1)) return true;
    return false;
  }
  if (!isObject(value)) return false;
  for (const d of plan.defaulted) {
    if (!hasOwn(value, d.key)) return true;
    if (value[d.key] === null && !d.nullable) return true;
  }
  for (const p of plan.props) if (hasOwn(value, p.key) && needs(p.plan, value[p.key], depth + 1)) return true;
  const additional = plan.additional;
  if (additional) {
    const declared = plan.declared;
    for (const k in value) {
      if (!hasOwn(value, k) || (declared && hasOwn(declared, k))) continue;
      if (needs(additional, value[k], depth + 1)) return true;
    }
  }
  return false;
}

/** True when `applyDefaults(schema, value)` would set a default somewhere in `value`. */
export function needsDefaults(schema: Schema, value: unknown): boolean {
  if (value === undefined) return schema.default !== undefined;
  const plan = planOf(schema);
  return plan ? needs(plan, value, 0) : false;
}

/**
 * `applyDefaults(schema, value)` copied on write: `value` itself when nothing is
 * defaulted, else new objects and arrays only along the paths to what is set (the
 * rest is shared with `value`, which is never changed). Equal to applyDefaults' result,
 * keys in the same order.
 */
export function withDefaults(schema: Schema, value: unknown): unknown {
  if (value === undefined || !needsDefaults(schema, value)) return value;
  const plan = planOf(schema);
  return plan ? defaulted(schema, plan, value, 0) : value;
}

function defaulted(schema: Schema, plan: DefaultsPlan, value: unknown, depth: number): unknown {
  if (plan === DEEPER || depth > MAX_DEPTH) return applyDefaults(schema, value);
  if (Array.isArray(value)) {
    const items = plan.items;
    if (!items || !schema.items) return value;
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      if (!needs(items, value[i], depth + 1)) continue;
      out ??= value.slice();
      out[i] = defaulted(schema.items, items, value[i], depth + 1);
    }
    return out ?? value;
  }
  if (!isObject(value) || !needs(plan, value, depth)) return value;
  const out: Record<string, unknown> = { ...value };
  const props = schema.properties ?? {};
  for (const d of plan.defaulted) {
    const v = out[d.key];
    // A default is itself defaulted below, as applyDefaults walks what it just set.
    if (!hasOwn(out, d.key) || (v === null && !d.nullable)) setOwn(out, d.key, applyDefaults(props[d.key], props[d.key].default));
  }
  // What was just set is already defaulted below: walking it again changes nothing.
  for (const p of plan.props) {
    if (!hasOwn(out, p.key)) continue;
    const next = defaulted(props[p.key], p.plan, out[p.key], depth + 1);
    if (next !== out[p.key]) setOwn(out, p.key, next);
  }
  const additional = plan.additional;
  if (additional && schema.additionalProperties) {
    for (const k of Object.keys(out)) {
      if (hasOwn(props, k)) continue;
      const next = defaulted(schema.additionalProperties, additional, out[k], depth + 1);
      if (next !== out[k]) setOwn(out, k, next);
    }
  }
  return out;
}

