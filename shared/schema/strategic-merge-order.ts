/**
 * The order of a merged list, by the platform's rules. The merged items are split
 * into those named by the patch (or by `$setElementOrder`) and the server-only
 * ones; each part is sorted by its own reference order (the patch's, the live
 * list's) and the two are interleaved: a server-only item goes before a patch
 * item when the live list had it before that item; a patch item new to the live
 * list goes as early as it can. So without `$setElementOrder` new items lead:
 * patching `[a, b]` with `[c]` gives `[c, a, b]`.
 */
import { errBadArgType, errNoListOfLists, errNoMergeKey, goFormat, StrategicMergeError } from "./strategic-merge-errors.ts";
import { extractToDeleteItems, findMapByKey, kindOf, same, validateMergeKeyInLists, type ValueKind } from "./strategic-merge-directives.ts";
import { hasOwn, isObject } from "./values.ts";

/** The one kind of the items of some lists; mixed kinds and lists of lists are errors. */
export function sliceElementKind(...lists: unknown[][]): ValueKind {
  let kind: ValueKind | undefined;
  for (const list of lists) {
    for (const item of list) {
      const k = kindOf(item);
      if (kind === undefined) {
        if (k === "slice") throw errNoListOfLists();
        kind = k;
      } else if (k !== kind) {
        throw new StrategicMergeError(`list element types are not identical: ${goFormat(lists)}`, 500, "list element types are not identical");
      }
    }
  }
  if (kind === undefined) throw new StrategicMergeError("no elements in any of the given slices");
  return kind;
}

/** Position of an item in a reference list (by merge key for maps), or -1. */
function indexIn(list: unknown[], item: unknown, mergeKey: string, kind: ValueKind): number {
  const val = (x: unknown): unknown => (kind === "map" ? (isObject(x) ? x[mergeKey] : undefined) : x);
  const want = val(item);
  return list.findIndex((x) => same(val(x), want));
}

/** Sorts a list by a reference order (stable; items absent from the reference keep their place); `$patch: delete` items go last. */
function normalizeSliceOrder(toSort: unknown[], order: unknown[], mergeKey: string, kind: ValueKind): unknown[] {
  let items = toSort;
  let toDelete: unknown[] = [];
  if (kind === "map") {
    validateMergeKeyInLists(mergeKey, toSort, order);
    ({ keep: items, toDelete } = extractToDeleteItems(toSort));
  }
  const positioned = items.map((item, i) => ({ item, i, at: indexIn(order, item, mergeKey, kind) }));
  positioned.sort((a, b) => (a.at >= 0 && b.at >= 0 ? a.at - b.at : a.i - b.i));
  return [...positioned.map((p) => p.item), ...toDelete];
}

/** Interleaves the sorted server-only items (`left`) into the sorted patch items (`right`). */
function mergeSortedSlice(left: unknown[], right: unknown[], serverOrder: unknown[], mergeKey: string, kind: ValueKind): unknown[] {
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexIn(serverOrder, left[i], mergeKey, kind);
      const ri = indexIn(serverOrder, right[j], mergeKey, kind);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

/** Orders patch items by `patchOrder`, server-only items by `serverOrder`, and interleaves them. */
export function normalizeElementOrder(
  patchItems: unknown[],
  serverOnly: unknown[],
  patchOrder: unknown[],
  serverOrder: unknown[],
  mergeKey: string,
  kind: ValueKind,
): unknown[] {
  const p = normalizeSliceOrder(patchItems, patchOrder, mergeKey, kind);
  const s = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  return mergeSortedSlice(s, p, serverOrder, mergeKey, kind);
}

/** Splits scalars into those present in `by` and the others, keeping their order. */
export function partitionPrimitives(list: unknown[], by: unknown[]): { inPatch: unknown[]; serverOnly: unknown[] } {
  const inPatch: unknown[] = [];
  const serverOnly: unknown[] = [];
  for (const v of list) (by.some((b) => same(b, v)) ? inPatch : serverOnly).push(v);
  return { inPatch, serverOnly };
}

/** Splits maps into those whose merge key appears in `by` and the others, keeping their order. */
export function partitionMaps(list: unknown[], by: unknown[], mergeKey: string): { inPatch: unknown[]; serverOnly: unknown[] } {
  const inPatch: unknown[] = [];
  const serverOnly: unknown[] = [];
  for (const v of list) {
    if (!isObject(v)) throw errBadArgType("map", v);
    if (!hasOwn(v, mergeKey)) throw errNoMergeKey(v, mergeKey);
    (findMapByKey(by, mergeKey, v[mergeKey]) ? inPatch : serverOnly).push(v);
  }
  return { inPatch, serverOnly };
}

/** Removes every occurrence of the given scalars. */
export function deleteFromSlice(current: unknown[], toDelete: unknown[]): unknown[] {
  return current.filter((v) => !toDelete.some((d) => same(d, v)));
}

/** Scalars without repeats, first occurrence kept. */
export function deduplicateScalars(list: unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const v of list) if (!out.some((o) => same(o, v))) out.push(v);
  return out;
}
