/**
 * Pure evaluation of an audit Policy for one request: the first rule that matches
 * decides the level; no match is level None. Stages to omit are the policy's plus the
 * rule's; omitManagedFields is the rule's when set, else the policy's. Matching follows
 * the platform's policy checker: users by name, userGroups by any group, verbs, then
 * for resource requests namespaces and group resources (`*`, `res/sub`, `*\/sub`,
 * `res/*`, resourceNames), for non-resource requests nonResourceURLs (`*` or a trailing `*`).
 */
import type { AuditLevel, AuditPolicy, AuditStage, PolicyRule } from "./policy.ts";

export interface AuditAttributes {
  user: { username: string; groups: readonly string[] };
  verb: string;
  isResourceRequest: boolean;
  /** The request path (non-resource requests). */
  path: string;
  apiGroup: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

export interface RequestAuditConfig {
  level: AuditLevel;
  omitStages: readonly AuditStage[];
  omitManagedFields: boolean;
}

export const NO_AUDIT: RequestAuditConfig = Object.freeze({ level: "None", omitStages: [], omitManagedFields: false });

export function evaluatePolicy(policy: AuditPolicy, attrs: AuditAttributes): RequestAuditConfig {
  for (const rule of policy.rules) {
    if (!ruleMatches(rule, attrs)) continue;
    return {
      level: rule.level,
      omitStages: [...new Set([...policy.omitStages, ...rule.omitStages])],
      omitManagedFields: rule.omitManagedFields ?? policy.omitManagedFields,
    };
  }
  return { ...NO_AUDIT, omitStages: policy.omitStages };
}

export function ruleMatches(rule: PolicyRule, attrs: AuditAttributes): boolean {
  if (rule.users.length > 0 && !rule.users.includes(attrs.user.username)) return false;
  if (rule.userGroups.length > 0 && !attrs.user.groups.some((g) => rule.userGroups.includes(g))) return false;
  if (rule.verbs.length > 0 && !rule.verbs.includes(attrs.verb)) return false;
  if (attrs.isResourceRequest) {
    if (rule.nonResourceURLs.length > 0) return false;
    if (rule.namespaces.length > 0 && !rule.namespaces.includes(attrs.namespace)) return false;
    if (rule.resources.length > 0 && !resourceMatches(rule, attrs)) return false;
    return true;
  }
  if (rule.namespaces.length > 0 || rule.resources.length > 0) return false;
  return rule.nonResourceURLs.length === 0 || rule.nonResourceURLs.some((u) => nonResourceMatches(u, attrs.path));
}

function resourceMatches(rule: PolicyRule, attrs: AuditAttributes): boolean {
  const { apiGroup, resource, subresource, name } = attrs;
  const combined = subresource ? `${resource}/${subresource}` : resource;
  for (const gr of rule.resources) {
    if (gr.group !== apiGroup) continue;
    if (gr.resources.length === 0) return true;
    if (gr.resourceNames.length > 0 && !gr.resourceNames.includes(name)) continue;
    for (const res of gr.resources) {
      if (res === combined || res === "*") return true;
      if (subresource && res.startsWith("*/") && res.slice(2) === subresource) return true;
      if (res.endsWith("/*") && res.slice(0, -2) === resource) return true;
    }
  }
  return false;
}

function nonResourceMatches(pattern: string, path: string): boolean {
  if (pattern === "*" || pattern === path) return true;
  return pattern.endsWith("*") && path.startsWith(pattern.slice(0, -1));
}

const ORDER: Readonly<Record<AuditLevel, number>> = { None: 0, Metadata: 1, Request: 2, RequestResponse: 3 };

/** `level` is at least `min` (Request includes Metadata, and so on). */
export function levelAtLeast(level: AuditLevel, min: AuditLevel): boolean {
  return ORDER[level] >= ORDER[min];
}
