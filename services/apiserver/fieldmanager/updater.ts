/**
 * Ownership bookkeeping of one write (structured-merge-diff's `Updater`).
 * Managers are keyed by an opaque identifier; each owns a set of fields at
 * an API version, and appliers are marked `applied`.
 *
 * - update: the writer takes every field it added or changed (other owners
 *   lose them: an update never conflicts) and everyone loses removed fields.
 * - apply: the configuration is merged into the live object, fields the
 *   applier dropped are pruned, and the change from live to the result is
 *   checked against every other manager: a field another manager owns that
 *   the apply adds or changes is a conflict, unless forced (then that
 *   manager loses it). Setting a field to the value it already has changes
 *   nothing, so both managers own it.
 *
 * The schema is the one of the request's version; sets recorded at another
 * version of the same kind are compared as they are (no conversion here).
 */
import type { TypeRef } from "./atoms.ts";
import { compareStrings, type Path } from "./path-element.ts";
import { FieldSet } from "./fieldpath.ts";
import { mergeObjects, prune } from "./merge.ts";
import { collapseAtomic, compare, deepEqual, excludeFields, toFieldSet, type Comparison } from "./typed.ts";

export interface VersionedSet {
  readonly set: FieldSet;
  readonly apiVersion: string;
  readonly applied: boolean;
}

/** Manager identifier → owned fields. */
export type ManagedSets = Map<string, VersionedSet>;

export interface Conflict {
  /** Manager identifier (see managed-fields.ts). */
  readonly manager: string;
  readonly path: Path;
}

/** Raised by `apply` when another manager owns a field the apply changes. */
export class MergeConflicts extends Error {
  override readonly name = "MergeConflicts";
  constructor(readonly conflicts: readonly Conflict[]) {
    super(`${conflicts.length} conflict(s)`);
  }
}

export interface UpdaterOptions {
  /** Fields nobody gains ownership of at this version (the kind's reset fields, e.g. `status` on the main resource). */
  ignored?: FieldSet;
}

function step(s: TypeRef, oldObj: unknown, newObj: unknown, managers: ManagedSets, workflow: string, force: boolean, opts: UpdaterOptions): { managers: ManagedSets; compare: Comparison } {
  const cmp = compare(s, oldObj, newObj);
  const filtered = excludeFields(cmp, opts.ignored);
  const changed = filtered.modified.union(filtered.added);
  const conflicts = new Map<string, FieldSet>();
  for (const [manager, vs] of managers) {
    if (manager === workflow) continue;
    const c = vs.set.intersection(changed);
    if (!c.empty()) conflicts.set(manager, c);
  }
  if (!force && conflicts.size > 0) {
    const list: Conflict[] = [];
    for (const manager of [...conflicts.keys()].sort(compareStrings)) for (const path of conflicts.get(manager)!.paths()) list.push({ manager, path });
    throw new MergeConflicts(list);
  }
  const out: ManagedSets = new Map();
  for (const [manager, vs] of managers) {
    if (manager === workflow) {
      out.set(manager, vs);
      continue;
    }
    let set = vs.set;
    const c = conflicts.get(manager);
    if (c) set = set.difference(c);
    set = set.difference(filtered.removed);
    if (!set.empty()) out.set(manager, { ...vs, set });
  }
  if (out.get(workflow)?.set.empty()) out.delete(workflow);
  return { managers: out, compare: cmp };
}

/** Ownership after a non-apply write from `live` to `newObj` by `manager` (never conflicts). */
export function update(s: TypeRef, live: unknown, newObj: unknown, version: string, managers: ManagedSets, manager: string, opts: UpdaterOptions = {}): ManagedSets {
  const { managers: out, compare: cmp } = step(s, live, newObj, reconcile(s, managers), manager, true, opts);
  let set = (out.get(manager)?.set ?? new FieldSet()).union(cmp.modified).union(cmp.added).difference(cmp.removed);
  if (opts.ignored) set = set.recursiveDifference(opts.ignored);
  if (set.empty()) out.delete(manager);
  else out.set(manager, { set, apiVersion: version, applied: false });
  return out;
}

/** Sets recorded before a schema made a granular field atomic own the atomic field whole. */
function reconcile(s: TypeRef, managers: ManagedSets): ManagedSets {
  const out: ManagedSets = new Map();
  for (const [id, vs] of managers) {
    const set = collapseAtomic(vs.set, s);
    out.set(id, set.equals(vs.set) ? vs : { ...vs, set });
  }
  return out;
}

export interface ApplyResult {
  /** The new object, or undefined when the apply changes nothing. */
  object: unknown;
  managers: ManagedSets;
}

/** Merges `config` into `live` for `manager`, pruning what it dropped; throws MergeConflicts unless forced. */
export function apply(s: TypeRef, live: unknown, config: unknown, version: string, managers: ManagedSets, manager: string, force: boolean, opts: UpdaterOptions = {}): ApplyResult {
  const all = reconcile(s, managers);
  const merged = mergeObjects(s, live, config);
  const lastSet = all.get(manager);
  let set = toFieldSet(s, config);
  if (opts.ignored) set = set.recursiveDifference(opts.ignored);
  all.set(manager, { set, apiVersion: version, applied: true });
  let owned = set;
  for (const vs of all.values()) owned = owned.union(vs.set);
  const pruned = prune(s, merged, owned, lastSet?.set);
  const { managers: out } = step(s, live, pruned, all, manager, force, opts);
  return { object: deepEqual(live, pruned) ? undefined : pruned, managers: out };
}
