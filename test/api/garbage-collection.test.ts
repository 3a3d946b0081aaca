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

const base = "/api/v1/namespaces/default/configmaps";
type CM = { metadata: { uid: string; ownerReferences?: Array<{ uid: string }>; finalizers?: string[] } };

async function eventually<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let v = await fn();
  while (!ok(v) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    v = await fn();
  }
  return v;
}

async function ownerWithDependent(name: string, block = false): Promise<string> {
  const owner = (await api.admin.post(base, { apiVersion: "v1", kind: "ConfigMap", metadata: { name } })).json<CM>();
  const dep = await api.admin.post(base, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: `${name}-dep`, ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name, uid: owner.metadata.uid, blockOwnerDeletion: block }] },
  });
  expect(dep.status, dep.text).toBe(201);
  return owner.metadata.uid;
}

describe("garbage collection of dependents", () => {
  it("background: deleting the owner deletes its dependents afterwards", async () => {
    await ownerWithDependent("bg");
    expect((await api.admin.delete(`${base}/bg`)).status).toBe(200);
    const dep = await eventually(() => api.admin.get(`${base}/bg-dep`), (r) => r.status === 404);
    expect(dep.status).toBe(404);
  });

  it("orphan: dependents stay and lose the owner reference, then the owner goes", async () => {
    await ownerWithDependent("orph");
    const del = await api.admin.delete(`${base}/orph?propagationPolicy=Orphan`);
    expect(del.json<CM>().metadata.finalizers).toEqual(["orphan"]);
    const owner = await eventually(() => api.admin.get(`${base}/orph`), (r) => r.status === 404);
    expect(owner.status).toBe(404);
    const dep = await api.admin.get(`${base}/orph-dep`);
    expect(dep.status).toBe(200);
    expect(dep.json<CM>().metadata.ownerReferences).toBeUndefined();
  });

  it("foreground: dependents go first, then the owner", async () => {
    await ownerWithDependent("fg", true);
    const del = await api.admin.delete(`${base}/fg?propagationPolicy=Foreground`);
    expect(del.json<CM>().metadata.finalizers).toEqual(["foregroundDeletion"]);
    const owner = await eventually(() => api.admin.get(`${base}/fg`), (r) => r.status === 404);
    expect(owner.status).toBe(404);
    expect((await api.admin.get(`${base}/fg-dep`)).status).toBe(404);
  });

  it("keeps dependents whose owner exists", async () => {
    await ownerWithDependent("alive");
    await new Promise((r) => setTimeout(r, 3000));
    expect((await api.admin.get(`${base}/alive-dep`)).status).toBe(200);
  });
});

