import { describe, expect, it } from "vitest";
import { AbacAuthorizer, parseAbacPolicies } from "./abac.ts";
import { profile } from "./testing/harness.ts";
import type { Attributes } from "./types.ts";

const V = `${profile.group("abac")}/v1beta1`;
const line = (spec: Record<string, unknown>) => JSON.stringify({ apiVersion: V, kind: "Policy", spec });

const file = [
  "# comment lines and blank lines are skipped",
  "",
  line({ user: "admin", namespace: "*", resource: "*", apiGroup: "*", nonResourcePath: "*" }),
  line({ user: "alice", namespace: "projectCaribou", resource: "*", apiGroup: "*" }),
  line({ user: "bob", namespace: "projectCaribou", resource: "pods", apiGroup: "", readonly: true }),
  line({ group: "system:authenticated", readonly: true, nonResourcePath: "/version" }),
  line({ group: "system:unauthenticated", readonly: true, nonResourcePath: "/healthz/*" }),
  line({ user: "system:serviceaccount:kube:default", namespace: "*", resource: "*", apiGroup: "*" }),
  line({ user: "*", namespace: "public", resource: "configmaps", apiGroup: "", readonly: true }),
].join("\n");

const abac = new AbacAuthorizer(parseAbacPolicies(file, profile));

function res(user: string, groups: string[], verb: string, ns: string, resource: string, group = ""): Attributes {
  return { user: { username: user, groups }, verb, isResourceRequest: true, path: "", namespace: ns, apiGroup: group, apiVersion: "v1", resource, subresource: "", name: "" };
}
function url(user: string, groups: string[], verb: string, path: string): Attributes {
  return { user: { username: user, groups }, verb, isResourceRequest: false, path, namespace: "", apiGroup: "", apiVersion: "", resource: "", subresource: "", name: "" };
}

describe("ABAC", () => {
  it.each([
    ["admin anything", res("admin", [], "delete", "x", "secrets", "apps"), true],
    ["admin any path", url("admin", [], "post", "/anything"), true],
    ["alice in her namespace", res("alice", [], "create", "projectCaribou", "deployments", "apps"), true],
    ["alice elsewhere", res("alice", [], "get", "other", "pods"), false],
    ["alice cluster scope", res("alice", [], "list", "", "pods"), false],
    ["bob readonly pods", res("bob", [], "watch", "projectCaribou", "pods"), true],
    ["bob cannot write", res("bob", [], "create", "projectCaribou", "pods"), false],
    ["bob other resource", res("bob", [], "get", "projectCaribou", "secrets"), false],
    ["bob other group", res("bob", [], "get", "projectCaribou", "pods", "apps"), false],
    ["authenticated group path", url("carol", ["system:authenticated"], "get", "/version"), true],
    ["path needs readonly verb", url("carol", ["system:authenticated"], "post", "/version"), false],
    ["unauthenticated prefix path", url("system:anonymous", ["system:unauthenticated"], "get", "/healthz/ping"), true],
    ["prefix is not the parent", url("system:anonymous", ["system:unauthenticated"], "get", "/healthzz"), false],
    ["service account user", res("system:serviceaccount:kube:default", [], "delete", "a", "pods"), true],
    ["any user public configmaps", res("dave", [], "get", "public", "configmaps"), true],
    ["resource policy does not cover paths", url("alice", [], "get", "/version"), false],
  ] as const)("%s", (_n, a, want) => {
    expect(abac.authorize(a).decision).toBe(want ? "Allow" : "NoOpinion");
  });

  it("rejects bad lines with their number", () => {
    expect(() => parseAbacPolicies(`${line({ user: "a" })}\n{nope`, profile)).toThrow(/line 2/);
    expect(() => parseAbacPolicies(JSON.stringify({ apiVersion: "other/v1", kind: "Policy", spec: {} }), profile)).toThrow(/unsupported apiVersion/);
    expect(() => parseAbacPolicies(line({ user: "a", colour: "red" }), profile)).toThrow(/unknown field/);
  });

  it("accepts the unversioned form", () => {
    const a = new AbacAuthorizer(parseAbacPolicies(JSON.stringify({ user: "old", readonly: true }), profile));
    expect(a.authorize(res("old", [], "get", "x", "pods")).decision).toBe("Allow");
    expect(a.authorize(res("old", [], "create", "x", "pods")).decision).toBe("NoOpinion");
  });
});
