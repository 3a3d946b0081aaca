/**
 * Explicit nulls in an apply configuration mean "unset" for fields that are
 * not nullable (the platform's typed conversion drops them); the applier still
 * owns the field. Nullable fields and deduced (untyped) content keep them.
 */
import { atomFor, fieldType, isObject, type TypeRef } from "./atoms.ts";

export function dropNulls(s: TypeRef, v: unknown): unknown {
  if (s === undefined) return v;
  const atom = atomFor(s, v);
  if (atom.kind === "list" && Array.isArray(v)) return v.map((item) => dropNulls(atom.items, item));
  if (atom.kind !== "map" || !isObject(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, child] of Object.entries(v)) {
    const t = fieldType(atom, k);
    if (child === null && t !== undefined && !t.nullable) continue;
    out[k] = dropNulls(t, child);
  }
  return out;
}
