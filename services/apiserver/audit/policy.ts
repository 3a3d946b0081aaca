/**
 * The audit Policy (audit.<profile domain>/v1, kind Policy) as `--audit-policy-file`
 * gives it: YAML or JSON, checked as the platform checks it. A bad file is a start-up
 * error naming the field. Evaluation is in policy-evaluator.ts.
 */
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import type { PlatformProfile } from "../../../shared/platform/index.ts";

export type AuditLevel = "None" | "Metadata" | "Request" | "RequestResponse";
export type AuditStage = "RequestReceived" | "ResponseStarted" | "ResponseComplete" | "Panic";

export const AUDIT_LEVELS: readonly AuditLevel[] = ["None", "Metadata", "Request", "RequestResponse"];
export const AUDIT_STAGES: readonly AuditStage[] = ["RequestReceived", "ResponseStarted", "ResponseComplete", "Panic"];

export interface GroupResources {
  /** "" is the core group. */
  group: string;
  /** `pods`, `pods/log`, `*`, `*\/status`, `pods\/*`; empty: every resource of the group. */
  resources: string[];
  resourceNames: string[];
}

export interface PolicyRule {
  level: AuditLevel;
  users: string[];
  userGroups: string[];
  verbs: string[];
  resources: GroupResources[];
  namespaces: string[];
  nonResourceURLs: string[];
  omitStages: AuditStage[];
  omitManagedFields?: boolean;
}

export interface AuditPolicy {
  rules: PolicyRule[];
  omitStages: AuditStage[];
  omitManagedFields: boolean;
}

/** The audit API version of a profile: `audit.<group domain>/v1`. */
export function auditApiVersion(profile: PlatformProfile): string {
  return `audit.${profile.groupDomain}/v1`;
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function strings(v: unknown, path: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((s) => typeof s !== "string")) throw new Error(`${path}: must be a list of strings`);
  return v as string[];
}

function stages(v: unknown, path: string): AuditStage[] {
  const list = strings(v, path);
  list.forEach((s, i) => {
    if (!AUDIT_STAGES.includes(s as AuditStage)) throw new Error(`${path}[${i}]: Unsupported value: ${JSON.stringify(s)}: supported values: ${AUDIT_STAGES.map((x) => JSON.stringify(x)).join(", ")}`);
  });
  return list as AuditStage[];
}

function level(v: unknown, path: string): AuditLevel {
  if (v === undefined || v === "") throw new Error(`${path}: Required value`);
  if (!AUDIT_LEVELS.includes(v as AuditLevel)) throw new Error(`${path}: Unsupported value: ${JSON.stringify(v)}: supported values: ${AUDIT_LEVELS.map((x) => JSON.stringify(x)).join(", ")}`);
  return v as AuditLevel;
}

function groupResources(v: unknown, path: string): GroupResources[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new Error(`${path}: must be a list`);
  return v.map((g, i) => {
    const p = `${path}[${i}]`;
    if (!isObj(g)) throw new Error(`${p}: must be an object`);
    const group = g.group ?? "";
    if (typeof group !== "string") throw new Error(`${p}.group: must be a string`);
    const resources = strings(g.resources, `${p}.resources`);
    const resourceNames = strings(g.resourceNames, `${p}.resourceNames`);
    resources.forEach((r, j) => {
      if (r === "") throw new Error(`${p}.resources[${j}]: Invalid value: "": non-empty resource required`);
      if (resourceNames.length > 0 && r.includes("*")) throw new Error(`${p}.resources[${j}]: Invalid value: ${JSON.stringify(r)}: wildcards are not allowed with resourceNames`);
    });
    return { group, resources, resourceNames };
  });
}

function nonResourceURLs(v: unknown, path: string): string[] {
  const urls = strings(v, path);
  urls.forEach((u, i) => {
    if (u === "*") return;
    if (!u.startsWith("/")) throw new Error(`${path}[${i}]: Invalid value: ${JSON.stringify(u)}: non-resource URLs must start with '/' or be '*'`);
    const star = u.indexOf("*");
    if (star >= 0 && star !== u.length - 1) throw new Error(`${path}[${i}]: Invalid value: ${JSON.stringify(u)}: '*' is only allowed at the end`);
  });
  return urls;
}

function rule(v: unknown, path: string): PolicyRule {
  if (!isObj(v)) throw new Error(`${path}: must be an object`);
  const r: PolicyRule = {
    level: level(v.level, `${path}.level`),
    users: strings(v.users, `${path}.users`),
    userGroups: strings(v.userGroups, `${path}.userGroups`),
    verbs: strings(v.verbs, `${path}.verbs`),
    resources: groupResources(v.resources, `${path}.resources`),
    namespaces: strings(v.namespaces, `${path}.namespaces`),
    nonResourceURLs: nonResourceURLs(v.nonResourceURLs, `${path}.nonResourceURLs`),
    omitStages: stages(v.omitStages, `${path}.omitStages`),
  };
  if (r.nonResourceURLs.length > 0 && (r.resources.length > 0 || r.namespaces.length > 0)) {
    throw new Error(`${path}.nonResourceURLs: Invalid value: ${JSON.stringify(r.nonResourceURLs)}: rules cannot apply to both regular resources and non-resource URLs`);
  }
  if (v.omitManagedFields !== undefined) {
    if (typeof v.omitManagedFields !== "boolean") throw new Error(`${path}.omitManagedFields: must be a boolean`);
    r.omitManagedFields = v.omitManagedFields;
  }
  return r;
}

/** Checks a decoded Policy document; throws an Error naming the first bad field. */
export function policyFromObject(doc: unknown, profile: PlatformProfile): AuditPolicy {
  if (!isObj(doc)) throw new Error("audit policy: not an object");
  const apiVersion = auditApiVersion(profile);
  if (doc.apiVersion !== apiVersion || doc.kind !== "Policy") {
    throw new Error(`audit policy: expected apiVersion ${apiVersion} and kind Policy, got ${JSON.stringify(doc.apiVersion)} ${JSON.stringify(doc.kind)}`);
  }
  const rules = doc.rules ?? [];
  if (!Array.isArray(rules)) throw new Error("rules: must be a list");
  const policy: AuditPolicy = {
    rules: rules.map((r, i) => rule(r, `rules[${i}]`)),
    omitStages: stages(doc.omitStages, "omitStages"),
    omitManagedFields: doc.omitManagedFields === true,
  };
  if (policy.rules.length === 0) throw new Error("audit policy: it has no rules");
  return policy;
}

/** Reads `--audit-policy-file`. */
export function loadPolicyFile(path: string, profile: PlatformProfile): AuditPolicy {
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(path, "utf8"));
  } catch (err) {
    throw new Error(`failed to read audit policy file ${path}: ${(err as Error).message}`, { cause: err });
  }
  try {
    return policyFromObject(doc, profile);
  } catch (err) {
    throw new Error(`invalid audit policy file ${path}: ${(err as Error).message}`, { cause: err });
  }
}
