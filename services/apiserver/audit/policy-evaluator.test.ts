import { describe, expect, it } from "vitest";
import { getProfile } from "../../../shared/platform/index.ts";
import { auditApiVersion, policyFromObject, type AuditPolicy } from "./policy.ts";
import { evaluatePolicy, levelAtLeast, type AuditAttributes } from "./policy-evaluator.ts";

const profile = getProfile("plat");

function policy(rules: unknown[], extra: Record<string, unknown> = {}): AuditPolicy {
  return policyFromObject({ apiVersion: auditApiVersion(profile), kind: "Policy", rules, ...extra }, profile);
}

function req(over: Partial<AuditAttributes> = {}): AuditAttributes {
  return { user: { username: "alice", groups: ["dev", "system:authenticated"] }, verb: "get", isResourceRequest: true, path: "/api/v1/namespaces/ns1/pods/p1", apiGroup: "", resource: "pods", subresource: "", namespace: "ns1", name: "p1", ...over };
}

const nonResource = (path: string, verb = "get"): Partial<AuditAttributes> => ({ isResourceRequest: false, path, apiGroup: "", resource: "", namespace: "", name: "", verb });

describe("audit policy evaluation (first matching rule wins; none is None)", () => {
  it.each([
    ["no rule matches", [{ level: "Metadata", users: ["bob"] }], {}, "None"],
    ["a rule without conditions", [{ level: "Request" }], {}, "Request"],
    ["first match wins", [{ level: "None", verbs: ["get"] }, { level: "RequestResponse" }], {}, "None"],
    ["later rule when earlier does not match", [{ level: "None", verbs: ["list"] }, { level: "RequestResponse" }], {}, "RequestResponse"],
    ["users by name", [{ level: "Metadata", users: ["alice"] }], {}, "Metadata"],
    ["userGroups by any group", [{ level: "Metadata", userGroups: ["ops", "dev"] }], {}, "Metadata"],
    ["userGroups none in common", [{ level: "Metadata", userGroups: ["ops"] }], {}, "None"],
    ["namespaces", [{ level: "Metadata", namespaces: ["ns1"] }], {}, "Metadata"],
    ["namespaces other", [{ level: "Metadata", namespaces: ["ns2"] }], {}, "None"],
    ["namespace \"\" is cluster scope", [{ level: "Metadata", namespaces: [""] }], { namespace: "", resource: "nodes" }, "Metadata"],
    ["group with no resources: every resource of it", [{ level: "Metadata", resources: [{ group: "" }] }], {}, "Metadata"],
    ["group differs", [{ level: "Metadata", resources: [{ group: "apps" }] }], {}, "None"],
    ["resource by name", [{ level: "Metadata", resources: [{ group: "", resources: ["pods"] }] }], {}, "Metadata"],
    ["plain resource does not match its subresource", [{ level: "Metadata", resources: [{ group: "", resources: ["pods"] }] }], { subresource: "log" }, "None"],
    ["res/sub", [{ level: "Metadata", resources: [{ group: "", resources: ["pods/log"] }] }], { subresource: "log" }, "Metadata"],
    ["*/sub", [{ level: "Metadata", resources: [{ group: "", resources: ["*/status"] }] }], { subresource: "status" }, "Metadata"],
    ["*/sub needs a subresource", [{ level: "Metadata", resources: [{ group: "", resources: ["*/status"] }] }], {}, "None"],
    ["res/* matches subresources", [{ level: "Metadata", resources: [{ group: "", resources: ["pods/*"] }] }], { subresource: "exec" }, "Metadata"],
    ["* matches all", [{ level: "Metadata", resources: [{ group: "", resources: ["*"] }] }], { subresource: "exec" }, "Metadata"],
    ["resourceNames match", [{ level: "Metadata", resources: [{ group: "", resources: ["pods"], resourceNames: ["p1"] }] }], {}, "Metadata"],
    ["resourceNames other", [{ level: "Metadata", resources: [{ group: "", resources: ["pods"], resourceNames: ["p2"] }] }], {}, "None"],
    ["nonResourceURLs rule never matches resource requests", [{ level: "Metadata", nonResourceURLs: ["*"] }], {}, "None"],
    ["nonResourceURLs exact", [{ level: "Metadata", nonResourceURLs: ["/healthz"] }], nonResource("/healthz"), "Metadata"],
    ["nonResourceURLs prefix", [{ level: "Metadata", nonResourceURLs: ["/healthz*"] }], nonResource("/healthz/etcd"), "Metadata"],
    ["nonResourceURLs other", [{ level: "Metadata", nonResourceURLs: ["/version"] }], nonResource("/healthz"), "None"],
    ["resource rule never matches non-resource requests", [{ level: "Metadata", resources: [{ group: "" }] }], nonResource("/healthz"), "None"],
    ["verbs", [{ level: "Metadata", verbs: ["watch"] }], { verb: "watch" }, "Metadata"],
  ])("%s", (_name, rules, over, expected) => {
    expect(evaluatePolicy(policy(rules), req(over as Partial<AuditAttributes>)).level).toBe(expected);
  });

  it("merges omitStages of the policy and the rule; omitManagedFields: rule over policy", () => {
    const p = policy([{ level: "Metadata", verbs: ["get"], omitStages: ["ResponseStarted"], omitManagedFields: false }, { level: "Request" }], { omitStages: ["RequestReceived"], omitManagedFields: true });
    expect(evaluatePolicy(p, req())).toEqual({ level: "Metadata", omitStages: ["RequestReceived", "ResponseStarted"], omitManagedFields: false });
    expect(evaluatePolicy(p, req({ verb: "list" }))).toEqual({ level: "Request", omitStages: ["RequestReceived"], omitManagedFields: true });
  });

  it.each([
    ["wrong apiVersion", { apiVersion: "v1", kind: "Policy", rules: [{ level: "None" }] }, /expected apiVersion/],
    ["no rules", { rules: [] }, /no rules/],
    ["missing level", { rules: [{}] }, /rules\[0\]\.level: Required value/],
    ["bad level", { rules: [{ level: "All" }] }, /rules\[0\]\.level: Unsupported value: "All"/],
    ["bad stage", { omitStages: ["Started"], rules: [{ level: "None" }] }, /omitStages\[0\]: Unsupported value/],
    ["resources and nonResourceURLs", { rules: [{ level: "None", resources: [{ group: "" }], nonResourceURLs: ["/x"] }] }, /both regular resources and non-resource URLs/],
    ["star inside a URL", { rules: [{ level: "None", nonResourceURLs: ["/a*/b"] }] }, /only allowed at the end/],
    ["wildcard with resourceNames", { rules: [{ level: "None", resources: [{ group: "", resources: ["*"], resourceNames: ["x"] }] }] }, /wildcards are not allowed/],
  ])("rejects a policy with %s", (_name, doc, message) => {
    expect(() => policyFromObject({ apiVersion: auditApiVersion(profile), kind: "Policy", ...doc }, profile)).toThrow(message);
  });

  it.each([
    ["Metadata", "Metadata", true],
    ["Metadata", "Request", false],
    ["RequestResponse", "Request", true],
    ["None", "Metadata", false],
  ] as const)("level %s is at least %s: %s", (level, min, expected) => {
    expect(levelAtLeast(level, min)).toBe(expected);
  });
});
