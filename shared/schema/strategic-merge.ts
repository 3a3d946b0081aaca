/**
 * Strategic merge patch (`application/strategic-merge-patch+json`), applied as the
 * platform's server applies it: a JSON merge patch whose list semantics come from
 * the schema's patch markers.
 *
 * - Maps merge recursively; `null` deletes a key (and a `null` for an absent key is dropped).
 * - A list whose `patchStrategy` includes `merge` merges: maps by `patchMergeKey`
 *   (patch items update the live item with the same key, new ones are added),
 *   scalars as a set. Every other list is replaced, whatever its list type says.
 * - A map whose `patchStrategy` is `replace` is replaced.
 * - Directives: see strategic-merge-directives.ts.
 * - Keys the schema does not know pass through (maps merge, lists are replaced);
 *   detecting unknown fields is the decoder's job, after the merge.
 *
 * Pure: the inputs are copied, never changed.
 */
import {
  applyRetainKeysDirective,
  DELETE_DIRECTIVE,
  DELETE_FROM_PRIMITIVE_LIST_PREFIX,
  DIRECTIVE_MARKER,
  discardNullValues,
  extractKey,
  findMapByKey,
  type JsonMap,
  kindOf,
  MERGE_DIRECTIVE,
  removeDirectives,
  REPLACE_DIRECTIVE,
  RETAIN_KEYS_STRATEGY,
  SET_ELEMENT_ORDER_PREFIX,
  validatePatchWithSetOrderList,
} from "./strategic-merge-directives.ts";
import { errBadArgType, errBadJSONDoc, errBadPatchType, errNoMergeKey, goFormat, StrategicMergeError } from "./strategic-merge-errors.ts";
import {
  deduplicateScalars,
  deleteFromSlice,
  normalizeElementOrder,
  partitionMaps,
  partitionPrimitives,
  sliceElementKind,
} from "./strategic-merge-order.ts";
import type { Schema } from "./types.ts";
import { cloneValue, hasOwn, isObject, setOwn } from "./values.ts";

export { StrategicMergeError } from "./strategic-merge-errors.ts";
export type { StrategicMergeErrorCode } from "./strategic-merge-errors.ts";

/**
 * Applies a strategic merge patch to an object whose schema is `schema` (the
 * kind's whole-object schema) and returns the result. `original` may be
 * null/undefined (an empty object). Throws `StrategicMergeError`.
 */
export function strategicMergePatch(schema: Schema, original: unknown, patch: unknown): unknown {
  const orig = original === null || original === undefined ? {} : original;
  if (!isObject(orig)) throw errBadJSONDoc();
  if (patch === null || patch === undefined) return cloneValue(orig);
  if (!isObject(patch)) {
    const kind = Array.isArray(patch) ? "array" : typeof patch === "boolean" ? "bool" : typeof patch === "string" ? "string" : "number";
    throw new StrategicMergeError(`json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`, 400);
  }
  return mergeMap(cloneValue(orig), cloneValue(patch), schema);
}

/** Patch markers of a field, as the field's schema declares them. */
interface FieldMeta {
  schema: Schema | undefined;
  /** `merge`, `replace` or "" (no strategy: maps merge, lists are replaced). */
  strategy: string;
  mergeKey: string;
}

function fieldMeta(parent: Schema | undefined, key: string): FieldMeta {
  const schema = parent ? (parent.properties && hasOwn(parent.properties, key) ? parent.properties[key] : parent.additionalProperties) : undefined;
  const strategies = schema?.patchStrategy ? schema.patchStrategy.split(",") : [];
  let strategy = "";
  if (strategies.length === 1) strategy = strategies[0] === RETAIN_KEYS_STRATEGY ? "" : strategies[0];
  else if (strategies.length === 2 && strategies.includes(RETAIN_KEYS_STRATEGY)) strategy = strategies[0] === RETAIN_KEYS_STRATEGY ? strategies[1] : strategies[0];
  else if (strategies.length > 0) throw new StrategicMergeError(`unexpected patch strategy: ${goFormat(strategies)}`);
  return { schema, strategy, mergeKey: schema?.patchMergeKey ?? "" };
}

/** A map directive: `replace` keeps the rest of the patch map, `delete` leaves an empty map. */
function handleDirectiveInMergeMap(directive: unknown, patch: JsonMap): JsonMap {
  if (directive === REPLACE_DIRECTIVE) {
    delete patch[DIRECTIVE_MARKER];
    return patch;
  }
  if (directive === DELETE_DIRECTIVE) return {};
  throw errBadPatchType(directive, patch);
}

/** A value taken as is (absent from the original, or of another kind): nulls and `$patch` maps removed. */
function takePatchValue(target: JsonMap, key: string, value: unknown): void {
  discardNullValues(value);
  const r = removeDirectives(value);
  if (r.keep) setOwn(target, key, r.value);
  else delete target[key];
}

function mergeMap(original: JsonMap, patch: JsonMap, schema: Schema | undefined): JsonMap {
  if (hasOwn(patch, DIRECTIVE_MARKER)) return handleDirectiveInMergeMap(patch[DIRECTIVE_MARKER], patch);

  applyRetainKeysDirective(original, patch);
  mergeSetElementOrderLists(original, patch, schema);

  for (const [patchKey, patchV] of Object.entries(patch)) {
    let k = patchKey;
    let isDeleteList = false;
    if (patchKey.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX)) {
      k = extractKey(patchKey, DELETE_FROM_PRIMITIVE_LIST_PREFIX);
      isDeleteList = true;
    }
    if (patchV === null) {
      delete original[k];
      continue;
    }
    if (!hasOwn(original, k) || kindOf(original[k]) !== kindOf(patchV)) {
      if (!isDeleteList) takePatchValue(original, k, patchV);
      continue;
    }
    const current = original[k];
    if (isObject(current) && isObject(patchV)) {
      const meta = fieldMeta(schema, k);
      setOwn(original, k, meta.strategy === REPLACE_DIRECTIVE ? patchV : mergeMap(current, patchV, meta.schema));
    } else if (Array.isArray(current) && Array.isArray(patchV)) {
      setOwn(original, k, mergeSliceHandler(current, patchV, fieldMeta(schema, k), isDeleteList));
    } else {
      takePatchValue(original, k, patchV);
    }
  }
  return original;
}

