/**
 * The FieldsV1 serialization of field sets, byte for byte the platform's:
 * a JSON object whose keys are serialized path elements (`f:`, `k:`, `v:`,
 * `i:`) in element order, leaves written as `{}`, and a `"."` entry (first)
 * for an element that is itself a member and also has children.
 *
 *   {"f:metadata":{"f:labels":{"f:app":{}}},
 *    "f:spec":{"f:containers":{"k:{\"name\":\"nginx\"}":{".":{},"f:image":{}}}}}
 *
 * Reading follows the platform too: unknown prefixes are skipped (a newer
 * writer may know them), `null` entries are skipped, and an object with no
 * known entries is a leaf.
 */
import { FieldSet, type SetEntry } from "./fieldpath.ts";
import { deserializeElement, PathElementError, serializeElement } from "./path-element.ts";

export type FieldsV1 = { [key: string]: FieldsV1 };

export class FieldsV1Error extends Error {
  override readonly name = "FieldsV1Error";
}

export function toFieldsV1(set: FieldSet): FieldsV1 {
  return emit(set, false);
}

function emit(set: FieldSet, includeSelf: boolean): FieldsV1 {
  const out: FieldsV1 = {};
  if (includeSelf && !set.empty()) out["."] = {};
  for (const e of set.entries()) out[serializeElement(e.pe)] = e.children.empty() ? {} : emit(e.children, e.member);
  return out;
}

export function fromFieldsV1(json: unknown): FieldSet {
  if (!isObject(json)) throw new FieldsV1Error(`FieldsV1 must be a JSON object, got ${describe(json)}`);
  return read(json, "").children;
}

function read(obj: Record<string, unknown>, at: string): { member: boolean; children: FieldSet } {
  let member = false;
  let known = false;
  const entries: SetEntry[] = [];
  for (const key in obj) {
    if (!Object.hasOwn(obj, key)) continue;
    const value = obj[key];
    if (key === ".") {
      member = true;
      known = true;
      continue;
    }
    let pe;
    try {
      pe = deserializeElement(key);
    } catch (e) {
      throw new FieldsV1Error(e instanceof PathElementError ? e.message : String(e));
    }
    if (pe === undefined || value === null || value === undefined) continue;
    if (!isObject(value)) throw new FieldsV1Error(`parsing JSON: ${at}${key}: expected an object, got ${describe(value)}`);
    known = true;
    const child = read(value, `${at}${key}.`);
    entries.push({ pe, member: child.member, children: child.children });
  }
  const children = FieldSet.fromEntries(entries);
  return { member: member || !known, children };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (Array.isArray(v)) return "an array";
  return v === null ? "null" : typeof v;
}
