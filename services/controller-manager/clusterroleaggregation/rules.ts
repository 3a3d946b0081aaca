/**
 * The pure core of ClusterRole aggregation: the rules a ClusterRole with an
 * `aggregationRule` should carry, given every ClusterRole. As the platform's controller:
 * every ClusterRole (other than the aggregated one itself) whose labels match at least
 * one of its `clusterRoleSelectors` contributes, contributors in name order, each rule
 * once (a rule equal to one already taken is dropped). An invalid selector is an error
 * (the role is retried, not emptied). No I/O.
 */
import { labelSelectorFromObject, type ParsedLabelSelector } from "../../../shared/api/selectors.ts";
import type { PolicyRule } from "../../../shared/api/groups/rbac-v1.ts";
import type { ApiObject } from "../../../shared/client/object-client.ts";

export type { PolicyRule };

const LIST_FIELDS = ["verbs", "apiGroups", "resources", "resourceNames", "nonResourceURLs"] as const;

export function hasAggregationRule(role: ApiObject): boolean {
  return role.aggregationRule !== undefined && role.aggregationRule !== null;
}

/** The rules of a stored ClusterRole, in the canonical field form (unset and empty lists are equal). */
export function rulesOf(role: ApiObject): PolicyRule[] {
  const raw = Array.isArray(role.rules) ? role.rules : [];
  return raw.filter((r): r is Record<string, unknown> => r !== null && typeof r === "object").map(canonicalRule);
}

function canonicalRule(rule: Record<string, unknown>): PolicyRule {
  const out: PolicyRule = { verbs: [] };
  for (const field of LIST_FIELDS) {
    const value = rule[field];
    const strings = Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
    if (field === "verbs") out.verbs = strings;
    else if (strings.length > 0) out[field] = strings;
  }
  return out;
}

export function rulesEqual(a: PolicyRule, b: PolicyRule): boolean {
  return LIST_FIELDS.every((f) => {
    const x = a[f] ?? [];
    const y = b[f] ?? [];
    return x.length === y.length && x.every((v, i) => v === y[i]);
  });
}

export function ruleListsEqual(a: readonly PolicyRule[], b: readonly PolicyRule[]): boolean {
  return a.length === b.length && a.every((r, i) => rulesEqual(r, b[i]));
}

function selectorsOf(role: ApiObject): ParsedLabelSelector[] {
  const rule = role.aggregationRule as { clusterRoleSelectors?: unknown[] } | null | undefined;
  return (rule?.clusterRoleSelectors ?? []).map((s) => labelSelectorFromObject(s as Parameters<typeof labelSelectorFromObject>[0]));
}

/** The rules `role` should carry; throws when one of its selectors is invalid. */
export function aggregatedRules(role: ApiObject, all: Iterable<ApiObject>): PolicyRule[] {
  const selectors = selectorsOf(role);
  const self = role.metadata.name ?? "";
  const contributors = [...all]
    .filter((o) => (o.metadata.name ?? "") !== self && selectors.some((s) => s.matches(o.metadata.labels)))
    .sort((a, b) => ((a.metadata.name ?? "") < (b.metadata.name ?? "") ? -1 : 1));
  const rules: PolicyRule[] = [];
  for (const o of contributors) for (const r of rulesOf(o)) if (!rules.some((x) => rulesEqual(x, r))) rules.push(r);
  return rules;
}