function mergeSliceHandler(original: unknown[], patch: unknown[], meta: FieldMeta, isDeleteList: boolean): unknown[] {
  if (meta.strategy !== MERGE_DIRECTIVE) return patch;
  return mergeSlice(original, patch, meta, isDeleteList);
}

function mergeSlice(originalIn: unknown[], patchIn: unknown[], meta: FieldMeta, isDeleteList: boolean): unknown[] {
  if (originalIn.length === 0 && patchIn.length === 0) return originalIn;
  const kind = sliceElementKind(originalIn, patchIn);
  const { mergeKey } = meta;
  let original = [...originalIn];
  let patch = patchIn;
  let merged: unknown[];
  if (kind !== "map") {
    if (isDeleteList) return deleteFromSlice(original, patch);
    merged = deduplicateScalars([...original, ...patch]);
  } else {
    if (mergeKey === "") throw new StrategicMergeError(`cannot merge lists without merge key for ${meta.schema?.items?.definition?.name ?? "map"}`);
    ({ original, patch } = mergeSliceWithSpecialElements(original, patch, mergeKey));
    merged = mergeSliceWithoutSpecialElements(original, patch, mergeKey, meta.schema?.items);
  }
  const { inPatch, serverOnly } = mergeKey === "" ? partitionPrimitives(merged, patch) : partitionMaps(merged, patch, mergeKey);
  return normalizeElementOrder(inPatch, serverOnly, patch, original, mergeKey, kind);
}

/** Applies the `$patch` items of a merged list of maps: deletions by key, `replace` of the whole list. */
function mergeSliceWithSpecialElements(original: unknown[], patch: unknown[], mergeKey: string): { original: unknown[]; patch: unknown[] } {
  const plain: unknown[] = [];
  let replace = false;
  let kept = original;
  for (const item of patch) {
    if (!isObject(item)) throw errBadArgType("map", item);
    if (!hasOwn(item, DIRECTIVE_MARKER)) {
      plain.push(item);
      continue;
    }
    const directive = item[DIRECTIVE_MARKER];
    if (directive === DELETE_DIRECTIVE) {
      if (!hasOwn(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
      const value = item[mergeKey];
      for (let found = findMapByKey(kept, mergeKey, value); found; found = findMapByKey(kept, mergeKey, value)) {
        const at = found.index;
        kept = kept.filter((_, i) => i !== at);
      }
    } else if (directive === REPLACE_DIRECTIVE) {
      replace = true;
    } else if (directive === MERGE_DIRECTIVE) {
      throw new StrategicMergeError("merging lists cannot yet be specified in the patch");
    } else {
      throw errBadPatchType(directive, item);
    }
  }
  return replace ? { original: plain, patch: [] } : { original: kept, patch: plain };
}

/** Merges patch maps into the live items with the same key; new ones are added. */
function mergeSliceWithoutSpecialElements(original: unknown[], patch: unknown[], mergeKey: string, itemSchema: Schema | undefined): unknown[] {
  const out = [...original];
  for (const item of patch) {
    if (!isObject(item)) throw errBadArgType("map", item);
    if (!hasOwn(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
    const found = findMapByKey(out, mergeKey, item[mergeKey]);
    if (found) out[found.index] = mergeMap(found.map, item, itemSchema);
    else out.push(item);
  }
  return out;
}

/**
 * `$setElementOrder/<field>`: merges the field's patch list (if any) into the live
 * list, then orders the items it names as it lists them; the live list's other
 * items keep their places relative to them.
 */
function mergeSetElementOrderLists(original: JsonMap, patch: JsonMap, schema: Schema | undefined): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER_PREFIX)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw errBadArgType("slice", order);
    const field = extractKey(key, SET_ELEMENT_ORDER_PREFIX);
    const foundOriginal = hasOwn(original, field);
    const foundPatch = hasOwn(patch, field);
    const originalList = original[field];
    const patchList = patch[field];
    if (foundOriginal && !Array.isArray(originalList)) throw errBadArgType("slice", originalList);
    if (foundPatch && !Array.isArray(patchList)) throw errBadArgType("slice", patchList);
    const originalItems = Array.isArray(originalList) ? originalList : [];
    const patchItems = Array.isArray(patchList) ? patchList : [];
    const meta = fieldMeta(schema, field);
    validatePatchWithSetOrderList(patchItems, order, meta.mergeKey);

    let merged: unknown[];
    if (foundOriginal && !foundPatch) merged = originalItems;
    else if (!foundOriginal && foundPatch) merged = removeDirectives(patchItems).value as unknown[];
    else if (foundOriginal && foundPatch) merged = mergeSliceHandler(originalItems, patchItems, meta, false);
    else continue;

    const { inPatch, serverOnly } = meta.mergeKey === "" ? partitionPrimitives(merged, order) : partitionMaps(merged, order, meta.mergeKey);
    const kind = sliceElementKind(originalItems, patchItems);
    setOwn(original, field, normalizeElementOrder(inPatch, serverOnly, order, originalItems, meta.mergeKey, kind));
    delete patch[field];
  }
}
