import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { startTestControllers, type TestControllers } from "../support/controllers.ts";

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
