/**
 * matchConstraints of a policy and matchResources of a binding: resourceRules
 * (with resourceNames), excludeResourceRules (an excluded request never
 * matches), namespaceSelector and objectSelector. Rule and selector matching
 * are the webhooks' (../webhooks/rules.ts, ../webhooks/matching.ts). Under
 * matchPolicy Equivalent (the default) a rule for another served version of the
 * same group and resource matches too, and the policy then sees the object in
 * that version. `matchResources` throws MatchError when the namespace cannot be read.
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
export async function matchResources(m: CompiledMatch, a: Attributes, deps: MatchDeps, requireRules: boolean): Promise<Matched | undefined> {
  const t = target(deps.profile, a);
  let matched: Matched | undefined = {};
  if (requireRules || m.rules.length > 0) {
    matched = ruleHits(m.rules, t, a.name) ? {} : undefined;
    if (!matched && m.matchPolicy === "Equivalent" && deps.equivalence) {
      const version = deps.equivalence.versions(t.group, t.resource).find((v) => v !== t.version && ruleHits(m.rules, { ...t, version: v }, a.name));
      if (version) matched = { version };
    }
  }
  if (!matched) return undefined;
  if (ruleHits(m.exclude, t, a.name)) return undefined;
  return (await matchSelectors(m, a, deps)) ? matched : undefined;
}
