import { describe, expect, it } from "vitest";
import { getProfile } from "../../../shared/platform/index.ts";
import { componentNames, defaultClusterRoleBindings, defaultClusterRoles } from "./default-policy.ts";
import { RbacAuthorizer } from "./rbac/authorizer.ts";
import { StaticRbacSource } from "./rbac/resolve.ts";
import type { Attributes, UserInfo } from "./types.ts";

describe("default policy", () => {
  for (const id of ["plat", "kubernetes"]) {
    const profile = getProfile(id);
    const roles = defaultClusterRoles(profile);
    const bindings = defaultClusterRoleBindings(profile);

    it(`${id}: every object is labelled and annotated for reconciliation`, () => {
      for (const o of [...roles, ...bindings]) {
        expect(o.metadata.labels?.[profile.labels.bootstrapping]).toBe("rbac-defaults");
        expect(o.metadata.annotations?.[profile.annotations.rbacAutoupdate]).toBe("true");
      }
      expect(new Set(roles.map((r) => r.metadata.name)).size).toBe(roles.length);
      expect(new Set(bindings.map((b) => b.metadata.name)).size).toBe(bindings.length);
    });

    it(`${id}: every binding refers to a default role`, () => {
      const names = new Set(roles.map((r) => r.metadata.name));
      for (const b of bindings) expect(names.has(b.roleRef.name)).toBe(true);
    });

    it(`${id}: user-facing, discovery and controller roles exist`, () => {
      const names = roles.map((r) => r.metadata.name);
      for (const n of ["cluster-admin", "admin", "edit", "view", "cluster-status", "system:basic-user", "system:discovery", "system:public-info-viewer", "system:monitoring", "system:node", "system:node-bootstrapper", "system:node-proxier", "system:controller:namespace-controller", "system:controller:generic-garbage-collector", "system:controller:clusterrole-aggregation-controller"]) {
        expect(names).toContain(n);
      }
      const view = roles.find((r) => r.metadata.name === "view");
      expect(view?.aggregationRule).toEqual({ clusterRoleSelectors: [{ matchLabels: { [profile.labels.aggregateToView]: "true" } }] });
      expect(view?.metadata.labels?.[profile.labels.aggregateToEdit]).toBe("true");
    });

    it(`${id}: component roles carry the profile's prefix`, () => {
      const c = componentNames(profile);
      const prefix = id === "kubernetes" ? "kube" : "plat";
      expect(c.scheduler).toBe(`system:${prefix}-scheduler`);
      expect(roles.map((r) => r.metadata.name)).toContain(c.controllerManager);
      const sa = bindings.find((b) => b.metadata.name === "system:controller:namespace-controller")?.subjects?.[0];
      expect(sa).toEqual({ kind: "ServiceAccount", name: "namespace-controller", namespace: profile.systemNamespace });
    });
  }

  it("grants what the specification lists through the default bindings", () => {
    const profile = getProfile("plat");
    const authz = new RbacAuthorizer(new StaticRbacSource([], defaultClusterRoles(profile), [], defaultClusterRoleBindings(profile)));
    const path = (user: UserInfo, verb: string, p: string): Attributes => ({ user, verb, isResourceRequest: false, path: p, namespace: "", apiGroup: "", apiVersion: "", resource: "", subresource: "", name: "" });
    const anon = { username: "system:anonymous", groups: ["system:unauthenticated"] };
    const user = { username: "u", groups: ["system:authenticated"] };
    const mon = { username: "m", groups: ["system:monitoring"] };
    expect(authz.authorize(path(anon, "get", "/version")).decision).toBe("Allow");
    expect(authz.authorize(path(anon, "get", "/apis")).decision).toBe("NoOpinion");
    expect(authz.authorize(path(user, "get", "/apis/apps/v1")).decision).toBe("Allow");
    expect(authz.authorize(path(user, "get", "/metrics")).decision).toBe("NoOpinion");
    expect(authz.authorize(path(mon, "get", "/metrics")).decision).toBe("Allow");
    expect(authz.authorize(path(mon, "get", "/readyz/etcd")).decision).toBe("Allow");
    const ssar: Attributes = { ...path(user, "create", ""), isResourceRequest: true, apiGroup: profile.group("authorization"), resource: "selfsubjectaccessreviews" };
    expect(authz.authorize(ssar).decision).toBe("Allow");
    const masters: Attributes = { ...ssar, user: { username: "root", groups: ["system:masters"] }, verb: "delete", resource: "anything" };
    expect(authz.authorize(masters).decision).toBe("Allow");
  });

  it("cluster-status reads cluster infrastructure and health, nothing inside workloads", () => {
    const profile = getProfile("plat");
    const binding = {
      apiVersion: profile.apiVersion("rbac", "v1"),
      kind: "ClusterRoleBinding",
      metadata: { name: "ops-status" },
      subjects: [{ kind: "Group", name: "ops", apiGroup: profile.group("rbac") }],
      roleRef: { kind: "ClusterRole", name: "cluster-status", apiGroup: profile.group("rbac") },
    };
    const authz = new RbacAuthorizer(new StaticRbacSource([], defaultClusterRoles(profile), [], [binding]));
    const user = { username: "o", groups: ["ops"] };
    const res = (verb: string, group: string, resource: string, namespace = "", subresource = ""): Attributes => ({
      user,
      verb,
      isResourceRequest: true,
      path: "",
      namespace,
      apiGroup: group,
      apiVersion: "v1",
      resource,
      subresource,
      name: "",
    });
    const url = (p: string): Attributes => ({ ...res("get", "", ""), isResourceRequest: false, path: p });
    const table: Array<[Attributes, "Allow" | "NoOpinion"]> = [
      [res("list", "", "nodes"), "Allow"],
      [res("get", "", "nodes", "", "status"), "Allow"],
      [res("watch", "", "namespaces"), "Allow"],
      [res("list", "", "persistentvolumes"), "Allow"],
      [res("list", profile.group("storage"), "storageclasses"), "Allow"],
      [res("list", profile.group("coordination"), "leases", "node-lease"), "Allow"],
      [url("/readyz/etcd"), "Allow"],
      [url("/version"), "Allow"],
      [res("update", "", "nodes"), "NoOpinion"],
      [res("delete", "", "namespaces"), "NoOpinion"],
      [res("list", "", "secrets", "default"), "NoOpinion"],
      [res("list", "", "pods"), "NoOpinion"],
      [res("get", "", "configmaps", "default"), "NoOpinion"],
      [url("/metrics"), "NoOpinion"],
    ];
    for (const [attrs, want] of table) expect([attrs.resource || attrs.path, attrs.verb, authz.authorize(attrs).decision]).toEqual([attrs.resource || attrs.path, attrs.verb, want]);
  });
});
