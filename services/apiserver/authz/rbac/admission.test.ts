import { describe, expect, it } from "vitest";
import { getProfile } from "../../../../shared/platform/index.ts";
import type { Attributes } from "../../admission/interfaces.ts";
import { rbacAdmission, type RbacAdmissionDeps } from "./admission.ts";

const profile = getProfile("plat");
const rbacGroup = profile.group("rbac");

const deps = {
  profile,
  authorizer: { authorize: () => Promise.reject(new Error("not asked in these cases")) },
  source: { rolesFor: () => [] },
} as unknown as RbacAdmissionDeps;

function attributes(group: string, resource: string, subresource = ""): Attributes {
  return {
    operation: "CREATE",
    kind: { group, version: "v1", kind: "Thing" },
    resource: { group, version: "v1", resource },
    subresource,
    name: "n",
    namespace: "default",
    object: { metadata: { name: "n" } },
    oldObject: undefined,
    options: undefined,
    userInfo: { username: "system:admin-like", groups: ["system:masters"] },
    dryRun: false,
    namespaced: true,
    setObject: () => undefined,
    addWarning: () => undefined,
  } as unknown as Attributes;
}

describe("RBAC escalation plugin", () => {
  it.each([
    ["", "configmaps", ""],
    ["apps", "deployments", ""],
    [rbacGroup, "roles", "status"],
  ])("answers a write of group %j resource %s (subresource %j) synchronously, without a promise", (group, resource, sub) => {
    const answer = rbacAdmission(deps).validate!(attributes(group, resource, sub));
    expect(answer).toBeUndefined();
  });

  it("checks a role write of its own group (a promise; a privileged writer passes)", async () => {
    const answer = rbacAdmission(deps).validate!(attributes(rbacGroup, "roles"));
    expect(answer).toBeInstanceOf(Promise);
    await expect(answer).resolves.toBeUndefined();
  });
});
