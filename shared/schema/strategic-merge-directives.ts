/**
 * The directives of the strategic merge patch and the helpers that read them:
 *
 *   `$patch: replace | delete`            on a map (replace it by the rest of the patch map / empty it),
 *   `{name: x, $patch: delete}`           in a merged list (delete every item with that key),
 *   `{$patch: replace}`                   in a merged list (replace the list by the other patch items),
 *   `$retainKeys: [k...]`                 on a map (drop the original's keys not listed),
 *   `$deleteFromPrimitiveList/<f>: [v...]` next to a merged scalar list (remove those values),
 *   `$setElementOrder/<f>: [...]`         next to a merged list (the final order of the listed items).
 *
 * These helpers work on private copies (the entry point copies its inputs) and may
 * change the maps and lists they are given, as the merge itself does.
 */
import {
  errBadArgType,
  errBadPatchFormatForPrimitiveList,
  errBadPatchFormatForRetainKeys,
  errBadPatchFormatForSetElementOrderList,
  errNoMergeKey,
  goFormat,
  StrategicMergeError,
} from "./strategic-merge-errors.ts";
import { deepEqual, hasOwn, isObject, setOwn } from "./values.ts";

export type JsonMap = Record<string, unknown>;

export const DIRECTIVE_MARKER = "$patch";
export const DELETE_DIRECTIVE = "delete";
export const REPLACE_DIRECTIVE = "replace";
export const MERGE_DIRECTIVE = "merge";
export const RETAIN_KEYS_STRATEGY = "retainKeys";
export const RETAIN_KEYS_DIRECTIVE = "$retainKeys";
export const DELETE_FROM_PRIMITIVE_LIST_PREFIX = "$deleteFromPrimitiveList";
export const SET_ELEMENT_ORDER_PREFIX = "$setElementOrder";

/** The decoded-JSON kind of a value; two values of different kinds never merge. */
export type ValueKind = "map" | "slice" | "string" | "number" | "bool" | "nil";

export function kindOf(v: unknown): ValueKind {
  if (v === null || v === undefined) return "nil";
  if (Array.isArray(v)) return "slice";
  if (isObject(v)) return "map";
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "bool";
  return "number";
}

/** Equality of merge-key values and list scalars: by value for scalars, by identity for maps and lists. */
export function same(a: unknown, b: unknown): boolean {
  if (typeof a === "object" && a !== null) return a === b;
  if (typeof b === "object" && b !== null) return false;
  return deepEqual(a, b);
}

/**
 * Strips `$patch` directives from a value that is taken as is (a key absent from
 * the original): a map carrying `$patch` is dropped whole (`keep` false), and so is
 * a list item carrying it. Other `$` keys stay, as on the platform.
 */
export function removeDirectives(v: unknown): { value: unknown; keep: boolean } {
  if (isObject(v)) {
    if (hasOwn(v, DIRECTIVE_MARKER)) return { value: null, keep: false };
    for (const k of Object.keys(v)) {
      const r = removeDirectives(v[k]);
      if (r.keep) setOwn(v, k, r.value);
      else delete v[k];
    }
    return { value: v, keep: true };
  }
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    for (const item of v) {
      const r = removeDirectives(item);
      if (r.keep) out.push(r.value);
    }
    return { value: out, keep: true };
  }
  return { value: v, keep: true };
}

/** Drops every `null` map value below a value that is taken as is (nulls only delete what exists). */
export function discardNullValues(v: unknown): void {
  if (isObject(v)) {
    for (const k of Object.keys(v)) {
      if (v[k] === null) delete v[k];
      else discardNullValues(v[k]);
    }
  } else if (Array.isArray(v)) {
    for (const item of v) discardNullValues(item);
  }
}

/** `$setElementOrder/containers` → `containers`; a key without the slash is malformed. */
export function extractKey(key: string, prefix: typeof DELETE_FROM_PRIMITIVE_LIST_PREFIX | typeof SET_ELEMENT_ORDER_PREFIX): string {
  const slash = key.indexOf("/");
  if (slash < 0 || key.slice(0, slash) !== prefix) {
    throw prefix === DELETE_FROM_PRIMITIVE_LIST_PREFIX ? errBadPatchFormatForPrimitiveList() : errBadPatchFormatForSetElementOrderList();
  }
  return key.slice(slash + 1);
}

