/**
 * Rule matching of webhooks (the platform's `rules.Matcher`): operation, group,
 * version, resource with subresource (`pods`, `pods/status`, `*`, `*\/status`,
 * `pods/*`, `*\/*`) and scope (`Cluster` also matches namespaces themselves,
 * `Namespaced` never does). Pure.
 */
import type { HookRule } from "./hook.ts";

export interface RuleTarget {
  operation: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  /** "" for cluster-scoped objects. */
  namespace: string;
  /** The request is about a Namespace object (core group). */
  isNamespace: boolean;
}

const has = (list: readonly string[], v: string) => list.includes("*") || list.includes(v);

function resourceMatches(patterns: readonly string[], resource: string, subresource: string): boolean {
  for (const p of patterns) {
    if (p === "*/*") return true;
    const slash = p.indexOf("/");
    const res = slash < 0 ? p : p.slice(0, slash);
    const sub = slash < 0 ? "" : p.slice(slash + 1);
    if ((res === "*" || res === resource) && (sub === "*" || sub === subresource)) return true;
  }
  return false;
}

function scopeMatches(scope: string, t: RuleTarget): boolean {
  if (scope === "Namespaced") return !t.isNamespace && t.namespace !== "";
  if (scope === "Cluster") return t.isNamespace || t.namespace === "";
  return true;
}

export function ruleMatches(rule: HookRule, t: RuleTarget): boolean {
  return (
    has(rule.operations, t.operation) &&
    has(rule.apiGroups, t.group) &&
    has(rule.apiVersions, t.version) &&
    resourceMatches(rule.resources, t.resource, t.subresource) &&
    scopeMatches(rule.scope, t)
  );
}

export function anyRuleMatches(rules: readonly HookRule[], t: RuleTarget): boolean {
  return rules.some((r) => ruleMatches(r, t));
}
