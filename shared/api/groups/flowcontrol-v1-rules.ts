/**
 * Defaulting and validation of flowcontrol.apiserver/v1, as the platform does
 * them (release 1.35), with its messages.
 *
 * Defaulting (v1):
 *  - FlowSchema `spec.matchingPrecedence`: 0 or unset → 1000;
 *  - Limited `nominalConcurrencyShares` → 30 only when unset (an explicit 0
 *    stays 0), `lendablePercent` → 0 when unset;
 *  - Exempt `nominalConcurrencyShares` and `lendablePercent` → 0 when unset;
 *  - queuing `queues` 64, `handSize` 8, `queueLengthLimit` 50 when 0 or unset.
 * Pure functions over plain JSON objects; mutate in place where they default.
 */
import { fieldErrors } from "../../schema/field-errors.ts";
import { isDNS1123Label, isDNS1123Subdomain } from "../../schema/formats.ts";
import type { FieldError } from "../../schema/types.ts";
import { deepEqual } from "../../schema/values.ts";
import { isObj, listField, objField, strList } from "../field-errors.ts";
import { FLOW_SCHEMA_EXEMPT, MANDATORY_FLOW_SCHEMA_SPECS, MANDATORY_PRIORITY_LEVEL_SPECS, PRIORITY_LEVEL_EXEMPT } from "./flowcontrol-v1-mandatory.ts";

type Obj = Record<string, unknown>;

export const DEFAULT_MATCHING_PRECEDENCE = 1000;
export const MAX_MATCHING_PRECEDENCE = 10000;
export const DEFAULT_NOMINAL_CONCURRENCY_SHARES = 30;
export const DEFAULT_QUEUING = { queues: 64, handSize: 8, queueLengthLimit: 50 } as const;
const MAX_QUEUES = 10_000_000;
/** Bits of hash a shuffle-sharding deal may use (the platform's MaxHashBits). */
const MAX_HASH_BITS = 60;

const SUPPORTED_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"];
const DISTINGUISHER_TYPES = ["ByNamespace", "ByUser"];
const SUBJECT_KINDS = ["Group", "ServiceAccount", "User"];
const PRIORITY_LEVEL_TYPES = ["Exempt", "Limited"];
const LIMIT_RESPONSE_TYPES = ["Queue", "Reject"];

const num = (v: unknown): number => (typeof v === "number" ? v : 0);
const str = (v: unknown): string => (typeof v === "string" ? v : "");
const nameOf = (o: Obj): string => str(objField(o, "metadata")?.name);

// ---- defaulting ----------------------------------------------------------------

export function defaultFlowSchema(o: Obj): void {
  const spec = objField(o, "spec");
  if (spec && !num(spec.matchingPrecedence)) spec.matchingPrecedence = DEFAULT_MATCHING_PRECEDENCE;
}

export function defaultPriorityLevel(o: Obj): void {
  const spec = objField(o, "spec");
  const limited = spec && objField(spec, "limited");
  if (limited) {
    limited.nominalConcurrencyShares ??= DEFAULT_NOMINAL_CONCURRENCY_SHARES;
    limited.lendablePercent ??= 0;
    const queuing = objField(objField(limited, "limitResponse"), "queuing");
    if (queuing) for (const [k, v] of Object.entries(DEFAULT_QUEUING)) if (!num(queuing[k])) queuing[k] = v;
  }
  const exempt = spec && objField(spec, "exempt");
  if (exempt) {
    exempt.nominalConcurrencyShares ??= 0;
    exempt.lendablePercent ??= 0;
  }
}

// ---- FlowSchema ------------------------------------------------------------------

/** The value without false booleans and empty lists/objects: how the platform's semantic equality sees omitted fields. */
function withoutEmpty(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutEmpty);
  if (!isObj(v)) return v;
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) {
    const y = withoutEmpty(x);
    if (y === false || y === undefined || (Array.isArray(y) && y.length === 0) || (isObj(y) && Object.keys(y).length === 0)) continue;
    out[k] = y;
  }
  return out;
}

export function sameSpec(a: unknown, b: unknown): boolean {
  return deepEqual(withoutEmpty(a), withoutEmpty(b));
}

