import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { startTestControllers, type TestControllers } from "../support/controllers.ts";
import { CRD_GROUP, crdPath, cronTabCrd, waitServed } from "../support/crd-fixtures.ts";

let api: TestApiserver;
let controllers: TestControllers;
beforeAll(async () => {
  api = await startTestApiserver();
  controllers = await startTestControllers(api);
});
afterAll(async () => {
  controllers?.stop();
  await api?.close();
});

async function eventually<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await fn();
  while (!ok(last) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    last = await fn();
  }
  return last;
}

describe("namespaces", () => {
  it("exist by default for the profile", async () => {
    const list = await api.admin.get("/api/v1/namespaces");
    const names = list.json<{ items: Array<{ metadata: { name: string } }> }>().items.map((n) => n.metadata.name);
    for (const ns of api.profile.defaultNamespaces) expect(names).toContain(ns);
  });

  it("get the platform finalizer and name label, terminate, empty themselves and go away", async () => {
    const created = await api.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "doomed" } });
    expect(created.status, created.text).toBe(201);
    const ns = created.json<{ spec: { finalizers: string[] }; status: { phase: string }; metadata: { labels: Record<string, string> } }>();
    expect(ns.spec.finalizers).toEqual([api.profile.namespaceFinalizer]);
    expect(ns.status.phase).toBe("Active");
    expect(ns.metadata.labels[api.profile.labels.metadataName]).toBe("doomed");
    for (let i = 0; i < 3; i++) {
      const r = await api.admin.post("/api/v1/namespaces/doomed/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `c${i}` } });
      expect(r.status).toBe(201);
    }
    const del = await api.admin.delete("/api/v1/namespaces/doomed");
    expect(del.status).toBe(200);
    expect(del.json<{ status: { phase: string } }>().status.phase).toBe("Terminating");
    const refused = await api.admin.post("/api/v1/namespaces/doomed/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "late" } });
    expect(refused.status).toBe(403);
    expect(refused.json<{ message: string }>().message).toContain("because it is being terminated");
    const gone = await eventually(
      () => api.admin.get("/api/v1/namespaces/doomed"),
      (r) => r.status === 404,
    );
    expect(gone.status).toBe(404);
    const leftovers = await api.admin.get("/api/v1/namespaces/doomed/configmaps");
    expect(leftovers.json<{ items: unknown[] }>().items).toHaveLength(0);
  });

  it("empty every kind of content, and wait for content that has finalizers of its own", async () => {
    expect((await api.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "held" } })).status).toBe(201);
    const held = "/api/v1/namespaces/held";
    expect((await api.admin.post(`${held}/configmaps`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "pinned", finalizers: ["example.com/hold"] } })).status).toBe(201);
    expect((await api.admin.post(`${held}/secrets`, { apiVersion: "v1", kind: "Secret", metadata: { name: "s" } })).status).toBe(201);
    expect((await api.admin.post(`${held}/serviceaccounts`, { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "sa" } })).status).toBe(201);
    expect((await api.admin.delete(held)).status).toBe(200);
    // Everything without finalizers goes; the pinned object is Terminating and holds the namespace.
    const secrets = await eventually(() => api.admin.get(`${held}/secrets`), (r) => r.json<{ items: unknown[] }>().items.length === 0);
    expect(secrets.json<{ items: unknown[] }>().items).toHaveLength(0);
    expect((await api.admin.get(`${held}/serviceaccounts`)).json<{ items: unknown[] }>().items).toHaveLength(0);
    const pinned = await eventually(() => api.admin.get(`${held}/configmaps/pinned`), (r) => !!r.json<{ metadata: { deletionTimestamp?: string } }>().metadata.deletionTimestamp);
    expect(pinned.json<{ metadata: { deletionTimestamp?: string } }>().metadata.deletionTimestamp).toBeTruthy();
    await new Promise((r) => setTimeout(r, 1500));
    expect((await api.admin.get(held)).status).toBe(200);
    // Releasing the finalizer lets the object, then the namespace, go.
    const released = await api.admin.patch(`${held}/configmaps/pinned`, { metadata: { finalizers: null } }, "application/merge-patch+json");
    expect(released.status, released.text).toBe(200);
    expect((await eventually(() => api.admin.get(held), (r) => r.status === 404, 20_000)).status).toBe(404);
  });

  it("delete the custom resources of a type defined after the controllers started", async () => {
    const crd = await api.admin.post(crdPath(api.profile), cronTabCrd(api.profile, { plural: "nsitems", kind: "NsItem", singular: "nsitem" }));
    expect(crd.status, crd.text).toBe(201);
    expect((await api.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "cr-doomed" } })).status).toBe(201);
    const items = `/apis/${CRD_GROUP}/v1/namespaces/cr-doomed/nsitems`;
    await waitServed(api.admin, items);
    for (const name of ["a", "b"]) {
      const r = await api.admin.post(items, { apiVersion: `${CRD_GROUP}/v1`, kind: "NsItem", metadata: { name }, spec: { cronSpec: "* * * * *" } });
      expect(r.status, r.text).toBe(201);
    }
    // Another namespace's item of the same type stays.
    const keep = await api.admin.post(`/apis/${CRD_GROUP}/v1/namespaces/default/nsitems`, { apiVersion: `${CRD_GROUP}/v1`, kind: "NsItem", metadata: { name: "kept" }, spec: { cronSpec: "* * * * *" } });
    expect(keep.status, keep.text).toBe(201);
    expect((await api.admin.delete("/api/v1/namespaces/cr-doomed")).status).toBe(200);
    expect((await eventually(() => api.admin.get("/api/v1/namespaces/cr-doomed"), (r) => r.status === 404, 20_000)).status).toBe(404);
    const all = (await api.admin.get(`/apis/${CRD_GROUP}/v1/nsitems`)).json<{ items: Array<{ metadata: { namespace: string; name: string } }> }>();
    expect(all.items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`)).toEqual(["default/kept"]);
  });

  it("scopes namespaced lists and serves cluster-wide lists across namespaces", async () => {
    await api.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "scope-a" } });
    await api.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "scope-b" } });
    await api.admin.post("/api/v1/namespaces/scope-a/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "same" } });
    await api.admin.post("/api/v1/namespaces/scope-b/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "same" } });
    const a = await api.admin.get("/api/v1/namespaces/scope-a/configmaps");
    expect(a.json<{ items: Array<{ metadata: { namespace: string } }> }>().items.map((i) => i.metadata.namespace)).toEqual(["scope-a"]);
    const all = await api.admin.get("/api/v1/configmaps?fieldSelector=metadata.name%3Dsame");
    expect(all.json<{ items: Array<{ metadata: { namespace: string } }> }>().items.map((i) => i.metadata.namespace).sort()).toEqual(["scope-a", "scope-b"]);
    const clusterScopedInNs = await api.admin.get("/api/v1/namespaces/scope-a/nodes");
    expect(clusterScopedInNs.status).toBe(404);
  });
});