describe("garbage collection through the dependency graph", () => {
  const cm = (name: string, owners: Array<{ apiVersion: string; kind: string; name: string; uid: string; blockOwnerDeletion?: boolean }> = []) => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, ...(owners.length > 0 ? { ownerReferences: owners } : {}) },
  });
  const ownerRef = (name: string, uid: string, block = false) => ({ apiVersion: "v1", kind: "ConfigMap", name, uid, blockOwnerDeletion: block });

  it("deletes a dependent whose owner never existed", async () => {
    const r = await api.admin.post(base, cm("orphaned-from-birth", [ownerRef("never-was", "00000000-0000-0000-0000-000000000001")]));
    expect(r.status, r.text).toBe(201);
    expect((await eventually(() => api.admin.get(`${base}/orphaned-from-birth`), (x) => x.status === 404)).status).toBe(404);
  });

  it("deletes a dependent whose owner's name now belongs to another object (uid differs)", async () => {
    const first = (await api.admin.post(base, cm("reborn"))).json<CM>();
    expect((await api.admin.delete(`${base}/reborn?propagationPolicy=Orphan`)).status).toBe(200);
    await eventually(() => api.admin.get(`${base}/reborn`), (x) => x.status === 404);
    await api.admin.post(base, cm("reborn"));
    await api.admin.post(base, cm("reborn-dep", [ownerRef("reborn", first.metadata.uid)]));
    expect((await eventually(() => api.admin.get(`${base}/reborn-dep`), (x) => x.status === 404)).status).toBe(404);
    expect((await api.admin.get(`${base}/reborn`)).status).toBe(200);
  });

  it("a dependent with one live owner loses only the reference to the deleted one", async () => {
    const a = (await api.admin.post(base, cm("two-a"))).json<CM>();
    const b = (await api.admin.post(base, cm("two-b"))).json<CM>();
    await api.admin.post(base, cm("two-dep", [ownerRef("two-a", a.metadata.uid), ownerRef("two-b", b.metadata.uid)]));
    expect((await api.admin.delete(`${base}/two-a`)).status).toBe(200);
    const dep = await eventually(() => api.admin.get(`${base}/two-dep`), (x) => (x.json<CM>().metadata.ownerReferences ?? []).length === 1);
    expect(dep.status).toBe(200);
    expect(dep.json<CM>().metadata.ownerReferences?.map((r) => r.uid)).toEqual([b.metadata.uid]);
  });

  it("foreground deletion goes down a chain: grandchildren, children, then the owner", async () => {
    const top = (await api.admin.post(base, cm("chain-top"))).json<CM>();
    const mid = (await api.admin.post(base, cm("chain-mid", [ownerRef("chain-top", top.metadata.uid, true)]))).json<CM>();
    await api.admin.post(base, cm("chain-leaf", [ownerRef("chain-mid", mid.metadata.uid, true)]));
    expect((await api.admin.delete(`${base}/chain-top?propagationPolicy=Foreground`)).status).toBe(200);
    expect((await eventually(() => api.admin.get(`${base}/chain-top`), (x) => x.status === 404)).status).toBe(404);
    expect((await api.admin.get(`${base}/chain-mid`)).status).toBe(404);
    expect((await api.admin.get(`${base}/chain-leaf`)).status).toBe(404);
  });

  it("orphan deletion keeps every dependent, across kinds, and removes only the owner", async () => {
    const owner = (await api.admin.post(base, cm("multi"))).json<CM>();
    for (let i = 0; i < 3; i++) await api.admin.post(base, cm(`multi-${i}`, [ownerRef("multi", owner.metadata.uid)]));
    const secret = await api.admin.post("/api/v1/namespaces/default/secrets", {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "multi-secret", ownerReferences: [ownerRef("multi", owner.metadata.uid)] },
    });
    expect(secret.status, secret.text).toBe(201);
    expect((await api.admin.delete(`${base}/multi?propagationPolicy=Orphan`)).status).toBe(200);
    expect((await eventually(() => api.admin.get(`${base}/multi`), (x) => x.status === 404)).status).toBe(404);
    for (let i = 0; i < 3; i++) {
      const d = await api.admin.get(`${base}/multi-${i}`);
      expect(d.status).toBe(200);
      expect(d.json<CM>().metadata.ownerReferences).toBeUndefined();
    }
    const s = await api.admin.get("/api/v1/namespaces/default/secrets/multi-secret");
    expect(s.status).toBe(200);
    expect(s.json<CM>().metadata.ownerReferences).toBeUndefined();
  });

  it("a namespaced dependent of a cluster-scoped owner goes when the owner goes", async () => {
    const ns = (await api.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "gc-owner-ns" } })).json<CM>();
    const dep = await api.admin.post(base, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "owned-by-ns", ownerReferences: [{ apiVersion: "v1", kind: "Namespace", name: "gc-owner-ns", uid: ns.metadata.uid }] } });
    expect(dep.status, dep.text).toBe(201);
    expect((await api.admin.delete("/api/v1/namespaces/gc-owner-ns")).status).toBe(200);
    expect((await eventually(() => api.admin.get(`${base}/owned-by-ns`), (x) => x.status === 404)).status).toBe(404);
  });
});

describe("garbage collection of custom resources", () => {
  it("follows a resource defined after it started: deleting a custom owner deletes its dependents", async () => {
    const crd = await api.admin.post(crdPath(api.profile), cronTabCrd(api.profile, { plural: "gcowners", kind: "GcOwner", singular: "gcowner" }));
    expect(crd.status, crd.text).toBe(201);
    const crs = `/apis/${CRD_GROUP}/v1/namespaces/default/gcowners`;
    await waitServed(api.admin, crs);
    const owner = await api.admin.post(crs, { apiVersion: `${CRD_GROUP}/v1`, kind: "GcOwner", metadata: { name: "boss" }, spec: { cronSpec: "* * * * *" } });
    expect(owner.status, owner.text).toBe(201);
    const uid = owner.json<CM>().metadata.uid;
    const dep = await api.admin.post(base, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "boss-dep", ownerReferences: [{ apiVersion: `${CRD_GROUP}/v1`, kind: "GcOwner", name: "boss", uid }] } });
    expect(dep.status, dep.text).toBe(201);
    await new Promise((r) => setTimeout(r, 500));
    expect((await api.admin.get(`${base}/boss-dep`)).status).toBe(200);
    expect((await api.admin.delete(`${crs}/boss`)).status).toBe(200);
    expect((await eventually(() => api.admin.get(`${base}/boss-dep`), (x) => x.status === 404)).status).toBe(404);
  });

  it("never deletes a dependent whose owner kind no resource serves", async () => {
    const dep = await api.admin.post(base, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "unknown-kind-dep", ownerReferences: [{ apiVersion: "nowhere.example.com/v1", kind: "Ghost", name: "g", uid: "00000000-0000-0000-0000-00000000dead" }] } });
    expect(dep.status, dep.text).toBe(201);
    await new Promise((r) => setTimeout(r, 2000));
    expect((await api.admin.get(`${base}/unknown-kind-dep`)).status).toBe(200);
  });
});