function validateVerbs(verbs: string[], path: string, errs: FieldError[]): void {
  if (verbs.length === 0) errs.push(fieldErrors.required(`${path}.verbs`, "verbs must contain at least one value"));
  else if (verbs.includes("*")) {
    if (verbs.length > 1) errs.push(fieldErrors.invalid(`${path}.verbs`, verbs, "if '*' is present, must not specify other verbs"));
  } else if (!verbs.every((v) => SUPPORTED_VERBS.includes(v))) errs.push(fieldErrors.notSupported(`${path}.verbs`, verbs, SUPPORTED_VERBS));
}

function wildcardAlone(values: string[], path: string, what: string, errs: FieldError[]): void {
  if (values.length > 1 && values.includes("*")) errs.push(fieldErrors.invalid(path, values, `if '*' is present, must not specify other ${what}`));
}

function validateResourceRule(rule: Obj, path: string, errs: FieldError[]): void {
  validateVerbs(strList(rule, "verbs"), path, errs);
  const apiGroups = strList(rule, "apiGroups");
  if (apiGroups.length === 0) errs.push(fieldErrors.required(`${path}.apiGroups`, "resource rules must supply at least one api group"));
  else wildcardAlone(apiGroups, `${path}.apiGroups`, "api groups", errs);
  const resources = strList(rule, "resources");
  if (resources.length === 0) errs.push(fieldErrors.required(`${path}.resources`, "resource rules must supply at least one resource"));
  else wildcardAlone(resources, `${path}.resources`, "resources", errs);
  const namespaces = strList(rule, "namespaces");
  if (namespaces.length === 0 && rule.clusterScope !== true) {
    errs.push(fieldErrors.required(`${path}.namespaces`, "resource rules that are not cluster scoped must supply at least one namespace"));
  } else if (namespaces.includes("*")) wildcardAlone(namespaces, `${path}.namespaces`, "namespaces", errs);
  else {
    namespaces.forEach((ns, i) => {
      for (const m of isDNS1123Label(ns)) errs.push(fieldErrors.invalid(`${path}.namespaces[${i}]`, ns, `each member of this list must be '*' or a DNS-1123 label; ${m}`));
    });
  }
}

/** The platform's checks of a non-resource URL: leading slash, no blanks or `//`, a wildcard only as `/*` at the end. */
export function nonResourceURLError(path: string): string | undefined {
  if (path === "") return "must not be empty";
  if (path === "/") return undefined;
  if (!path.startsWith("/")) return "must start with slash";
  if (path.includes(" ")) return "must not contain white-space";
  if (path.includes("//")) return "must not contain double slash";
  const stars = path.split("*").length - 1;
  if (stars > 1 || (stars === 1 && !path.endsWith("/*"))) return "wildcard can only do suffix matching";
  return undefined;
}

function validateNonResourceRule(rule: Obj, path: string, errs: FieldError[]): void {
  validateVerbs(strList(rule, "verbs"), path, errs);
  const urls = strList(rule, "nonResourceURLs");
  if (urls.length === 0) errs.push(fieldErrors.required(`${path}.nonResourceURLs`, "nonResourceURLs must contain at least one value"));
  else if (urls.includes("*")) wildcardAlone(urls, `${path}.nonResourceURLs`, "non-resource URLs", errs);
  else
    urls.forEach((u, i) => {
      const m = nonResourceURLError(u);
      if (m) errs.push(fieldErrors.invalid(`${path}.nonResourceURLs[${i}]`, u, m));
    });
}

const SUBJECT_FIELDS = [
  ["User", "user"],
  ["Group", "group"],
  ["ServiceAccount", "serviceAccount"],
] as const;

function validateSubject(s: Obj, path: string, errs: FieldError[]): void {
  const kind = str(s.kind);
  const own = SUBJECT_FIELDS.find(([k]) => k === kind);
  if (!own) {
    errs.push(fieldErrors.notSupported(`${path}.kind`, kind, SUBJECT_KINDS));
    return;
  }
  const [, field] = own;
  const detail = objField(s, field);
  if (!detail) errs.push(fieldErrors.required(`${path}.${field}`, `${field} is required when subject kind is '${kind}'`));
  else if (kind === "ServiceAccount") {
    const name = str(detail.name);
    if (name === "") errs.push(fieldErrors.required(`${path}.serviceAccount.name`));
    else if (name !== "*") for (const m of isDNS1123Subdomain(name)) errs.push(fieldErrors.invalid(`${path}.serviceAccount.name`, name, m));
    const ns = str(detail.namespace);
    if (ns === "") errs.push(fieldErrors.required(`${path}.serviceAccount.namespace`, "must specify namespace for service account"));
    else for (const m of isDNS1123Label(ns)) errs.push(fieldErrors.invalid(`${path}.serviceAccount.namespace`, ns, m));
  } else if (str(detail.name) === "") errs.push(fieldErrors.required(`${path}.${field}.name`));
  for (const [otherKind, other] of SUBJECT_FIELDS) {
    if (other !== field && s[other] != null) errs.push(fieldErrors.forbidden(`${path}.${other}`, `${other} is forbidden when subject kind is not '${otherKind}'`));
  }
}

