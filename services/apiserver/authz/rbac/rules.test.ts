import { describe, expect, it } from "vitest";
import type { Attributes } from "../types.ts";
import { nonResourceURLMatches, ruleAllows, ruleString } from "./rules.ts";
import type { PolicyRule } from "./types.ts";

const user = { username: "u", groups: [] };
function res(verb: string, group: string, resource: string, subresource = "", name = ""): Attributes {
  return { user, verb, isResourceRequest: true, path: "", namespace: "ns", apiGroup: group, apiVersion: "v1", resource, subresource, name };
}
function url(verb: string, path: string): Attributes {
  return { user, verb, isResourceRequest: false, path, namespace: "", apiGroup: "", apiVersion: "", resource: "", subresource: "", name: "" };
}

const cases: Array<[string, PolicyRule, Attributes, boolean]> = [
  ["exact match", { verbs: ["get"], apiGroups: [""], resources: ["pods"] }, res("get", "", "pods"), true],
  ["other verb", { verbs: ["get"], apiGroups: [""], resources: ["pods"] }, res("list", "", "pods"), false],
  ["verb wildcard", { verbs: ["*"], apiGroups: [""], resources: ["pods"] }, res("deletecollection", "", "pods"), true],
  ["other group", { verbs: ["get"], apiGroups: [""], resources: ["pods"] }, res("get", "apps", "pods"), false],
  ["group wildcard", { verbs: ["get"], apiGroups: ["*"], resources: ["deployments"] }, res("get", "apps", "deployments"), true],
  ["no groups matches nothing", { verbs: ["get"], resources: ["pods"] }, res("get", "", "pods"), false],
  ["resource wildcard", { verbs: ["get"], apiGroups: [""], resources: ["*"] }, res("get", "", "secrets"), true],
  ["resource wildcard covers subresources", { verbs: ["get"], apiGroups: [""], resources: ["*"] }, res("get", "", "pods", "log"), true],
  ["parent does not cover subresource", { verbs: ["get"], apiGroups: [""], resources: ["pods"] }, res("get", "", "pods", "log"), false],
  ["resource/subresource", { verbs: ["get"], apiGroups: [""], resources: ["pods/log"] }, res("get", "", "pods", "log"), true],
  ["subresource rule not parent", { verbs: ["get"], apiGroups: [""], resources: ["pods/log"] }, res("get", "", "pods"), false],
  ["*/subresource", { verbs: ["update"], apiGroups: ["*"], resources: ["*/scale"] }, res("update", "apps", "deployments", "scale"), true],
  ["*/subresource other sub", { verbs: ["update"], apiGroups: ["*"], resources: ["*/scale"] }, res("update", "apps", "deployments", "status"), false],
  ["resourceNames match", { verbs: ["get"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["a"] }, res("get", "", "configmaps", "", "a"), true],
  ["resourceNames other", { verbs: ["get"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["a"] }, res("get", "", "configmaps", "", "b"), false],
  ["resourceNames no name (list)", { verbs: ["list"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["a"] }, res("list", "", "configmaps"), false],
  ["empty resourceNames any", { verbs: ["get"], apiGroups: [""], resources: ["configmaps"], resourceNames: [] }, res("get", "", "configmaps", "", "z"), true],
  ["resource rule not for URL", { verbs: ["get"], apiGroups: ["*"], resources: ["*"] }, url("get", "/healthz"), false],
  ["url exact", { verbs: ["get"], nonResourceURLs: ["/healthz"] }, url("get", "/healthz"), true],
  ["url exact no prefix", { verbs: ["get"], nonResourceURLs: ["/healthz"] }, url("get", "/healthz/etcd"), false],
  ["url star suffix", { verbs: ["get"], nonResourceURLs: ["/healthz/*"] }, url("get", "/healthz/etcd"), true],
  ["url star suffix not parent", { verbs: ["get"], nonResourceURLs: ["/healthz/*"] }, url("get", "/healthz"), false],
  ["url all", { verbs: ["*"], nonResourceURLs: ["*"] }, url("post", "/anything"), true],
  ["url verb", { verbs: ["get"], nonResourceURLs: ["*"] }, url("post", "/x"), false],
  ["url rule not for resources", { verbs: ["*"], nonResourceURLs: ["*"] }, res("get", "", "pods"), false],
];

describe("RBAC rule matching", () => {
  it.each(cases)("%s", (_name, rule, attrs, want) => {
    expect(ruleAllows(attrs, rule)).toBe(want);
  });

  it.each([
    ["*", "/x", true],
    ["/api*", "/apis/foo", true],
    ["/api/*", "/api", false],
    ["/a", "/a", true],
    ["/a", "/a/", false],
  ] as const)("nonResourceURL %s vs %s", (pattern, path, want) => {
    expect(nonResourceURLMatches(pattern, path)).toBe(want);
  });

  it("prints rules as the platform does", () => {
    expect(ruleString({ verbs: ["get"], apiGroups: [""], resources: ["pods"] })).toBe('{APIGroups:[""], Resources:["pods"], Verbs:["get"]}');
    expect(ruleString({ verbs: ["get"], nonResourceURLs: ["/x"] })).toBe('{NonResourceURLs:["/x"], Verbs:["get"]}');
  });
});
