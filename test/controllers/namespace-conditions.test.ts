/**
 * The namespace controller's deletion conditions over HTTPS: a Terminating namespace
 * whose content carries a finalizer reports NamespaceContentRemaining and
 * NamespaceFinalizersRemaining with the platform's reasons and messages, the other
 * types False with their ok reasons; an aggregated group version that does not answer
 * discovery gives NamespaceDeletionDiscoveryFailure and holds the namespace until the
 * APIService is gone; once the content's finalizer is removed the namespace goes away.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCA, createClientCert } from "../../services/apiserver/server/certs.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { startTestControllers, type TestControllers } from "../support/controllers.ts";
import { eventually } from "./support.ts";

type Condition = { type: string; status: string; reason: string; message: string; lastTransitionTime: string };
let api: TestApiserver;
let controllers: TestControllers;
const HOLD = "example.com/hold";

beforeAll(async () => {
  const proxyCa = await createCA({ commonName: "front-proxy-ca" });
  const proxyClient = await createClientCert(proxyCa, { user: "front-proxy-client" });
  api = await startTestApiserver({ aggregator: { proxyClientCert: { certPem: proxyClient.certPem, keyPem: proxyClient.keyPem }, availabilityIntervalMs: 200 } });
  controllers = await startTestControllers(api, ["namespace"]);
});
afterAll(async () => {
  controllers?.stop();
  await api?.close();
});

async function conditions(ns: string): Promise<Record<string, Condition> | undefined> {
  const r = await api.admin.get(`/api/v1/namespaces/${ns}`);
  if (r.status !== 200) return undefined;
  const list = r.json<{ status?: { conditions?: Condition[] } }>().status?.conditions ?? [];
  return Object.fromEntries(list.map((c) => [c.type, c]));
}
const summary = (c: Condition | undefined) => (c ? [c.status, c.reason, c.message] : undefined);

async function namespaceWithHeldConfigMap(ns: string): Promise<void> {
  expect((await api.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } })).status).toBe(201);
  const cm = await api.admin.post(`/api/v1/namespaces/${ns}/configmaps`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "held", finalizers: [HOLD] } });
  expect(cm.status, cm.text).toBe(201);
}

async function release(ns: string): Promise<void> {
  const r = await api.admin.patch(`/api/v1/namespaces/${ns}/configmaps/held`, { metadata: { finalizers: null } }, "application/merge-patch+json");
  expect(r.status, r.text).toBe(200);
}

describe("namespace deletion conditions", () => {
  it("content with a finalizer: SomeResourcesRemain and SomeFinalizersRemain, then the namespace goes", async () => {
    await namespaceWithHeldConfigMap("cond-held");
    expect((await api.admin.delete("/api/v1/namespaces/cond-held")).status).toBe(200);
    const cs = await eventually(async () => {
      const c = await conditions("cond-held");
      return c?.NamespaceFinalizersRemaining?.status === "True" ? c : undefined;
    });
    expect(cs, JSON.stringify(await conditions("cond-held"))).toBeDefined();
    expect(summary(cs!.NamespaceContentRemaining)).toEqual(["True", "SomeResourcesRemain", "Some resources are remaining: configmaps. has 1 resource instances"]);
    expect(summary(cs!.NamespaceFinalizersRemaining)).toEqual(["True", "SomeFinalizersRemain", `Some content in the namespace has finalizers remaining: ${HOLD} in 1 resource instances`]);
    expect(summary(cs!.NamespaceDeletionDiscoveryFailure)).toEqual(["False", "ResourcesDiscovered", "All resources successfully discovered"]);
    expect(summary(cs!.NamespaceDeletionGroupVersionParsingFailure)).toEqual(["False", "ParsedGroupVersions", "All legacy kube types successfully parsed"]);
    expect(summary(cs!.NamespaceDeletionContentFailure)).toEqual(["False", "ContentDeleted", "All content successfully deleted, may be waiting on finalization"]);
    expect(Date.parse(cs!.NamespaceContentRemaining.lastTransitionTime)).toBeGreaterThan(Date.now() - 60_000);

    await release("cond-held");
    expect(await eventually(async () => (await api.admin.get("/api/v1/namespaces/cond-held")).status === 404, 20_000)).toBe(true);
  });

  it("a group version that fails discovery: DiscoveryFailed, and the namespace waits for it", async () => {
    const group = "down.example.com";
    const apiServices = `/apis/${api.profile.group("apiregistration")}/v1/apiservices`;
    const svc = await api.admin.post(apiServices, {
      apiVersion: api.profile.apiVersion("apiregistration", "v1"),
      kind: "APIService",
      metadata: { name: `v1.${group}` },
      spec: { group, version: "v1", groupPriorityMinimum: 100, versionPriority: 100, service: { namespace: "default", name: "nowhere", port: 443 }, insecureSkipTLSVerify: true },
    });
    expect(svc.status, svc.text).toBe(201);
    expect((await api.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "cond-discovery" } })).status).toBe(201);
    expect((await api.admin.delete("/api/v1/namespaces/cond-discovery")).status).toBe(200);
    const cs = await eventually(async () => {
      const c = await conditions("cond-discovery");
      return c?.NamespaceDeletionDiscoveryFailure?.status === "True" ? c : undefined;
    });
    expect(cs, JSON.stringify(await conditions("cond-discovery"))).toBeDefined();
    expect(cs!.NamespaceDeletionDiscoveryFailure.reason).toBe("DiscoveryFailed");
    expect(cs!.NamespaceDeletionDiscoveryFailure.message).toMatch(new RegExp(`^Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: ${group.replace(/\./g, "\\.")}/v1: `));
    expect(summary(cs!.NamespaceContentRemaining)).toEqual(["False", "ContentRemoved", "All content successfully removed"]);
    // Still there: discovery is incomplete.
    await new Promise((r) => setTimeout(r, 500));
    expect((await api.admin.get("/api/v1/namespaces/cond-discovery")).status).toBe(200);

    expect((await api.admin.delete(`${apiServices}/v1.${group}`)).status).toBe(200);
    expect(await eventually(async () => (await api.admin.get("/api/v1/namespaces/cond-discovery")).status === 404, 20_000)).toBe(true);
  }, 40_000);
});
