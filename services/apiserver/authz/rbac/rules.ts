/**
 * RBAC rule matching, pure: does one PolicyRule allow a request?
 *
 * - verbs, apiGroups and resources accept `*`;
 * - a resource of a subresource request is matched as `resource/subresource`,
 *   and `*\/subresource` matches that subresource of any resource;
 * - empty resourceNames means every name; otherwise the request's name must be listed
 *   (so a name-limited rule never allows list, watch or create without a name);
 * - nonResourceURLs match exactly, or by prefix when they end with `*`.
 */
import type { Attributes } from "../types.ts";
import type { PolicyRule } from "./types.ts";

export const VERB_ALL = "*";
export const API_GROUP_ALL = "*";
export const RESOURCE_ALL = "*";
export const NON_RESOURCE_ALL = "*";

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return rule.verbs.some((v) => v === VERB_ALL || v === verb);
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return (rule.apiGroups ?? []).some((g) => g === API_GROUP_ALL || g === group);
}

export function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === RESOURCE_ALL || r === combined) return true;
    if (subresource !== "" && r === `*/${subresource}`) return true;
  }
  return false;
}

export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

export function nonResourceURLMatches(pattern: string, path: string): boolean {
  if (pattern === NON_RESOURCE_ALL || pattern === path) return true;
  return pattern.endsWith("*") && path.startsWith(pattern.slice(0, -1));
}

export function nonResourceURLsMatch(rule: PolicyRule, path: string): boolean {
  return (rule.nonResourceURLs ?? []).some((u) => nonResourceURLMatches(u, path));
}

type RequestFields = Pick<Attributes, "verb" | "isResourceRequest" | "path" | "apiGroup" | "resource" | "subresource" | "name">;

/** Whether `rule` allows the request described by `attrs`. */
export function ruleAllows(attrs: RequestFields, rule: PolicyRule): boolean {
  if (!verbMatches(rule, attrs.verb)) return false;
  if (!attrs.isResourceRequest) return nonResourceURLsMatch(rule, attrs.path);
  const combined = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  return apiGroupMatches(rule, attrs.apiGroup) && resourceMatches(rule, combined, attrs.subresource) && resourceNameMatches(rule, attrs.name);
}

export function rulesAllow(attrs: RequestFields, rules: readonly PolicyRule[]): boolean {
  return rules.some((r) => ruleAllows(attrs, r));
}

/** A compact text of a rule as the platform prints uncovered rules: `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`. */
export function ruleString(rule: PolicyRule): string {
  const q = (xs: string[]) => `[${xs.map((x) => JSON.stringify(x)).join(", ")}]`;
  const parts: string[] = [];
  if (rule.apiGroups && rule.apiGroups.length > 0) parts.push(`APIGroups:${q(rule.apiGroups)}`);
  if (rule.resources && rule.resources.length > 0) parts.push(`Resources:${q(rule.resources)}`);
  if (rule.resourceNames && rule.resourceNames.length > 0) parts.push(`ResourceNames:${q(rule.resourceNames)}`);
  if (rule.nonResourceURLs && rule.nonResourceURLs.length > 0) parts.push(`NonResourceURLs:${q(rule.nonResourceURLs)}`);
  parts.push(`Verbs:${q(rule.verbs)}`);
  return `{${parts.join(", ")}}`;
}