function validateRules(spec: Obj, errs: FieldError[]): void {
  listField(spec, "rules").forEach((rule, i) => {
    if (!isObj(rule)) return;
    const path = `spec.rules[${i}]`;
    const subjects = listField(rule, "subjects");
    if (subjects.length === 0) errs.push(fieldErrors.required(`${path}.subjects`, "subjects must contain at least one value"));
    subjects.forEach((s, j) => isObj(s) && validateSubject(s, `${path}.subjects[${j}]`, errs));
    const resourceRules = listField(rule, "resourceRules");
    const nonResourceRules = listField(rule, "nonResourceRules");
    if (resourceRules.length === 0 && nonResourceRules.length === 0) errs.push(fieldErrors.required(path, "at least one of resourceRules and nonResourceRules has to be non-empty"));
    resourceRules.forEach((r, j) => isObj(r) && validateResourceRule(r, `${path}.resourceRules[${j}]`, errs));
    nonResourceRules.forEach((r, j) => isObj(r) && validateNonResourceRule(r, `${path}.nonResourceRules[${j}]`, errs));
  });
}

function validateConditions(o: Obj, errs: FieldError[]): void {
  const seen = new Set<string>();
  listField(objField(o, "status"), "conditions").forEach((c, i) => {
    const type = isObj(c) ? str(c.type) : "";
    if (seen.has(type)) errs.push(fieldErrors.duplicate(`status.conditions[${i}].type`, type));
    seen.add(type);
    if (type === "") errs.push(fieldErrors.required(`status.conditions[${i}].type`, "must not be empty"));
  });
}

export function validateFlowSchema(o: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const name = nameOf(o);
  const spec = objField(o, "spec") ?? {};
  const precedence = num(spec.matchingPrecedence);
  if (precedence <= 0) errs.push(fieldErrors.invalid("spec.matchingPrecedence", precedence, "must be a positive value"));
  if (precedence > MAX_MATCHING_PRECEDENCE) errs.push(fieldErrors.invalid("spec.matchingPrecedence", precedence, `must not be greater than ${MAX_MATCHING_PRECEDENCE}`));
  if (precedence === 1 && name !== FLOW_SCHEMA_EXEMPT) errs.push(fieldErrors.invalid("spec.matchingPrecedence", precedence, "only the schema named 'exempt' may have matchingPrecedence 1"));
  const method = objField(spec, "distinguisherMethod");
  if (method && !DISTINGUISHER_TYPES.includes(str(method.type))) errs.push(fieldErrors.notSupported("spec.distinguisherMethod.type", method, DISTINGUISHER_TYPES));
  const plName = str(objField(spec, "priorityLevelConfiguration")?.name);
  if (plName === "") errs.push(fieldErrors.required("spec.priorityLevelConfiguration.name", "must reference a priority level"));
  else for (const m of isDNS1123Subdomain(plName)) errs.push(fieldErrors.invalid("spec.priorityLevelConfiguration.name", plName, m));
  validateRules(spec, errs);
  const fixed = MANDATORY_FLOW_SCHEMA_SPECS[name];
  if (fixed && !sameSpec(spec, fixed)) errs.push(fieldErrors.invalid("spec", spec, `spec of '${name}' must equal the fixed value`));
  validateConditions(o, errs);
  return errs;
}

// ---- PriorityLevelConfiguration ----------------------------------------------------

/** Bits of hash needed to deal `handSize` of `deckSize` queues: ceil(log2(deckSize) × handSize). */
export function requiredEntropyBits(deckSize: number, handSize: number): number {
  return Math.ceil(Math.log2(deckSize) * handSize);
}

