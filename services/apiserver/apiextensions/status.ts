/**
 * The status a CRD should have, as the platform's naming and establishing
 * controllers compute it: `acceptedNames` (spec names with their defaults) unless
 * another CRD of the same group already serves one of them, `NamesAccepted`
 * (NoConflicts, or PluralConflict/SingularConflict/ShortNamesConflict/KindConflict/
 * ListKindConflict with `"<name>" is already in use`), `Established`
 * (InitialNamesAccepted, or NotAccepted). Pure: `desiredStatus` returns undefined
 * when the CRD already has it (times aside).
 */
import { isObject, meta, type JsonObject } from "../storage/object.ts";

type Json = Record<string, unknown>;

export interface Condition {
  type: string;
  status: "True" | "False" | "Unknown";
  lastTransitionTime?: string;
  reason: string;
  message: string;
}

function obj(v: unknown): Json {
  return isObject(v) ? v : {};
}
function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}
function strs(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

/** spec.names with singular and listKind defaulted. */
export function requestedNames(crd: JsonObject): Json {
  const n = structuredClone(obj(obj(crd.spec).names));
  const kind = str(n.kind);
  if (str(n.singular) === "") n.singular = kind.toLowerCase();
  if (str(n.listKind) === "" && kind !== "") n.listKind = `${kind}List`;
  return n;
}

function conflict(names: Json, others: JsonObject[]): { reason: string; message: string } | undefined {
  const used = { plural: new Set<string>(), singular: new Set<string>(), short: new Set<string>(), kind: new Set<string>(), listKind: new Set<string>() };
  for (const other of others) {
    const a = obj(obj(other.status).acceptedNames);
    const resourceNames = [str(a.plural), str(a.singular), ...strs(a.shortNames)].filter((x) => x !== "");
    for (const r of resourceNames) {
      used.plural.add(r);
      used.singular.add(r);
      used.short.add(r);
    }
    if (str(a.kind) !== "") used.kind.add(str(a.kind));
    if (str(a.listKind) !== "") used.listKind.add(str(a.listKind));
  }
  const inUse = (name: string) => `"${name}" is already in use`;
  if (used.plural.has(str(names.plural))) return { reason: "PluralConflict", message: inUse(str(names.plural)) };
  if (used.singular.has(str(names.singular))) return { reason: "SingularConflict", message: inUse(str(names.singular)) };
  for (const s of strs(names.shortNames)) if (used.short.has(s)) return { reason: "ShortNamesConflict", message: inUse(s) };
  if (used.kind.has(str(names.kind))) return { reason: "KindConflict", message: inUse(str(names.kind)) };
  if (used.listKind.has(str(names.listKind))) return { reason: "ListKindConflict", message: inUse(str(names.listKind)) };
  return undefined;
}

export function conditionsOf(crd: JsonObject): Condition[] {
  const c = obj(crd.status).conditions;
  return Array.isArray(c) ? (c.filter(isObject) as unknown as Condition[]) : [];
}

export function condition(crd: JsonObject, type: string): Condition | undefined {
  return conditionsOf(crd).find((c) => c.type === type);
}

export function isEstablished(crd: JsonObject): boolean {
  return condition(crd, "Established")?.status === "True";
}

/** Sets a condition; the transition time changes only when the status does. */
export function setCondition(conditions: Condition[], next: Condition, now: string): Condition[] {
  const old = conditions.find((c) => c.type === next.type);
  const merged: Condition = { ...next, lastTransitionTime: old && old.status === next.status ? (old.lastTransitionTime ?? now) : now };
  return old ? conditions.map((c) => (c.type === next.type ? merged : c)) : [...conditions, merged];
}

/** The status the CRD should have given the other CRDs, or undefined when it has it already. */
export function desiredStatus(crd: JsonObject, all: Iterable<JsonObject>, now: string): Json | undefined {
  const group = str(obj(crd.spec).group);
  const name = meta(crd).name;
  const others = [...all].filter((o) => meta(o).name !== name && str(obj(o.spec).group) === group);
  const names = requestedNames(crd);
  const found = conflict(names, others);
  const status = structuredClone(obj(crd.status));
  let conditions = conditionsOf(crd).map((c) => ({ ...c }));
  if (found) {
    conditions = setCondition(conditions, { type: "NamesAccepted", status: "False", ...found }, now);
    if (!isEstablished(crd)) conditions = setCondition(conditions, { type: "Established", status: "False", reason: "NotAccepted", message: "not all names are accepted" }, now);
  } else {
    status.acceptedNames = names;
    conditions = setCondition(conditions, { type: "NamesAccepted", status: "True", reason: "NoConflicts", message: "no conflicts found" }, now);
    conditions = setCondition(conditions, { type: "Established", status: "True", reason: "InitialNamesAccepted", message: "the initial names have been accepted" }, now);
  }
  if (!isObject(status.acceptedNames)) status.acceptedNames = { plural: "", kind: "" };
  status.conditions = conditions;
  if (!Array.isArray(status.storedVersions)) status.storedVersions = [];
  return JSON.stringify(status) === JSON.stringify(obj(crd.status)) ? undefined : status;
}
