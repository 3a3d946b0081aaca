/**
 * Merging an apply configuration into the live object, and removing what an
 * applier dropped (structured-merge-diff's `Merge` and `prune`).
 *
 * Merge: the configuration wins at every leaf; list-maps merge item by item
 * (by key), sets merge by value, atomic lists and maps are replaced whole,
 * granular maps and structs merge field by field. A configuration that
 * repeats a list-map key or a set member is rejected.
 *
 * Prune: a field, list-map item or set member goes when the applier set it
 * last time, does not set it now, and no manager (the applier's new
 * configuration included) owns it; fields nobody owns that sit inside such a
 * removed struct or item go with it.
 */
import type { TypeRef } from "./atoms.ts";
import type { FieldSet } from "./fieldpath.ts";
import { ensureNamedFieldsAreMembers, removeItems, toFieldSet } from "./typed.ts";
import { walk2 } from "./walk.ts";
import { cloneValue } from "../../../shared/schema/values.ts";

/** Merge's walk: the configuration wins at every leaf. Made once (see responseOf in the store's mvcc). */
const MERGE_WALK: Parameters<typeof walk2>[3] = {
  rhsDuplicates: "reject",
  leaf: (_path, l, r) => (r !== undefined ? r : l),
};

/** `live` with `config` merged in (the inputs are not modified). */
export function mergeObjects(s: TypeRef, live: unknown, config: unknown): unknown {
  return cloneValue(walk2(s, live, config, MERGE_WALK));
}

/**
 * Removes from `merged` what the applier owned in `lastSet` and no longer
 * owns, unless another manager owns it. `owned` is the union of every
 * manager's set after the apply, the applier's new set included.
 */
export function prune(s: TypeRef, merged: unknown, owned: FieldSet, lastSet: FieldSet | undefined): unknown {
  if (!lastSet || lastSet.empty()) return merged;
  const last = ensureNamedFieldsAreMembers(lastSet, s);
  const mergedSet = ensureNamedFieldsAreMembers(toFieldSet(s, merged), s);
  // 1. Remove everything the applier owned last time.
  const removedAll = removeItems(s, merged, last);
  // 2. Add back whatever someone owns (the result is `merged` minus what nobody owns any more).
  const keep = ensureNamedFieldsAreMembers(toFieldSet(s, removedAll), s).union(ensureNamedFieldsAreMembers(owned, s));
  const addedBack = removeItems(s, merged, mergedSet.difference(keep));
  // 3. Of what step 2 removed, remove only what the applier owned last time (dangling fields go with it).
  const addedBackSet = ensureNamedFieldsAreMembers(toFieldSet(s, addedBack), s);
  return removeItems(s, merged, mergedSet.difference(addedBackSet).intersection(last)) ?? {};
}

/**
 * An apply configuration merged into the live object, with the fields the
 * applier dropped since `lastApplied` removed when `otherOwned` (every other
 * manager's fields) does not hold them. The ownership-free core of apply.
 */
export function applyObject(s: TypeRef, live: unknown, applied: unknown, lastApplied?: FieldSet, otherOwned?: FieldSet): unknown {
  const merged = mergeObjects(s, live ?? {}, applied);
  const owned = toFieldSet(s, applied);
  return prune(s, merged, otherOwned ? owned.union(otherOwned) : owned, lastApplied);
}
