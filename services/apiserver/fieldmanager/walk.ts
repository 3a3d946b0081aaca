/**
 * The two-sided typed walk behind merge and compare (structured-merge-diff's
 * merging walker): both values are walked together under one schema; leaves
 * (scalars, atomic lists and maps, and lists or maps empty on both sides) are
 * handed to `leaf`, which decides the output; after a non-leaf node (a
 * granular map, an item of a set or list-map) `post` sees both sides.
 *
 * `undefined` means "absent"; `null` is a present value. List-map and set
 * items are matched by element; the output keeps the left side's items in
 * place, orders shared items as the right side does and puts right-only
 * items where the right side has them. Items repeated under one key are not
 * merged field by field: the group is one leaf.
 */
import { atomFor, fieldType, indexList, isObject, type Atom, type TypeRef } from "./atoms.ts";
import type { Path } from "./path-element.ts";

export interface WalkRules {
  leaf(path: Path, lhs: unknown, rhs: unknown): unknown;
  post?(path: Path, lhs: unknown, rhs: unknown): void;
  /** Items repeated under one key on the right side: an error (apply configurations) or a leaf group. */
  rhsDuplicates: "allow" | "reject";
  /**
   * Present on both sides, a map or list for which this holds is not walked and gives
   * no output: for rules whose leaves and posts would all find nothing there (compare:
   * both sides equal).
   */
  unchanged?(lhs: object, rhs: object): boolean;
}

export function walk2(s: TypeRef, lhs: unknown, rhs: unknown, rules: WalkRules, path: Path = []): unknown {
  if (rules.unchanged !== undefined && typeof lhs === "object" && lhs !== null && typeof rhs === "object" && rhs !== null && rules.unchanged(lhs, rhs)) return undefined;
  const al = lhs === undefined ? undefined : atomFor(s, lhs);
  const ar = rhs === undefined ? undefined : atomFor(s, rhs);
  const atom = ar === undefined ? al : al === undefined || al.kind === ar.kind ? ar : undefined;
  if (atom === undefined || atom.kind === "scalar") return rules.leaf(path, lhs, rhs);
  let out: unknown;
  if (atom.kind === "list") {
    const l = Array.isArray(lhs) ? lhs : null;
    const r = Array.isArray(rhs) ? rhs : null;
    if (atom.relation === "atomic" || (!l?.length && !r?.length)) return rules.leaf(path, lhs, rhs);
    out = visitList(atom, l, r, rules, path);
  } else {
    const l = isObject(lhs) ? lhs : null;
    const r = isObject(rhs) ? rhs : null;
    if (atom.atomic || (!hasKeys(l) && !hasKeys(r))) return rules.leaf(path, lhs, rhs);
    out = visitMap(atom, l, r, rules, path);
  }
  rules.post?.(path, lhs, rhs);
  return out;
}

function hasKeys(m: Record<string, unknown> | null): boolean {
  if (!m) return false;
  for (const k in m) if (m[k] !== undefined) return true;
  return false;
}

/*
 * The visits below are module functions, not closures made per node: a named closure
 * costs a function object (and, under a keepNames transform, a name definition) per call.
 */

function visitField(atom: Atom & { kind: "map" }, out: Record<string, unknown>, rules: WalkRules, path: Path, key: string, lv: unknown, rv: unknown): void {
  const child = walk2(fieldType(atom, key), lv, rv, rules, [...path, { kind: "field", name: key }]);
  if (child !== undefined) out[key] = child;
}

function visitMap(atom: Atom & { kind: "map" }, l: Record<string, unknown> | null, r: Record<string, unknown> | null, rules: WalkRules, path: Path): unknown {
  const out: Record<string, unknown> = {};
  if (l) for (const [k, v] of Object.entries(l)) if (v !== undefined) visitField(atom, out, rules, path, k, v, r && Object.hasOwn(r, k) ? r[k] : undefined);
  if (r) for (const [k, v] of Object.entries(r)) if (v !== undefined && !(l && Object.hasOwn(l, k) && l[k] !== undefined)) visitField(atom, out, rules, path, k, undefined, v);
  return Object.keys(out).length > 0 ? out : undefined;
}

function visitList(atom: Atom & { kind: "list" }, l: unknown[] | null, r: unknown[] | null, rules: WalkRules, path: Path): unknown {
  const li = indexList(atom, l, path, "allow");
  const ri = indexList(atom, r, path, rules.rhsDuplicates);
  const out: unknown[] = [];
  const emit = (key: string) => {
    const pe = li.pe.get(key) ?? ri.pe.get(key);
    if (!pe) return;
    const lg = li.items.get(key);
    const rg = ri.items.get(key);
    const itemPath = [...path, pe];
    if ((lg && lg.length > 1) || (rg && rg.length > 1)) {
      const group = rules.leaf(itemPath, groupValue(lg), groupValue(rg));
      if (group === undefined) return;
      if ((lg && group === lg) || (rg && group === rg)) out.push(...(group as unknown[]));
      else out.push(group);
      return;
    }
    const child = walk2(atom.items, lg?.[0], rg?.[0], rules, itemPath);
    if (child !== undefined) out.push(child);
  };

  const lKeys = li.order;
  const rKeys = ri.order;
  const shared = rKeys.filter((k) => li.items.has(k));
  let si = 0;
  let nextShared: string | undefined = shared[si];
  const merged = new Set<string>();
  let a = 0;
  let b = 0;
  while (a < lKeys.length || b < rKeys.length) {
    if (a < lKeys.length && b < rKeys.length) {
      const lk = lKeys[a];
      if (lk === rKeys[b]) {
        emit(lk);
        merged.add(lk);
        a++;
        b++;
        nextShared = shared[++si];
        continue;
      }
      if (ri.items.has(lk) && nextShared !== undefined && nextShared !== lk) {
        a++;
        continue;
      }
    }
    if (a < lKeys.length) {
      const lk = lKeys[a];
      if (!ri.items.has(lk)) {
        emit(lk);
        a++;
        continue;
      }
      if (merged.has(lk)) {
        a++;
        continue;
      }
    }
    if (b < rKeys.length) {
      const rk = rKeys[b];
      merged.add(rk);
      emit(rk);
      b++;
      if (nextShared === rk) nextShared = shared[++si];
    }
  }
  return out.length > 0 ? out : undefined;
}

/** One item, or the array of the items repeated under one key; undefined when absent. */
function groupValue(g: unknown[] | undefined): unknown {
  if (!g) return undefined;
  return g.length === 1 ? g[0] : g;
}
