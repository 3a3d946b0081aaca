import { describe, expect, it } from "vitest";
import { getProfile } from "../../../shared/platform/index.ts";
import { bootstrapObjects } from "./bootstrap.ts";
import { classify, nonResourceURLMatches, resourceRuleMatches, subjectMatches } from "./classifier.ts";
import type { FlowControlRequest, FlowSchemaSubject, ResourcePolicyRule } from "./contract.ts";
import { buildConfig } from "./views.ts";

const user = (name: string, ...groups: string[]) => ({ name, groups });

function resourceRequest(over: Partial<FlowControlRequest> = {}): FlowControlRequest {
  return { user: user("alice", "system:authenticated"), verb: "get", isResourceRequest: true, apiGroup: "", resource: "pods", subresource: "", namespace: "default", path: "/api/v1/namespaces/default/pods/x", ...over };
}

function nonResourceRequest(path: string, over: Partial<FlowControlRequest> = {}): FlowControlRequest {
  return { user: user("alice", "system:authenticated"), verb: "get", isResourceRequest: false, apiGroup: "", resource: "", subresource: "", namespace: "", path, ...over };
}

describe("subject matching", () => {
  const cases: Array<[string, FlowSchemaSubject, { name: string; groups: string[] }, boolean]> = [
    ["user by name", { kind: "User", user: { name: "alice" } }, user("alice"), true],
    ["other user", { kind: "User", user: { name: "alice" } }, user("bob"), false],
    ["any user", { kind: "User", user: { name: "*" } }, user("bob"), true],
    ["group member", { kind: "Group", group: { name: "dev" } }, user("bob", "dev"), true],
    ["not a member", { kind: "Group", group: { name: "dev" } }, user("bob", "ops"), false],
    ["any group", { kind: "Group", group: { name: "*" } }, user("bob"), true],
    ["service account by name", { kind: "ServiceAccount", serviceAccount: { namespace: "ns1", name: "sa" } }, user("system:serviceaccount:ns1:sa"), true],
    ["service account, other name", { kind: "ServiceAccount", serviceAccount: { namespace: "ns1", name: "sa" } }, user("system:serviceaccount:ns1:other"), false],
    ["service account, other namespace", { kind: "ServiceAccount", serviceAccount: { namespace: "ns1", name: "sa" } }, user("system:serviceaccount:ns2:sa"), false],
    ["any service account of the namespace", { kind: "ServiceAccount", serviceAccount: { namespace: "ns1", name: "*" } }, user("system:serviceaccount:ns1:whoever"), true],
    ["wildcard is not another namespace", { kind: "ServiceAccount", serviceAccount: { namespace: "ns1", name: "*" } }, user("system:serviceaccount:ns10:x"), false],
    ["a plain user is no service account", { kind: "ServiceAccount", serviceAccount: { namespace: "ns1", name: "*" } }, user("ns1:sa"), false],
    ["malformed service account name", { kind: "ServiceAccount", serviceAccount: { namespace: "ns1", name: "*" } }, user("system:serviceaccount:ns1:a:b"), false],
  ];
  it.each(cases)("%s", (_label, subject, u, want) => {
    expect(subjectMatches(subject, u)).toBe(want);
  });
});

describe("resource rules", () => {
  const rule = (over: Partial<ResourcePolicyRule> = {}): ResourcePolicyRule => ({ verbs: ["get"], apiGroups: [""], resources: ["pods"], namespaces: ["default"], ...over });
  const cases: Array<[string, ResourcePolicyRule, Partial<FlowControlRequest>, boolean]> = [
    ["exact", rule(), {}, true],
    ["other verb", rule(), { verb: "list" }, false],
    ["any verb", rule({ verbs: ["*"] }), { verb: "delete" }, true],
    ["other group", rule(), { apiGroup: "apps" }, false],
    ["any group", rule({ apiGroups: ["*"] }), { apiGroup: "apps" }, true],
    ["other resource", rule(), { resource: "secrets" }, false],
    ["any resource", rule({ resources: ["*"] }), { resource: "secrets" }, true],
    ["subresource needs resource/subresource", rule(), { subresource: "status" }, false],
    ["resource/subresource", rule({ resources: ["pods/status"] }), { subresource: "status" }, true],
    ["any resource covers subresources", rule({ resources: ["*"] }), { subresource: "log" }, true],
    ["other namespace", rule(), { namespace: "kube-system" }, false],
    ["any namespace", rule({ namespaces: ["*"] }), { namespace: "kube-system" }, true],
    ["no namespace without clusterScope", rule({ namespaces: ["*"] }), { namespace: "" }, false],
    ["no namespace with clusterScope", rule({ namespaces: [], clusterScope: true }), { namespace: "" }, true],
    ["clusterScope alone does not match a namespace", rule({ namespaces: [], clusterScope: true }), { namespace: "default" }, false],
  ];
  it.each(cases)("%s", (_label, r, over, want) => {
    expect(resourceRuleMatches(r, resourceRequest(over))).toBe(want);
  });
});

