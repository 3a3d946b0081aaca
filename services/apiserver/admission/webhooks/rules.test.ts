/** Table tests of webhook rule matching (the platform's rules.Matcher cases). */
import { describe, expect, it } from "vitest";
import type { HookRule } from "./hook.ts";
import { ruleMatches, type RuleTarget } from "./rules.ts";

const rule = (over: Partial<HookRule> = {}): HookRule => ({ operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*"], scope: "*", ...over });
const target = (over: Partial<RuleTarget> = {}): RuleTarget => ({ operation: "CREATE", group: "apps", version: "v1", resource: "deployments", subresource: "", namespace: "ns", isNamespace: false, ...over });

describe("webhook rules", () => {
  const cases: Array<[string, HookRule, RuleTarget, boolean]> = [
    ["all wildcards match a main resource", rule(), target(), true],
    ["'*' does not match a subresource", rule(), target({ subresource: "status" }), false],
    ["'*/*' matches a subresource", rule({ resources: ["*/*"] }), target({ subresource: "scale" }), true],
    ["'*/status' matches any status", rule({ resources: ["*/status"] }), target({ subresource: "status" }), true],
    ["'*/status' does not match the main resource", rule({ resources: ["*/status"] }), target(), false],
    ["'deployments/*' matches its subresources", rule({ resources: ["deployments/*"] }), target({ subresource: "scale" }), true],
    ["'deployments/*' matches the main resource too", rule({ resources: ["deployments/*"] }), target(), true],
    ["a named resource does not match another", rule({ resources: ["pods"] }), target(), false],
    ["the operation must be listed", rule({ operations: ["UPDATE"] }), target(), false],
    ["the group must be listed", rule({ apiGroups: [""] }), target(), false],
    ["the version must be listed", rule({ apiVersions: ["v2"] }), target(), false],
    ["Namespaced matches namespaced objects", rule({ scope: "Namespaced" }), target(), true],
    ["Namespaced never matches a Namespace", rule({ scope: "Namespaced" }), target({ group: "", resource: "namespaces", namespace: "x", isNamespace: true }), false],
    ["Cluster matches a Namespace", rule({ scope: "Cluster" }), target({ group: "", resource: "namespaces", namespace: "x", isNamespace: true }), true],
    ["Cluster matches cluster-scoped objects", rule({ scope: "Cluster" }), target({ resource: "clusterroles", namespace: "" }), true],
    ["Cluster does not match namespaced objects", rule({ scope: "Cluster" }), target(), false],
  ];
  it.each(cases)("%s", (_name, r, t, want) => {
    expect(ruleMatches(r, t)).toBe(want);
  });
});
