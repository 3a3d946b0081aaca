/**
 * List and watch filters from `labelSelector` and `fieldSelector`. Field selectors may
 * use metadata.name, metadata.namespace and the kind's selectable fields; anything
 * else is a 400 as on the platform (`field label not supported: spec.foo`).
 */
import { badRequest } from "../../../shared/api/status.ts";
import { parseFieldSelector, parseLabelSelector, SelectorError, type FieldSelector, type ParsedLabelSelector } from "../../../shared/api/selectors.ts";
import type { KindDefinition } from "../../../shared/schema/types.ts";
import type { Predicate } from "../storage/interface.ts";
import { meta, type JsonObject } from "../storage/object.ts";

export interface Selection {
  predicate?: Predicate;
  hasSelector: boolean;
  /** Exact metadata.name required by the field selector, if any. */
  name?: string;
}

/** Value of a dotted path as the field selector sees it (booleans and numbers as strings, absent as ""). */
export function fieldValue(obj: JsonObject, path: string): string {
  let cur: unknown = obj;
  for (const part of path.split(".")) {
    if (cur === null || typeof cur !== "object" || Array.isArray(cur)) return "";
    cur = (cur as Record<string, unknown>)[part];
  }
  if (cur === undefined || cur === null) return "";
  return typeof cur === "string" ? cur : String(cur);
}

export function selectableFieldsOf(def: KindDefinition): string[] {
  const fields = ["metadata.name"];
  if (def.namespaced) fields.push("metadata.namespace");
  return [...fields, ...(def.selectableFields ?? [])];
}

export function buildSelection(def: KindDefinition, labelText: string | null, fieldText: string | null): Selection {
  const predicates: Predicate[] = [];
  let name: string | undefined;
  try {
    if (labelText) {
      const sel = parseLabelSelector(labelText);
      if (!sel.empty()) predicates.push(labelPredicate(sel));
    }
    if (fieldText) {
      const sel = parseFieldSelector(fieldText);
      const allowed = new Set(selectableFieldsOf(def));
      for (const req of sel.requirements) {
        if (!allowed.has(req.key)) throw badRequest(`field label not supported: ${req.key}`);
      }
      name = sel.requiresExactMatch("metadata.name");
      if (!sel.empty()) predicates.push(fieldPredicate(sel, [...allowed]));
    }
  } catch (err) {
    if (err instanceof SelectorError) throw badRequest(err.message);
    throw err;
  }
  if (predicates.length === 0) return { hasSelector: false };
  return { hasSelector: true, name, predicate: predicates.length === 1 ? predicates[0] : allOf(predicates) };
}

// Each predicate closes over its selector only: an open watch keeps it for its whole life.
function labelPredicate(sel: ParsedLabelSelector): Predicate {
  return (obj) => sel.matches(meta(obj).labels);
}

function fieldPredicate(sel: FieldSelector, fields: string[]): Predicate {
  return (obj) => {
    const values: Record<string, string> = {};
    for (const f of fields) values[f] = fieldValue(obj, f);
    return sel.matches(values);
  };
}

function allOf(predicates: Predicate[]): Predicate {
  return (obj) => predicates.every((p) => p(obj));
}
