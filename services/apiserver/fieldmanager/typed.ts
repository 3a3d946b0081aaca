/**
 * Typed operations on values, after structured-merge-diff's `typed` package:
 *
 * - `toFieldSet`: the fields a value sets. Scalars, atomic lists and atomic
 *   maps are single leaves; list-map items (by key) and set members (by value)
 *   are members themselves and own their children; entries of granular maps
 *   that are not declared fields (`labels` keys, deduced objects) are members;
 *   declared struct fields are reached through their children only.
 * - `compare`: the fields added, modified and removed between two values.
 * - `removeItems`: the value without the given fields and items.
 * - `ensureNamedFieldsAreMembers`: adds declared struct fields that have
 *   children in a set as members, so that removal can drop a whole struct.
 *
 * Metadata rules (which `metadata` fields are tracked) belong to the managed
 * fields layer (`managed-fields.ts`), not here.
 */
import { atomFor, fieldType, indexList, isDeclaredField, isObject, listItemElement, schemaAtom, type TypeRef } from "./atoms.ts";
import { FieldSet, type FieldSetBuilder, type SetEntry } from "./fieldpath.ts";
import type { Path } from "./path-element.ts";
import { walk2 } from "./walk.ts";

export function toFieldSet(s: TypeRef, value: unknown): FieldSet {
  const set = FieldSet.builder();
  collect(s, value, [], set);
  return set.build();
}

function collect(s: TypeRef, v: unknown, path: Path, set: FieldSetBuilder): void {
  const atom = atomFor(s, v);
  if (atom.kind === "scalar") {
    set.add(path);
    return;
  }
  if (atom.kind === "list") {
    if (atom.relation === "atomic") {
      set.add(path);
      return;
    }
    if (!Array.isArray(v)) return;
    const idx = indexList(atom, v, path, "allow");
    for (const key of idx.order) {
      const itemPath = [...path, idx.pe.get(key)!];
      const items = idx.items.get(key)!;
      if (items.length === 1) collect(atom.items, items[0], itemPath, set);
      set.add(itemPath);
    }
    return;
  }
  if (atom.atomic) {
    set.add(path);
    return;
  }
  if (!isObject(v)) return;
  for (const [k, child] of Object.entries(v)) {
    if (child === undefined) continue;
    const childPath = [...path, { kind: "field" as const, name: k }];
    collect(fieldType(atom, k), child, childPath, set);
    if (!isDeclaredField(atom, k)) set.add(childPath);
  }
}

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/** What changed from `lhs` to `rhs` (either may be absent: `undefined`). */
export function compare(s: TypeRef, lhs: unknown, rhs: unknown): Comparison {
  const added = FieldSet.builder();
  const modified = FieldSet.builder();
  const removed = FieldSet.builder();
  walk2(s, lhs, rhs, {
    rhsDuplicates: "allow",
    // Equal subtrees hold nothing added, modified or removed (deepEqual ignores absent
    // members as the walk does): an update that changes one field walks only its path.
    unchanged: deepEqual,
    leaf(path, l, r) {
      if (l === undefined) added.add(path);
      else if (r === undefined) removed.add(path);
      else if (!deepEqual(l, r)) modified.add(path);
      return undefined;
    },
    post(path, l, r) {
      if (l === undefined) added.add(path);
      else if (r === undefined) removed.add(path);
    },
  });
  return { added: added.build(), modified: modified.build(), removed: removed.build() };
}

/** The comparison without the given fields or anything below them. */
export function excludeFields(c: Comparison, ignored: FieldSet | undefined): Comparison {
  if (!ignored || ignored.empty()) return c;
  return { added: c.added.recursiveDifference(ignored), modified: c.modified.recursiveDifference(ignored), removed: c.removed.recursiveDifference(ignored) };
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    let defined = 0;
    for (const k in a) {
      if (!Object.hasOwn(a, k) || a[k] === undefined) continue;
      defined++;
      if (!Object.hasOwn(b, k) || !deepEqual(a[k], b[k])) return false;
    }
    for (const k in b) if (Object.hasOwn(b, k) && b[k] !== undefined) defined--;
    return defined === 0;
  }
  return false;
}

/**
 * The value without the members of `toRemove` (a removed field, list-map item
 * or set member goes with everything below it). A map or list left empty by
 * the removal disappears (undefined), as the platform's typed conversion
 * drops it.
 */
export function removeItems(s: TypeRef, value: unknown, toRemove: FieldSet): unknown {
  if (toRemove.empty()) return value;
  const atom = atomFor(s, value);
  if (atom.kind === "scalar") return value;
  if (atom.kind === "list") {
    if (!Array.isArray(value) || value.length === 0 || atom.relation === "atomic") return value;
    const out: unknown[] = [];
    value.forEach((item, i) => {
      const pe = listItemElement(atom, item, i, []);
      if (toRemove.has([pe])) return;
      const sub = toRemove.withPrefix(pe);
      const kept = sub.empty() ? item : removeItems(atom.items, item, sub);
      if (kept !== undefined) out.push(kept);
    });
    return out.length > 0 ? out : undefined;
  }
  if (!isObject(value) || atom.atomic) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue;
    const pe = { kind: "field" as const, name: k };
    if (toRemove.has([pe])) continue;
    const sub = toRemove.withPrefix(pe);
    const kept = sub.empty() ? v : removeItems(fieldType(atom, k), v, sub);
    if (kept !== undefined) out[k] = kept;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Adds every declared struct field that has children in the set as a member. */
export function ensureNamedFieldsAreMembers(set: FieldSet, s: TypeRef): FieldSet {
  const atom = schemaAtom(s);
  const entries: SetEntry[] = set.entries().map((e) => {
    let child: TypeRef;
    let named = false;
    if (e.pe.kind === "field") {
      if (atom?.kind === "map") {
        child = fieldType(atom, e.pe.name);
        named = isDeclaredField(atom, e.pe.name);
      }
    } else if (atom?.kind === "list") child = atom.items;
    return { pe: e.pe, member: e.member || (named && !e.children.empty()), children: ensureNamedFieldsAreMembers(e.children, child) };
  });
  return FieldSet.fromEntries(entries);
}

/**
 * Collapses paths below atomic lists and maps into the atomic field itself
 * (sets written while the schema had the field granular, e.g. before a custom
 * resource's schema changed). `set` itself when nothing collapses; otherwise a new set
 * (`set` is never changed).
 */
export function collapseAtomic(set: FieldSet, s: TypeRef): FieldSet {
  const atom = schemaAtom(s);
  if (atom === undefined) return set;
  const current = set.unorderedEntries();
  // Copied on write: `set` itself when nothing below it collapses (the usual case), so nothing is rebuilt.
  let entries: SetEntry[] | undefined;
  for (let i = 0; i < current.length; i++) {
    const e = current[i];
    let child: TypeRef;
    if (e.pe.kind === "field") child = atom.kind === "map" ? fieldType(atom, e.pe.name) : undefined;
    else child = atom.kind === "list" ? atom.items : undefined;
    const a = schemaAtom(child);
    const atomic = (a?.kind === "list" && a.relation === "atomic") || (a?.kind === "map" && a.atomic);
    let next: SetEntry = e;
    if (atomic && !e.children.empty()) next = { pe: e.pe, member: true, children: new FieldSet() };
    else {
      const children = collapseAtomic(e.children, child);
      if (children !== e.children) next = { pe: e.pe, member: e.member, children };
    }
    if (next !== e) entries ??= current.slice(0, i);
    entries?.push(next);
  }
  return entries ? FieldSet.fromEntries(entries) : set;
}