function validateQueuing(q: Obj, path: string, errs: FieldError[]): void {
  const queues = num(q.queues);
  const handSize = num(q.handSize);
  const limit = num(q.queueLengthLimit);
  if (limit <= 0) errs.push(fieldErrors.invalid(`${path}.queueLengthLimit`, limit, "must be positive"));
  if (queues <= 0) errs.push(fieldErrors.invalid(`${path}.queues`, queues, "must be positive"));
  else if (queues > MAX_QUEUES) errs.push(fieldErrors.invalid(`${path}.queues`, queues, `must not be greater than ${MAX_QUEUES}`));
  if (handSize <= 0) errs.push(fieldErrors.invalid(`${path}.handSize`, handSize, "must be positive"));
  else if (handSize > queues) errs.push(fieldErrors.invalid(`${path}.handSize`, handSize, `should not be greater than queues (${queues})`));
  else if (requiredEntropyBits(queues, handSize) > MAX_HASH_BITS) {
    errs.push(fieldErrors.invalid(`${path}.handSize`, handSize, `required entropy bits of deckSize ${queues} and handSize ${handSize} should not be greater than ${MAX_HASH_BITS}`));
  }
}

function validateLendable(level: Obj, path: string, errs: FieldError[]): void {
  const shares = level.nominalConcurrencyShares;
  if (typeof shares === "number" && shares < 0) errs.push(fieldErrors.invalid(`${path}.nominalConcurrencyShares`, shares, "must be a non-negative integer"));
  const lendable = level.lendablePercent;
  if (typeof lendable === "number" && (lendable < 0 || lendable > 100)) errs.push(fieldErrors.invalid(`${path}.lendablePercent`, lendable, "must be between 0 and 100, inclusive"));
}

function validateLimited(limited: Obj, errs: FieldError[]): void {
  validateLendable(limited, "spec.limited", errs);
  const borrowing = limited.borrowingLimitPercent;
  if (typeof borrowing === "number" && borrowing < 0) errs.push(fieldErrors.invalid("spec.limited.borrowingLimitPercent", borrowing, "if specified, must be a non-negative integer"));
  const response = objField(limited, "limitResponse") ?? {};
  const type = str(response.type);
  const queuing = objField(response, "queuing");
  if (type === "Reject") {
    if (queuing) errs.push(fieldErrors.forbidden("spec.limited.limitResponse.queuing", "must be nil if limited.limitResponse.type is not Limited"));
  } else if (type === "Queue") {
    if (!queuing) errs.push(fieldErrors.required("spec.limited.limitResponse.queuing", "must not be empty if limited.limitResponse.type is Limited"));
    else validateQueuing(queuing, "spec.limited.limitResponse.queuing", errs);
  } else errs.push(fieldErrors.notSupported("spec.limited.limitResponse.type", type, LIMIT_RESPONSE_TYPES));
}

export function validatePriorityLevel(o: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const name = nameOf(o);
  const spec = objField(o, "spec") ?? {};
  const type = str(spec.type);
  if ((name === PRIORITY_LEVEL_EXEMPT) !== (type === "Exempt")) errs.push(fieldErrors.invalid("spec.type", type, "type must be 'Exempt' if and only if name is 'exempt'"));
  const limited = objField(spec, "limited");
  const exempt = objField(spec, "exempt");
  if (type === "Exempt") {
    if (limited) errs.push(fieldErrors.forbidden("spec.limited", "must be nil if the type is not Limited"));
    if (exempt) validateLendable(exempt, "spec.exempt", errs);
  } else if (type === "Limited") {
    if (exempt) errs.push(fieldErrors.forbidden("spec.exempt", "must be nil if the type is Limited"));
    if (!limited) errs.push(fieldErrors.required("spec.limited", "must not be empty when type is Limited"));
    else validateLimited(limited, errs);
  } else errs.push(fieldErrors.notSupported("spec.type", type, PRIORITY_LEVEL_TYPES));
  const fixed = MANDATORY_PRIORITY_LEVEL_SPECS[name];
  if (fixed) {
    // The admin may tune `spec.exempt` of the exempt level; nothing else of a mandatory spec may change.
    const exceptExempt = name === PRIORITY_LEVEL_EXEMPT;
    const have = exceptExempt ? { ...spec, exempt: fixed.exempt } : spec;
    if (!sameSpec(have, fixed)) {
      errs.push(fieldErrors.invalid("spec", spec, exceptExempt ? `spec of '${name}' except the 'spec.exempt' field must equal the fixed value` : `spec of '${name}' must equal the fixed value`));
    }
  }
  validateConditions(o, errs);
  return errs;
}
