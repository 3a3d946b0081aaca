import { describe, expect, it } from "vitest";
import { isStatusError } from "../../../shared/api/status.ts";
import { PrivilegedGroupsAuthorizer } from "./always.ts";
import { UnionAuthorizer } from "./chain.ts";
import { RbacAuthorizer } from "./rbac/authorizer.ts";
import { StaticRbacSource } from "./rbac/resolve.ts";
import { localSubjectAccessReview, selfSubjectAccessReview, selfSubjectRulesReview, subjectAccessReview, type ReviewDeps } from "./reviews.ts";
import { profile } from "./testing/harness.ts";
import { DENY, NO_OPINION, type Attributes } from "./types.ts";

const source = new StaticRbacSource(
  [{ metadata: { name: "reader", namespace: "ns1" }, rules: [{ verbs: ["get", "list"], apiGroups: [""], resources: ["pods"] }] }],
  [{ metadata: { name: "health" }, rules: [{ verbs: ["get"], nonResourceURLs: ["/healthz"] }] }],
  [{ metadata: { name: "b", namespace: "ns1" }, subjects: [{ kind: "User", name: "alice" }], roleRef: { kind: "Role", name: "reader" } }],
  [{ metadata: { name: "h" }, subjects: [{ kind: "Group", name: "system:authenticated" }], roleRef: { kind: "ClusterRole", name: "health" } }],
);
const denySecrets = { name: "deny-secrets", authorize: (a: Attributes) => (a.resource === "secrets" ? DENY("secrets are off limits") : NO_OPINION()) };
const deps: ReviewDeps = {
  authorizer: new UnionAuthorizer([new PrivilegedGroupsAuthorizer(), denySecrets, new RbacAuthorizer(source)]),
  group: profile.group("authorization"),
};
const apiVersion = profile.apiVersion("authorization", "v1");
const alice = { username: "alice", groups: ["system:authenticated"] };

async function rejects(p: Promise<unknown> | (() => unknown), reason: string): Promise<string> {
  try {
    await (typeof p === "function" ? p() : p);
  } catch (err) {
    expect(isStatusError(err, reason as "Invalid")).toBe(true);
    return (err as Error).message;
  }
  throw new Error("expected an error");
}

describe("access reviews", () => {
  it("SubjectAccessReview answers for the user in the spec", async () => {
    const body = { apiVersion, kind: "SubjectAccessReview", spec: { user: "alice", groups: ["system:authenticated"], resourceAttributes: { namespace: "ns1", verb: "list", resource: "pods" } } };
    const out = await subjectAccessReview(body, { username: "admin", groups: [] }, deps);
    expect(out.status).toEqual({ allowed: true, reason: 'RBAC: allowed by RoleBinding "b/ns1" of Role "reader" to User "alice"' });
    expect(out.spec).toEqual(body.spec);
    const no = await subjectAccessReview({ ...body, spec: { ...body.spec, resourceAttributes: { namespace: "ns2", verb: "list", resource: "pods" } } }, alice, deps);
    expect(no.status).toEqual({ allowed: false });
    const denied = await subjectAccessReview({ ...body, spec: { ...body.spec, resourceAttributes: { namespace: "ns1", verb: "get", resource: "secrets" } } }, alice, deps);
    expect(denied.status).toEqual({ allowed: false, denied: true, reason: "secrets are off limits" });
    const masters = await subjectAccessReview({ apiVersion, kind: "SubjectAccessReview", spec: { groups: ["system:masters"], nonResourceAttributes: { path: "/x", verb: "post" } } }, alice, deps);
    expect(masters.status).toEqual({ allowed: true });
  });

  it("SubjectAccessReview validates the spec", async () => {
    expect(await rejects(subjectAccessReview({ spec: { user: "a" } }, alice, deps), "Invalid")).toContain("exactly one of nonResourceAttributes or resourceAttributes must be specified");
    expect(
      await rejects(subjectAccessReview({ spec: { user: "a", resourceAttributes: {}, nonResourceAttributes: {} } }, alice, deps), "Invalid"),
    ).toContain("cannot be specified in combination with resourceAttributes");
    expect(await rejects(subjectAccessReview({ spec: { resourceAttributes: {} } }, alice, deps), "Invalid")).toContain("at least one of user or group must be specified");
  });

  it("LocalSubjectAccessReview must name its own namespace", async () => {
    const body = { apiVersion, kind: "LocalSubjectAccessReview", metadata: { namespace: "ns1" }, spec: { user: "alice", resourceAttributes: { namespace: "ns1", verb: "get", resource: "pods" } } };
    expect((await localSubjectAccessReview(body, alice, "ns1", deps)).status).toEqual(expect.objectContaining({ allowed: true }));
    expect(await rejects(localSubjectAccessReview(body, alice, "ns2", deps), "BadRequest")).toBe("spec.resourceAttributes.namespace must match namespace: ns2");
    expect(await rejects(localSubjectAccessReview({ spec: { user: "a", nonResourceAttributes: { path: "/x", verb: "get" } } }, alice, "ns1", deps), "Invalid")).toContain(
      "disallowed on this kind of request",
    );
  });

  it("SelfSubjectAccessReview answers for the caller", async () => {
    const body = { apiVersion, kind: "SelfSubjectAccessReview", spec: { nonResourceAttributes: { path: "/healthz", verb: "get" } } };
    expect((await selfSubjectAccessReview(body, alice, deps)).status).toEqual(expect.objectContaining({ allowed: true }));
    expect((await selfSubjectAccessReview(body, { username: "anon", groups: ["system:unauthenticated"] }, deps)).status).toEqual({ allowed: false });
  });

  it("SelfSubjectRulesReview lists the caller's rules in a namespace", () => {
    const out = selfSubjectRulesReview({ apiVersion, kind: "SelfSubjectRulesReview", spec: { namespace: "ns1" } }, alice, deps);
    expect(out.status).toEqual({
      resourceRules: [{ verbs: ["get", "list"], apiGroups: [""], resources: ["pods"] }],
      nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["/healthz"] }],
      incomplete: true,
    });
    expect(() => selfSubjectRulesReview({ spec: {} }, alice, deps)).toThrow(/no namespace on request/);
    const masters = selfSubjectRulesReview({ spec: { namespace: "x" } }, { username: "root", groups: ["system:masters"] }, deps);
    expect((masters.status as { resourceRules: unknown[] }).resourceRules[0]).toEqual({ verbs: ["*"], apiGroups: ["*"], resources: ["*"] });
  });
});