/**
 * `$retainKeys`: every key the patch sets (non-null, not a parallel directive list)
 * must be listed; keys of the original that are not listed are cleared. The platform
 * honours the directive on any map, whatever the field's patch strategy says.
 */
export function applyRetainKeysDirective(original: JsonMap, patch: JsonMap): void {
  if (!hasOwn(patch, RETAIN_KEYS_DIRECTIVE)) return;
  const retain = patch[RETAIN_KEYS_DIRECTIVE];
  delete patch[RETAIN_KEYS_DIRECTIVE];
  if (!Array.isArray(retain)) throw errBadPatchFormatForRetainKeys();
  const listed = (k: string): boolean => retain.some((r) => same(r, k));
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX) || k.startsWith(SET_ELEMENT_ORDER_PREFIX)) continue;
    if (!listed(k)) throw errBadPatchFormatForRetainKeys();
  }
  for (const k of Object.keys(original)) {
    if (!listed(k)) delete original[k];
  }
}

/** The first map of a list whose merge key has this value. */
export function findMapByKey(list: unknown[], key: string, value: unknown): { map: JsonMap; index: number } | undefined {
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    if (!isObject(item)) throw new StrategicMergeError(`value for key ${i} is not a map.`);
    if (hasOwn(item, key) && same(item[key], value)) return { map: item, index: i };
  }
  return undefined;
}

/** Every item is a map holding the merge key. */
export function validateMergeKeyInLists(mergeKey: string, ...lists: unknown[][]): void {
  for (const list of lists) {
    for (const item of list) {
      if (!isObject(item)) throw errBadArgType("map", item);
      if (!hasOwn(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
    }
  }
}

/** Splits list items into those without and those with `$patch: delete`. */
export function extractToDeleteItems(list: unknown[]): { keep: unknown[]; toDelete: unknown[] } {
  const keep: unknown[] = [];
  const toDelete: unknown[] = [];
  for (const item of list) {
    if (!isObject(item)) throw errBadArgType("map", item);
    if (hasOwn(item, DIRECTIVE_MARKER) && item[DIRECTIVE_MARKER] === DELETE_DIRECTIVE) toDelete.push(item);
    else keep.push(item);
  }
  return { keep, toDelete };
}

function mergeKeyValueEqual(left: unknown, right: unknown, mergeKey: string): boolean {
  if (mergeKey === "") return same(left, right);
  if (!isObject(left)) throw errBadArgType("map", left);
  if (!isObject(right)) throw errBadArgType("map", right);
  if (!hasOwn(left, mergeKey)) throw errNoMergeKey(left, mergeKey);
  if (!hasOwn(right, mergeKey)) throw errNoMergeKey(right, mergeKey);
  return same(left[mergeKey], right[mergeKey]);
}

/**
 * The patch list's items (deletions and directive items aside) must appear in the
 * `$setElementOrder` list, in the same relative order.
 */
export function validatePatchWithSetOrderList(patchList: unknown, setOrderList: unknown, mergeKey: string): void {
  if (!Array.isArray(setOrderList) || !Array.isArray(patchList)) throw errBadPatchFormatForSetElementOrderList();
  if (setOrderList.length === 0 || patchList.length === 0) return;
  const items = mergeKey !== "" ? extractToDeleteItems(patchList).keep : patchList;
  let p = 0;
  let s = 0;
  while (p < items.length && s < setOrderList.length) {
    const item = items[p];
    if (isObject(item) && hasOwn(item, DIRECTIVE_MARKER)) {
      p++;
      continue;
    }
    if (mergeKeyValueEqual(item, setOrderList[s], mergeKey)) p++;
    s++;
  }
  if (p < items.length && s >= setOrderList.length) {
    throw new StrategicMergeError(
      `the order in patch list:\n${goFormat(patchList)}\n doesn't match ${SET_ELEMENT_ORDER_PREFIX} list:\n${goFormat(setOrderList)}`,
      500,
      `the order in patch list doesn't match ${SET_ELEMENT_ORDER_PREFIX} list`,
    );
  }
}
