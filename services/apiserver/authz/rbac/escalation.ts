/**
 * Escalation checks, pure: does a set of owner rules cover every permission of
 * another set? Requested rules are broken into atomic rules (one verb, one group,
 * one resource, one name, or one verb on one URL) and each must be covered by a
 * single owner rule.
 */
import { nonResourceURLMatches } from "./rules.ts";
import type { PolicyRule } from "./types.ts";

/** One rule per (verb, group, resource, name) or (verb, URL). */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        const names = rule.resourceNames ?? [];
        if (names.length === 0) out.push({ verbs: [verb], apiGroups: [group], resources: [resource] });
        else for (const name of names) out.push({ verbs: [verb], apiGroups: [group], resources: [resource], resourceNames: [name] });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) {
    for (const verb of rule.verbs) out.push({ verbs: [verb], nonResourceURLs: [url] });
  }
  return out;
}

function hasAll(owner: readonly string[], servant: readonly string[]): boolean {
  return servant.every((s) => owner.includes(s));
}

function resourceCoversAll(owner: readonly string[], servant: readonly string[]): boolean {
  if (owner.includes("*") || hasAll(owner, servant)) return true;
  return servant.every((s) => {
    if (owner.includes(s)) return true;
    const slash = s.indexOf("/");
    // `*/status` in the owner covers `pods/status`.
    return slash > 0 && owner.includes(`*${s.slice(slash)}`);
  });
}

function nonResourceURLsCoverAll(owner: readonly string[], servant: readonly string[]): boolean {
  return servant.every((s) => owner.some((o) => o === s || (o.endsWith("*") && nonResourceURLMatches(o, s))));
}

/** Whether a single owner rule covers a single (atomic or not) requested rule. */
export function ruleCovers(owner: PolicyRule, servant: PolicyRule): boolean {
  const verbs = owner.verbs.includes("*") || hasAll(owner.verbs, servant.verbs);
  if (!verbs) return false;
  const servantURLs = servant.nonResourceURLs ?? [];
  if (servantURLs.length > 0) return nonResourceURLsCoverAll(owner.nonResourceURLs ?? [], servantURLs);
  const ownerGroups = owner.apiGroups ?? [];
  const groups = ownerGroups.includes("*") || hasAll(ownerGroups, servant.apiGroups ?? []);
  if (!groups) return false;
  if (!resourceCoversAll(owner.resources ?? [], servant.resources ?? [])) return false;
  const ownerNames = owner.resourceNames ?? [];
  const servantNames = servant.resourceNames ?? [];
  // An owner limited to names cannot cover a rule for every name.
  if (ownerNames.length === 0) return true;
  return servantNames.length > 0 && hasAll(ownerNames, servantNames);
}

/** `{covered, uncovered}`: the atomic rules of `requested` that no owner rule covers. */
export function covers(ownerRules: readonly PolicyRule[], requestedRules: readonly PolicyRule[]): { covered: boolean; uncovered: PolicyRule[] } {
  const uncovered: PolicyRule[] = [];
  for (const rule of requestedRules) {
    for (const atom of breakdownRule(rule)) {
      if (!ownerRules.some((o) => ruleCovers(o, atom))) uncovered.push(atom);
    }
  }
  return { covered: uncovered.length === 0, uncovered };
}

/** Structural equality of two rules (order of list entries matters, as in the platform's semantic equality). */
export function rulesEqual(a: PolicyRule, b: PolicyRule): boolean {
  const eq = (x: string[] | undefined, y: string[] | undefined) => {
    const xs = x ?? [];
    const ys = y ?? [];
    return xs.length === ys.length && xs.every((v, i) => v === ys[i]);
  };
  return eq(a.verbs, b.verbs) && eq(a.apiGroups, b.apiGroups) && eq(a.resources, b.resources) && eq(a.resourceNames, b.resourceNames) && eq(a.nonResourceURLs, b.nonResourceURLs);
}

export function ruleListsEqual(a: readonly PolicyRule[], b: readonly PolicyRule[]): boolean {
  return a.length === b.length && a.every((r, i) => rulesEqual(r, b[i]));
}
