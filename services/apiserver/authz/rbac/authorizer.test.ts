import { describe, expect, it } from "vitest";
import type { Attributes, UserInfo } from "../types.ts";
import { RbacAuthorizer } from "./authorizer.ts";
import { appliesTo, StaticRbacSource } from "./resolve.ts";
import type { ClusterRole, Role, RoleBinding } from "./types.ts";

const podReader: Role = { metadata: { name: "pod-reader", namespace: "team-a" }, rules: [{ verbs: ["get", "list"], apiGroups: [""], resources: ["pods"] }] };
const secretsAdmin: ClusterRole = { metadata: { name: "secrets-admin" }, rules: [{ verbs: ["*"], apiGroups: [""], resources: ["secrets"] }] };
const nodeReader: ClusterRole = { metadata: { name: "node-reader" }, rules: [{ verbs: ["get"], apiGroups: [""], resources: ["nodes"] }, { verbs: ["get"], nonResourceURLs: ["/metrics"] }] };

const source = new StaticRbacSource(
  [podReader],
  [secretsAdmin, nodeReader],
  [
    { metadata: { name: "alice-pods", namespace: "team-a" }, subjects: [{ kind: "User", name: "alice" }], roleRef: { kind: "Role", name: "pod-reader" } },
    { metadata: { name: "devs-secrets", namespace: "team-a" }, subjects: [{ kind: "Group", name: "devs" }], roleRef: { kind: "ClusterRole", name: "secrets-admin" } },
    { metadata: { name: "sa-pods", namespace: "team-a" }, subjects: [{ kind: "ServiceAccount", name: "builder" }], roleRef: { kind: "Role", name: "pod-reader" } },
    { metadata: { name: "dangling", namespace: "team-b" }, subjects: [{ kind: "User", name: "alice" }], roleRef: { kind: "Role", name: "missing" } },
  ],
  [{ metadata: { name: "ops-nodes" }, subjects: [{ kind: "Group", name: "ops" }], roleRef: { kind: "ClusterRole", name: "node-reader" } }] as RoleBinding[],
);
const rbac = new RbacAuthorizer(source);

function attrs(user: UserInfo, verb: string, resource: string, namespace: string, name = ""): Attributes {
  return { user, verb, isResourceRequest: true, path: "", namespace, apiGroup: "", apiVersion: "v1", resource, subresource: "", name };
}
const alice: UserInfo = { username: "alice", groups: ["system:authenticated"] };
const bob: UserInfo = { username: "bob", groups: ["devs"] };
const carol: UserInfo = { username: "carol", groups: ["ops"] };
const builder: UserInfo = { username: "system:serviceaccount:team-a:builder", groups: [] };

describe("RBAC authorizer", () => {
  it.each([
    ["role binding in its namespace", alice, "list", "pods", "team-a", "Allow"],
    ["role binding not in other namespaces", alice, "list", "pods", "team-c", "NoOpinion"],
    ["role binding not cluster-wide", alice, "list", "pods", "", "NoOpinion"],
    ["verb outside the role", alice, "delete", "pods", "team-a", "NoOpinion"],
    ["cluster role through a role binding", bob, "delete", "secrets", "team-a", "Allow"],
    ["cluster role through a role binding is namespaced", bob, "get", "secrets", "team-b", "NoOpinion"],
    ["cluster role binding anywhere", carol, "get", "nodes", "", "Allow"],
    ["service account subject (namespace defaults to the binding's)", builder, "get", "pods", "team-a", "Allow"],
  ] as const)("%s", (_n, user, verb, resource, ns, want) => {
    expect(rbac.authorize(attrs(user, verb, resource, ns)).decision).toBe(want);
  });

  it("names the grant in the reason", () => {
    expect(rbac.authorize(attrs(alice, "get", "pods", "team-a")).reason).toBe(
      'RBAC: allowed by RoleBinding "alice-pods/team-a" of Role "pod-reader" to User "alice"',
    );
  });

  it("reports missing roles", () => {
    expect(rbac.authorize(attrs(alice, "get", "pods", "team-b")).reason).toContain('role.rbac "missing" not found');
  });

  it("lists the rules of a user in a namespace", () => {
    const r = rbac.rulesFor(carol, "team-a");
    expect(r.resourceRules).toEqual([{ verbs: ["get"], apiGroups: [""], resources: ["nodes"] }]);
    expect(r.nonResourceRules).toEqual([{ verbs: ["get"], nonResourceURLs: ["/metrics"] }]);
    expect(rbac.rulesFor(alice, "team-b").incomplete).toBe(true);
  });

  it.each([
    [{ kind: "User", name: "alice" }, "", true],
    [{ kind: "User", name: "Alice" }, "", false],
    [{ kind: "Group", name: "system:authenticated" }, "", true],
    [{ kind: "ServiceAccount", name: "builder", namespace: "team-a" }, "", false],
    [{ kind: "Unknown", name: "alice" }, "", false],
  ] as const)("subject %j applies to alice: %s", (subject, ns, want) => {
    expect(appliesTo(alice, subject, ns)).toBe(want);
  });
});
