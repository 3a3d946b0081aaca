/**
 * matchConstraints of a policy and matchResources of a binding: resourceRules
 * (with resourceNames), excludeResourceRules (an excluded request never
 * matches), namespaceSelector and objectSelector. Rule and selector matching
 * are the webhooks' (../webhooks/rules.ts, ../webhooks/matching.ts). Under
 * matchPolicy Equivalent (the default) a rule for another served version of the
 * same group and resource matches too, and the policy then sees the object in
 * that version. Rules are matched here (pure); the selectors by dispatch.ts.
 */
import { labelSelectorFromObject, ParsedLabelSelector } from "../../../../shared/api/label-selector.ts";
import type { LabelSelector } from "../../../../shared/api/selector-types.ts";
import type { PlatformProfile } from "../../../../shared/platform/index.ts";
import { isObject, type JsonObject } from "../../storage/object.ts";
import type { Attributes } from "../interfaces.ts";
import type { HookRule } from "../webhooks/hook.ts";
import type { Equivalence } from "../webhooks/matching.ts";
import { ruleMatches, type RuleTarget } from "../webhooks/rules.ts";

export interface PolicyRule extends HookRule {
  /** Names the rule is limited to; empty: every name. */
  resourceNames: string[];
}

export interface CompiledMatch {
  rules: PolicyRule[];
  exclude: PolicyRule[];
  namespaceSelector: ParsedLabelSelector;
  objectSelector: ParsedLabelSelector;
  matchPolicy: "Exact" | "Equivalent";
}

/** A match: the version the policy gets the object in (undefined: the request's). */
export interface Matched {
  version?: string;
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : [];
}

function selector(v: unknown): ParsedLabelSelector {
  try {
    return labelSelectorFromObject(isObject(v) ? (v as LabelSelector) : ({} as LabelSelector));
  } catch {
    // Stored selectors are validated; an unparsable one matches nothing.
    return ParsedLabelSelector.nothing();
  }
}

function rules(v: unknown): PolicyRule[] {
  return (Array.isArray(v) ? v : []).filter(isObject).map((r) => ({
    operations: strings(r.operations),
    apiGroups: strings(r.apiGroups),
    apiVersions: strings(r.apiVersions),
    resources: strings(r.resources),
    resourceNames: strings(r.resourceNames),
    scope: typeof r.scope === "string" ? r.scope : "*",
  }));
}

export function compiledMatch(m: JsonObject): CompiledMatch {
  return { rules: rules(m.resourceRules), exclude: rules(m.excludeResourceRules), namespaceSelector: selector(m.namespaceSelector), objectSelector: selector(m.objectSelector), matchPolicy: m.matchPolicy === "Exact" ? "Exact" : "Equivalent" };
}

/** The rule target of a request (what rules are matched against). */
export function ruleTarget(profile: PlatformProfile, a: Attributes): RuleTarget {
  return {
    operation: a.operation,
    group: a.resource.group,
    version: a.resource.version,
    resource: a.resource.resource,
    subresource: a.subresource,
    namespace: a.namespace,
    isNamespace: a.resource.group === profile.group("core") && a.resource.resource === "namespaces",
  };
}

function ruleHits(list: readonly PolicyRule[], t: RuleTarget, name: string): boolean {
  return list.some((r) => ruleMatches(r, t) && (r.resourceNames.length === 0 || r.resourceNames.includes(name)));
}

/** Whether any rule is limited to names (its outcome then depends on the request's name). */
export function namesMatter(m: CompiledMatch): boolean {
  return m.rules.some((r) => r.resourceNames.length > 0) || m.exclude.some((r) => r.resourceNames.length > 0);
}

/**
 * resourceRules and excludeResourceRules only (no lookups); `requireRules` false
 * lets a binding without resourceRules match every resource.
 */
export function rulesMatch(m: CompiledMatch, t: RuleTarget, name: string, equivalence: Equivalence | undefined, requireRules: boolean): Matched | undefined {
  let matched: Matched | undefined = {};
  if (requireRules || m.rules.length > 0) {
    matched = ruleHits(m.rules, t, name) ? {} : undefined;
    if (!matched && m.matchPolicy === "Equivalent" && equivalence) {
      const version = equivalence.versions(t.group, t.resource).find((v) => v !== t.version && ruleHits(m.rules, { ...t, version: v }, name));
      if (version) matched = { version };
    }
  }
  if (!matched || ruleHits(m.exclude, t, name)) return undefined;
  return matched;
}
