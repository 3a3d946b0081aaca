/**
 * How the typed schema reads for field management: every node is a scalar
 * (a leaf), a list (atomic: a leaf; `set`: items by value; `map`: items by
 * key fields) or a map (atomic: a leaf; granular: fields by name, where
 * `properties` are the declared fields and `additionalProperties` the type
 * of any other key).
 *
 * A node that says nothing about its shape (`x-…-preserve-unknown-fields`
 * without a type, unknown fields) is "deduced" from the value as the platform
 * does: objects are granular maps of deduced values, arrays are atomic.
 * A value whose shape contradicts its schema is treated as a leaf.
 */
import type { Schema } from "../../../shared/schema/types.ts";
import { elementString, indexElement, keyElement, pathString, serializeElement, valueElement, type JsonValue, type Path, type PathElement } from "./path-element.ts";

/** A schema node, or undefined for a deduced (untyped) node. */
export type TypeRef = Schema | undefined;

export type Atom =
  | { readonly kind: "scalar" }
  | { readonly kind: "list"; readonly relation: "atomic" | "set" | "map"; readonly keys: readonly string[]; readonly items: TypeRef }
  | { readonly kind: "map"; readonly atomic: boolean; readonly fields: Readonly<Record<string, Schema>>; readonly elem: TypeRef };

const SCALAR: Atom = { kind: "scalar" };
const DEDUCED_MAP: Atom = { kind: "map", atomic: false, fields: {}, elem: undefined };
const DEDUCED_LIST: Atom = { kind: "list", relation: "atomic", keys: [], items: undefined };

/** The atom of a schema node alone; undefined when the node is deduced from its value. */
export function schemaAtom(s: TypeRef): Atom | undefined {
  if (s === undefined) return undefined;
  if (s.properties || s.additionalProperties || s.type === "object") {
    return { kind: "map", atomic: s.mapType === "atomic", fields: s.properties ?? {}, elem: s.additionalProperties };
  }
  if (s.items || s.type === "array") {
    const keys = s.listMapKeys ?? [];
    const relation = s.listType === "map" ? (keys.length > 0 ? "map" : "set") : s.listType === "set" ? "set" : "atomic";
    return { kind: "list", relation, keys, items: s.items };
  }
  if (s.type !== undefined || s.intOrString) return SCALAR;
  return undefined;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The atom used for a present value (null included). */
export function atomFor(s: TypeRef, v: unknown): Atom {
  const a = schemaAtom(s);
  if (a === undefined) return isObject(v) ? DEDUCED_MAP : Array.isArray(v) ? DEDUCED_LIST : SCALAR;
  if (v === null) return a;
  if (a.kind === "map" && !isObject(v)) return SCALAR;
  if (a.kind === "list" && !Array.isArray(v)) return SCALAR;
  return a;
}

export function isDeclaredField(a: Atom & { kind: "map" }, name: string): boolean {
  return Object.hasOwn(a.fields, name);
}

export function fieldType(a: Atom & { kind: "map" }, name: string): TypeRef {
  return Object.hasOwn(a.fields, name) ? a.fields[name] : a.elem;
}

/** A value of the typed walk failed to make sense (missing keys, duplicate keys in a request...). */
export class TypedValueError extends Error {
  override readonly name = "TypedValueError";
  constructor(path: Path, message: string) {
    super(path.length > 0 ? `${pathString(path)}: ${message}` : message);
  }
}

/** The element naming one item of a non-atomic list (key fields may come from their schema defaults). */
export function listItemElement(a: Atom & { kind: "list" }, item: unknown, index: number, path: Path): PathElement {
  const fail = (msg: string): never => {
    throw new TypedValueError(path, `element ${index}: ${msg}`);
  };
  if (a.relation === "map") {
    if (item === null) return fail("associative list with keys may not have a null element");
    if (!isObject(item)) return fail("associative list with keys may not have non-map elements");
    const fields: Array<[string, JsonValue]> = [];
    for (const key of a.keys) {
      if (Object.hasOwn(item, key) && item[key] !== undefined) fields.push([key, item[key] as JsonValue]);
      else {
        const def = a.items?.properties?.[key]?.default;
        if (def === undefined) return fail(`associative list with keys has an element that omits key field ${JSON.stringify(key)} (and doesn't have default value)`);
        fields.push([key, def as JsonValue]);
      }
    }
    return keyElement(fields);
  }
  if (a.relation === "set") {
    if (isObject(item)) return fail("associative list without keys has an element that's a map type");
    if (Array.isArray(item)) return fail("not supported: associative list with lists as elements");
    if (item === null) return fail("associative list without keys has an element that's an explicit null");
    return valueElement(item as JsonValue);
  }
  return indexElement(index);
}

/** Items of a list indexed by element: first-occurrence order, and which elements occur more than once. */
export interface ListIndex {
  readonly order: string[];
  readonly pe: Map<string, PathElement>;
  readonly items: Map<string, unknown[]>;
}

export function indexList(a: Atom & { kind: "list" }, list: readonly unknown[] | null, path: Path, duplicates: "allow" | "reject"): ListIndex {
  const idx: ListIndex = { order: [], pe: new Map(), items: new Map() };
  (list ?? []).forEach((item, i) => {
    const pe = listItemElement(a, item, i, path);
    const key = serializeElement(pe);
    const have = idx.items.get(key);
    if (have) {
      if (duplicates === "reject") throw new TypedValueError(path, `duplicate entries for key ${elementString(pe)}`);
      have.push(item);
    } else {
      idx.order.push(key);
      idx.pe.set(key, pe);
      idx.items.set(key, [item]);
    }
  });
  return idx;
}