describe("non-resource URLs", () => {
  const cases: Array<[string, string[], boolean]> = [
    ["/healthz", ["/healthz"], true],
    ["/healthz/etcd", ["/healthz"], false],
    ["/healthz/etcd", ["/healthz/*"], true],
    ["/healthz", ["/healthz/*"], false],
    ["/metrics", ["*"], true],
    ["/version", ["/healthz", "/version"], true],
    ["/apis", ["/api/*"], false],
  ];
  it.each(cases)("%s against %j", (path, urls, want) => {
    expect(nonResourceURLMatches(path, urls)).toBe(want);
  });
});

describe("classification over the bootstrap configuration", () => {
  const profile = getProfile("kubernetes");
  const objs = bootstrapObjects(profile).map((b, i) => ({ kind: b.kind, metadata: { name: b.name, uid: `uid-${i}` }, spec: b.spec }));
  const config = buildConfig(
    objs.filter((o) => o.kind === "FlowSchema"),
    objs.filter((o) => o.kind === "PriorityLevelConfiguration"),
  );
  const cases: Array<[string, FlowControlRequest, string, string, string]> = [
    ["system:masters is exempt", resourceRequest({ user: user("admin", "system:masters", "system:authenticated") }), "exempt", "exempt", ""],
    ["probes are exempt", nonResourceRequest("/readyz"), "probes", "exempt", ""],
    ["a probe's subpath is not", nonResourceRequest("/readyz/etcd"), "global-default", "global-default", "alice"],
    ["a kubelet's node status", resourceRequest({ user: user("system:node:n1", "system:nodes", "system:authenticated"), verb: "patch", resource: "nodes", subresource: "status", namespace: "" }), "system-node-high", "node-high", "system:node:n1"],
    ["a kubelet's other requests", resourceRequest({ user: user("system:node:n1", "system:nodes", "system:authenticated") }), "system-nodes", "system", "system:node:n1"],
    [
      "controller manager leader election",
      resourceRequest({ user: user("system:kube-controller-manager", "system:authenticated"), verb: "update", apiGroup: profile.group("coordination"), resource: "leases", namespace: "kube-system" }),
      "system-leader-election",
      "leader-election",
      "system:kube-controller-manager",
    ],
    ["controller manager work, by namespace", resourceRequest({ user: user("system:kube-controller-manager", "system:authenticated"), verb: "list", namespace: "team-a" }), "kube-controller-manager", "workload-high", "team-a"],
    ["a kube-system service account", resourceRequest({ user: user("system:serviceaccount:kube-system:deployment-controller", "system:serviceaccounts"), verb: "list", namespace: "" }), "kube-system-service-accounts", "workload-high", ""],
    ["other service accounts", resourceRequest({ user: user("system:serviceaccount:team-a:builder", "system:serviceaccounts", "system:authenticated") }), "service-accounts", "workload-low", "system:serviceaccount:team-a:builder"],
    ["anyone else", resourceRequest(), "global-default", "global-default", "alice"],
  ];
  it.each(cases)("%s", (_label, req, schema, level, distinguisher) => {
    const c = classify(config, req);
    expect([c.flowSchema.name, c.priorityLevel.name, c.flowDistinguisher]).toEqual([schema, level, distinguisher]);
  });

  it("falls to catch-all when global-default is gone, and skips schemas whose level is missing", () => {
    const withoutDefault = buildConfig(
      objs.filter((o) => o.kind === "FlowSchema"),
      objs.filter((o) => o.kind === "PriorityLevelConfiguration" && o.metadata.name !== "global-default"),
    );
    const c = classify(withoutDefault, resourceRequest());
    expect([c.flowSchema.name, c.priorityLevel.name, c.flowDistinguisher]).toEqual(["catch-all", "catch-all", "alice"]);
    expect(withoutDefault.flowSchemas.map((f) => f.name)).not.toContain("global-default");
  });

  it("orders schemas by precedence, then name, and keeps the mandatory ones even when not stored", () => {
    const only = buildConfig([{ metadata: { name: "b", uid: "1" }, spec: { priorityLevelConfiguration: { name: "catch-all" }, matchingPrecedence: 500, rules: [] } }, { metadata: { name: "a", uid: "2" }, spec: { priorityLevelConfiguration: { name: "catch-all" }, rules: [] } }, { metadata: { name: "c", uid: "3" }, spec: { priorityLevelConfiguration: { name: "catch-all" }, matchingPrecedence: 500, rules: [] } }], []);
    expect(only.flowSchemas.map((f) => `${f.name}:${f.matchingPrecedence}`)).toEqual(["exempt:1", "b:500", "c:500", "a:1000", "catch-all:10000"]);
    expect(only.priorityLevels.map((p) => p.name)).toEqual(["catch-all", "exempt"]);
  });
});
