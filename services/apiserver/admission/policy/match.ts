/**
 * matchConstraints of a policy and matchResources of a binding: resourceRules
 * (with resourceNames), excludeResourceRules (an excluded request never
 * matches), namespaceSelector and objectSelector. Rule and selector matching
 * are the webhooks' (../webhooks/rules.ts, ../webhooks/matching.ts);
 * `matchResources` throws MatchError when the namespace cannot be read.
 */
import { labelSelectorFromObject, ParsedLabelSelector } from "../../../../shared/api/label-selector.ts";
import type { LabelSelector } from "../../../../shared/api/selector-types.ts";
import type { PlatformProfile } from "../../../../shared/platform/index.ts";
import { isObject, type JsonObject } from "../../storage/object.ts";
import type { Attributes } from "../interfaces.ts";
import type { HookRule } from "../webhooks/hook.ts";
import { matchSelectors, type MatchDeps } from "../webhooks/matching.ts";
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
  return { rules: rules(m.resourceRules), exclude: rules(m.excludeResourceRules), namespaceSelector: selector(m.namespaceSelector), objectSelector: selector(m.objectSelector) };
}

function target(profile: PlatformProfile, a: Attributes): RuleTarget {
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

/** Whether the request is in scope; `requireRules` false lets a binding without resourceRules match every resource. */
export async function matchResources(m: CompiledMatch, a: Attributes, deps: MatchDeps, requireRules: boolean): Promise<boolean> {
  const t = target(deps.profile, a);
  if ((requireRules || m.rules.length > 0) && !ruleHits(m.rules, t, a.name)) return false;
  if (ruleHits(m.exclude, t, a.name)) return false;
  return matchSelectors(m, a, deps);
}
