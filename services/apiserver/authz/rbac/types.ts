/** The RBAC objects as the authorizer reads them (a subset of rbac/v1). */
import type { PolicyRule } from "../../../../shared/api/groups/rbac-v1.ts";

export type { PolicyRule };

export type SubjectKind = "User" | "Group" | "ServiceAccount";

export interface Subject {
  kind: SubjectKind | string;
  name: string;
  apiGroup?: string;
  namespace?: string;
}

export interface RoleRef {
  apiGroup?: string;
  kind: "Role" | "ClusterRole" | string;
  name: string;
}

export interface ObjectMetaLite {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  resourceVersion?: string;
}

export interface Role {
  metadata: ObjectMetaLite;
  rules?: PolicyRule[];
}

export interface AggregationRule {
  clusterRoleSelectors?: Array<{ matchLabels?: Record<string, string>; matchExpressions?: Array<{ key: string; operator: string; values?: string[] }> }>;
}

export interface ClusterRole extends Role {
  aggregationRule?: AggregationRule;
}

export interface RoleBinding {
  metadata: ObjectMetaLite;
  subjects?: Subject[];
  roleRef: RoleRef;
}

/** Reads a JSON object as a policy rule list, dropping malformed entries. */
export function rulesOf(obj: unknown): PolicyRule[] {
  const rules = (obj as { rules?: unknown } | undefined)?.rules;
  if (!Array.isArray(rules)) return [];
  const out: PolicyRule[] = [];
  for (const r of rules) {
    if (!r || typeof r !== "object") continue;
    const rule = r as Record<string, unknown>;
    const strs = (v: unknown): string[] | undefined => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : undefined);
    const pr: PolicyRule = { verbs: strs(rule.verbs) ?? [] };
    const apiGroups = strs(rule.apiGroups);
    const resources = strs(rule.resources);
    const resourceNames = strs(rule.resourceNames);
    const nonResourceURLs = strs(rule.nonResourceURLs);
    if (apiGroups) pr.apiGroups = apiGroups;
    if (resources) pr.resources = resources;
    if (resourceNames) pr.resourceNames = resourceNames;
    if (nonResourceURLs) pr.nonResourceURLs = nonResourceURLs;
    out.push(pr);
  }
  return out;
}
