/**
 * Pruning: a copy of a value without the fields its schema does not know,
 * by the same rule as unknown-field detection (unknown-fields.ts).
 *
 * Contract: the input is never changed; `pruned` lists the removed paths in
 * document order and equals `findUnknownFields(schema, value)`.
 */
import { childPath, indexPath } from "./path.ts";
import type { Schema } from "./types.ts";
import { fieldPath, fieldRule, keepsEverything, KEEP } from "./unknown-fields.ts";
import { cloneValue, isObject, setOwn } from "./values.ts";

export interface PruneResult {
  value: unknown;
  pruned: string[];
}

export function prune(schema: Schema, value: unknown, basePath = ""): PruneResult {
  const pruned: string[] = [];
  return { value: copy(schema, value, basePath, pruned), pruned };
}

function copy(schema: Schema, value: unknown, path: string, pruned: string[]): unknown {
  if (keepsEverything(schema)) return cloneValue(value);
  if (Array.isArray(value)) {
    const items = schema.items;
    if (!items || schema.type === "object") return cloneValue(value);
    return value.map((x, i) => copy(items, x, indexPath(path, i), pruned));
  }
  if (!isObject(value) || (schema.type !== undefined && schema.type !== "object")) return cloneValue(value);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value)) {
    const rule = fieldRule(schema, k);
    if (rule === undefined) pruned.push(childPath(path, k));
    else setOwn(out, k, rule === KEEP ? cloneValue(value[k]) : copy(rule, value[k], fieldPath(schema, path, k), pruned));
  }
  return out;
}
