import { describe, expect, it } from "vitest";
import { NodeGraph, podReferences } from "./node-graph.ts";
import { NodeAuthorizer, nodeIdentity } from "./node.ts";
import { profile } from "./testing/harness.ts";
import type { Attributes } from "./types.ts";

const pod = (name: string, node: string, spec: Record<string, unknown> = {}) => ({ metadata: { name, namespace: "ns" }, spec: { nodeName: node, ...spec } });

describe("node graph", () => {
  it("collects every reference of a pod", () => {
    const refs = podReferences(
      pod("p", "n1", {
        serviceAccountName: "sa",
        imagePullSecrets: [{ name: "pull" }],
        volumes: [
          { name: "a", secret: { secretName: "vol-secret" } },
          { name: "b", configMap: { name: "vol-cm" } },
          { name: "c", persistentVolumeClaim: { claimName: "claim" } },
          { name: "d", projected: { sources: [{ secret: { name: "proj-secret" } }, { configMap: { name: "proj-cm" } }] } },
          { name: "e", ephemeral: { volumeClaimTemplate: {} } },
          { name: "f", csi: { driver: "x", nodePublishSecretRef: { name: "csi-secret" } } },
        ],
        initContainers: [{ name: "i", envFrom: [{ secretRef: { name: "init-secret" } }, { configMapRef: { name: "init-cm" } }] }],
        containers: [{ name: "c", env: [{ name: "X", valueFrom: { configMapKeyRef: { name: "env-cm", key: "k" } } }] }],
      }),
    );
    expect(refs.sort()).toEqual(
      [
        "serviceaccount/ns/sa",
        "secret/ns/pull",
        "secret/ns/vol-secret",
        "configmap/ns/vol-cm",
        "pvc/ns/claim",
        "secret/ns/proj-secret",
        "configmap/ns/proj-cm",
        "pvc/ns/p-e",
        "secret/ns/csi-secret",
        "secret/ns/init-secret",
        "configmap/ns/init-cm",
        "configmap/ns/env-cm",
      ].sort(),
    );
  });

  it("follows pods to claims to volumes to volume secrets, and forgets deleted pods", () => {
    const g = new NodeGraph();
    g.setPod(pod("p", "n1", { volumes: [{ name: "c", persistentVolumeClaim: { claimName: "claim" } }] }));
    g.setClaim({ metadata: { name: "claim", namespace: "ns" }, spec: { volumeName: "pv1" } });
    g.setVolume({ metadata: { name: "pv1" }, spec: { csi: { driver: "d", nodeStageSecretRef: { name: "stage", namespace: "infra" } } } });
    expect(g.reachable("n1", "pvc", "ns", "claim")).toBe(true);
    expect(g.reachable("n1", "pv", "", "pv1")).toBe(true);
    expect(g.reachable("n1", "secret", "infra", "stage")).toBe(true);
    expect(g.reachable("n2", "pv", "", "pv1")).toBe(false);
    // Rescheduling moves the grant.
    g.setPod(pod("p", "n2", { volumes: [{ name: "c", persistentVolumeClaim: { claimName: "claim" } }] }));
    expect(g.reachable("n1", "pvc", "ns", "claim")).toBe(false);
    expect(g.reachable("n2", "pvc", "ns", "claim")).toBe(true);
    g.deletePod("ns", "p");
    expect(g.reachable("n2", "pvc", "ns", "claim")).toBe(false);
    // Unbound pods grant nothing.
    g.setPod(pod("q", "", { imagePullSecrets: [{ name: "s" }] }));
    expect(g.reachable("", "secret", "ns", "s")).toBe(false);
  });

  it("counts references from several pods", () => {
    const g = new NodeGraph();
    g.setPod(pod("a", "n1", { imagePullSecrets: [{ name: "s" }] }));
    g.setPod(pod("b", "n1", { imagePullSecrets: [{ name: "s" }] }));
    g.deletePod("ns", "a");
    expect(g.reachable("n1", "secret", "ns", "s")).toBe(true);
    g.deletePod("ns", "b");
    expect(g.reachable("n1", "secret", "ns", "s")).toBe(false);
  });
});

describe("node authorizer", () => {
  const g = new NodeGraph();
  g.setPod(pod("p", "n1", { serviceAccountName: "sa" }));
  const authz = new NodeAuthorizer(g, profile);
  const n1 = { username: "system:node:n1", groups: ["system:nodes", "system:authenticated"] };
  const a = (verb: string, resource: string, o: Partial<Attributes> = {}): Attributes => ({
    user: n1,
    verb,
    isResourceRequest: true,
    path: "",
    namespace: "ns",
    apiGroup: "",
    apiVersion: "v1",
    resource,
    subresource: "",
    name: "",
    ...o,
  });

  it.each([
    ["service account token for a bound pod's account", a("create", "serviceaccounts", { subresource: "token", name: "sa" }), "Allow"],
    ["token for another account", a("create", "serviceaccounts", { subresource: "token", name: "other" }), "NoOpinion"],
    ["pod eviction of a bound pod", a("create", "pods", { subresource: "eviction", name: "p" }), "Allow"],
    ["certificate signing requests", a("create", "certificatesigningrequests", { apiGroup: profile.group("certificates"), namespace: "" }), "Allow"],
    ["token reviews", a("create", "tokenreviews", { apiGroup: profile.group("authentication"), namespace: "" }), "Allow"],
    ["subject access reviews", a("create", "subjectaccessreviews", { apiGroup: profile.group("authorization"), namespace: "" }), "Allow"],
    ["endpoints get", a("get", "endpoints", { name: "x" }), "Allow"],
    ["deleting a node", a("delete", "nodes", { namespace: "", name: "n1" }), "NoOpinion"],
    ["own csinode", a("update", "csinodes", { apiGroup: profile.group("storage"), namespace: "", name: "n1" }), "Allow"],
    ["other csinode", a("update", "csinodes", { apiGroup: profile.group("storage"), namespace: "", name: "n2" }), "NoOpinion"],
    ["deployments", a("list", "deployments", { apiGroup: "apps" }), "NoOpinion"],
    ["non-resource", { ...a("get", ""), isResourceRequest: false, path: "/healthz" }, "NoOpinion"],
  ] as const)("%s", (_n, attrs, want) => {
    expect(authz.authorize(attrs).decision).toBe(want);
  });

  it.each([
    [{ username: "system:node:n1", groups: ["system:nodes"] }, "n1"],
    [{ username: "system:node:", groups: ["system:nodes"] }, undefined],
    [{ username: "n1", groups: ["system:nodes"] }, undefined],
    [{ username: "system:node:n1", groups: [] }, undefined],
  ])("identity %j", (user, want) => {
    expect(nodeIdentity(user)).toBe(want);
  });
});
