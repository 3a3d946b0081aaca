/**
 * Which bindings a request reaches, for the validating and the mutating policy
 * plugins. A binding is a candidate when its policy exists and the rules of
 * both (the policy's matchConstraints, then the binding's matchResources, each
 * with its exclusions) admit the request; the candidates of one request shape
 * (operation, group, version, resource, subresource, scope) are computed once
 * and kept until a policy or binding changes, so a request costs one map
 * lookup instead of a scan of every rule (rules limited to resourceNames are
 * matched per request). Selectors come next, per request: the object selectors
 * first, then the namespace selectors with the request's namespace, read at
 * most once (watch cache, else store). Candidates keep the bindings' name order.
 */
import type { PlatformProfile } from "../../../../shared/platform/index.ts";
import type { JsonObject } from "../../storage/object.ts";
import type { Attributes } from "../interfaces.ts";
import { namespaceNeeded, namespaceSelectorMatches, objectSelectorMatches, readNamespace, type Equivalence, type MatchDeps } from "../webhooks/matching.ts";
import type { RuleTarget } from "../webhooks/rules.ts";
import { namesMatter, ruleTarget, rulesMatch, type CompiledMatch } from "./match.ts";
import type { BindingBase, PolicySources } from "./sources.ts";

/** A binding whose rules admit the request; `version`: the one the policy sees the object in (undefined: the request's). */
export interface Candidate<P, B> {
  policy: P;
  binding: B;
  version?: string;
}

interface Entry<P, B> extends Candidate<P, B> {
  /** Rules limited to names: matched again with each request's name. */
  byName: boolean;
}

/** Request shapes kept at most; the cache starts over beyond. */
const MAX_SHAPES = 2048;

function shapeKey(t: RuleTarget): string {
  return `${t.operation}\u0000${t.group}\u0000${t.version}\u0000${t.resource}\u0000${t.subresource}\u0000${t.namespace === "" ? "c" : "n"}${t.isNamespace ? "N" : ""}`;
}

export class PolicyDispatch<P extends { match: CompiledMatch }, B extends BindingBase> {
  private readonly shapes = new Map<string, Array<Entry<P, B>>>();
  private bindingsSeen: readonly B[] | undefined;
  private policiesSeen: ReadonlyMap<string, P> | undefined;

  constructor(
    private readonly sources: PolicySources<P, B>,
    private readonly profile: PlatformProfile,
    private readonly equivalence: Equivalence | undefined,
  ) {}

  /** The bindings whose rules admit the request (selectors not yet applied), in name order. */
  byRules(a: Attributes): ReadonlyArray<Candidate<P, B>> {
    const bindings = this.sources.bindings();
    const policies = this.sources.policies();
    if (bindings !== this.bindingsSeen || policies !== this.policiesSeen) {
      this.shapes.clear();
      this.bindingsSeen = bindings;
      this.policiesSeen = policies;
    }
    const t = ruleTarget(this.profile, a);
    const key = shapeKey(t);
    let entries = this.shapes.get(key);
    if (!entries) {
      entries = this.entries(bindings, policies, t);
      if (this.shapes.size >= MAX_SHAPES) this.shapes.clear();
      this.shapes.set(key, entries);
    }
    if (!entries.some((e) => e.byName)) return entries;
    const out: Array<Candidate<P, B>> = [];
    for (const e of entries) {
      if (!e.byName) out.push(e);
      else {
        const matched = this.match(e.policy, e.binding, t, a.name);
        if (matched) out.push({ policy: e.policy, binding: e.binding, version: matched.version });
      }
    }
    return out;
  }

  private match(policy: P, b: B, t: RuleTarget, name: string): { version?: string } | undefined {
    const matched = rulesMatch(policy.match, t, name, this.equivalence, true);
    if (!matched) return undefined;
    if (b.match && !rulesMatch(b.match, t, name, this.equivalence, false)) return undefined;
    return matched;
  }

  private entries(bindings: readonly B[], policies: ReadonlyMap<string, P>, t: RuleTarget): Array<Entry<P, B>> {
    const out: Array<Entry<P, B>> = [];
    for (const binding of bindings) {
      const policy = policies.get(binding.policyName);
      if (!policy) continue;
      if (namesMatter(policy.match) || (binding.match && namesMatter(binding.match))) {
        out.push({ policy, binding, byName: true });
        continue;
      }
      const matched = this.match(policy, binding, t, "");
      if (matched) out.push({ policy, binding, version: matched.version, byName: false });
    }
    return out;
  }
}

/**
 * The selectors of a candidate's policy and binding: a boolean when no
 * namespace is needed, else a promise (the namespace is read through
 * `deps.requestNamespace`, once per request). A namespace that cannot be read
 * rejects with a MatchError (the failure policy decides).
 */
export function selectorsMatch(c: Candidate<{ match: CompiledMatch }, BindingBase>, a: Attributes, deps: MatchDeps): boolean | Promise<boolean> {
  const pm = c.policy.match;
  const bm = c.binding.match;
  if (!objectSelectorMatches(pm, a) || (bm && !objectSelectorMatches(bm, a))) return false;
  const profile = deps.profile;
  if (!namespaceNeeded(pm, a, profile) && !(bm && namespaceNeeded(bm, a, profile))) return namespacesMatch(pm, bm, a, profile, undefined);
  return readNamespace(a, deps).then((ns) => namespacesMatch(pm, bm, a, profile, ns));
}

function namespacesMatch(pm: CompiledMatch, bm: CompiledMatch | undefined, a: Attributes, profile: PlatformProfile, ns: JsonObject | undefined): boolean {
  return namespaceSelectorMatches(pm, a, profile, ns) && (!bm || namespaceSelectorMatches(bm, a, profile, ns));
}
