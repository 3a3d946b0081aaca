import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

let api: TestApiserver;
beforeAll(async () => {
  api = await startTestApiserver();
});
afterAll(async () => {
  await api?.close();
});

const cm = (name: string, data: Record<string, string> = { a: "1" }) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data });

describe("resource CRUD over HTTPS", () => {
  it("creates, gets, updates and deletes a config map", async () => {
    const created = await api.admin.post("/api/v1/namespaces/default/configmaps", cm("one"));
    expect(created.status, created.text).toBe(201);
    const obj = created.json<{ metadata: { uid: string; resourceVersion: string; creationTimestamp: string } }>();
    expect(obj.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(obj.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const got = await api.admin.get("/api/v1/namespaces/default/configmaps/one");
    expect(got.status).toBe(200);
    expect(got.json<{ data: Record<string, string> }>().data).toEqual({ a: "1" });
    const updated = await api.admin.put("/api/v1/namespaces/default/configmaps/one", { ...cm("one", { a: "2" }), metadata: { name: "one", resourceVersion: obj.metadata.resourceVersion } });
    expect(updated.status, updated.text).toBe(200);
    const stale = await api.admin.put("/api/v1/namespaces/default/configmaps/one", { ...cm("one", { a: "3" }), metadata: { name: "one", resourceVersion: obj.metadata.resourceVersion } });
    expect(stale.status).toBe(409);
    expect(stale.json<{ reason: string }>().reason).toBe("Conflict");
    const del = await api.admin.delete("/api/v1/namespaces/default/configmaps/one");
    expect(del.status).toBe(200);
    const gone = await api.admin.get("/api/v1/namespaces/default/configmaps/one");
    expect(gone.status).toBe(404);
    expect(gone.json()).toMatchObject({ kind: "Status", status: "Failure", reason: "NotFound", message: 'configmaps "one" not found', code: 404 });
  });

  it("creates a deployment with the platform's defaults and rejects an invalid one with field paths", async () => {
    const dep = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web" },
      spec: {
        selector: { matchLabels: { app: "web" } },
        template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "nginx", image: "nginx:1.27" }] } },
      },
    };
    const res = await api.admin.post("/apis/apps/v1/namespaces/default/deployments", dep);
    expect(res.status, res.text).toBe(201);
    const body = res.json<{ spec: Record<string, unknown> & { template: { spec: { containers: Array<Record<string, unknown>> } } } }>();
    expect(body.spec.replicas).toBe(1);
    expect(body.spec.progressDeadlineSeconds).toBe(600);
    expect(body.spec.revisionHistoryLimit).toBe(10);
    expect(body.spec.strategy).toEqual({ type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" } });
    expect(body.spec.template.spec.containers[0].imagePullPolicy).toBe("IfNotPresent");
    const bad = await api.admin.post("/apis/apps/v1/namespaces/default/deployments", {
      ...dep,
      metadata: { name: "Bad_Name" },
      spec: { ...dep.spec, template: { ...dep.spec.template, spec: { containers: [{ name: "nginx" }] } } },
    });
    expect(bad.status).toBe(422);
    const status = bad.json<{ reason: string; details: { causes: Array<{ field: string }> } }>();
    expect(status.reason).toBe("Invalid");
    const fields = status.details.causes.map((c) => c.field);
    expect(fields).toContain("metadata.name");
    expect(fields).toContain("spec.template.spec.containers[0].image");
  });

  it("rejects unknown fields in Strict mode with 400 and warns by default", async () => {
    const body = { ...cm("strict"), spec: { nope: 1 } };
    const strict = await api.admin.post("/api/v1/namespaces/default/configmaps?fieldValidation=Strict", body);
    expect(strict.status).toBe(400);
    expect(strict.json<{ message: string }>().message).toContain('unknown field "spec"');
    const warn = await api.admin.post("/api/v1/namespaces/default/configmaps", body);
    expect(warn.status).toBe(201);
    expect(String(warn.headers.warning)).toContain('unknown field \\"spec\\"');
  });

  it("refuses objects in a missing namespace and a namespace mismatch", async () => {
    const missing = await api.admin.post("/api/v1/namespaces/nope/configmaps", cm("x"));
    expect(missing.status).toBe(404);
    const mismatch = await api.admin.post("/api/v1/namespaces/default/configmaps", { ...cm("x"), metadata: { name: "x", namespace: "other" } });
    expect(mismatch.status).toBe(400);
  });

  it("answers malformed bodies and wrong kinds with Status errors and stores nothing", async () => {
    const malformed = await api.admin.request("POST", "/api/v1/namespaces/default/configmaps", { raw: "{not json", headers: { "content-type": "application/json" } });
    expect(malformed.status).toBe(400);
    expect(malformed.json()).toMatchObject({ kind: "Status", code: 400 });
    const wrongKind = await api.admin.post("/api/v1/namespaces/default/configmaps", { apiVersion: "v1", kind: "Secret", metadata: { name: "wk" } });
    expect(wrongKind.status).toBe(400);
    const wrongVersion = await api.admin.post("/api/v1/namespaces/default/configmaps", { apiVersion: "apps/v1", kind: "ConfigMap", metadata: { name: "wv" } });
    expect(wrongVersion.status).toBe(400);
    const nameMismatch = await api.admin.put("/api/v1/namespaces/default/configmaps/a", cm("b"));
    expect(nameMismatch.status).toBe(400);
    const big = await api.admin.post("/api/v1/namespaces/default/configmaps", cm("big", { a: "x".repeat(4 * 1024 * 1024) }));
    expect(big.status).toBe(413);
    const list = await api.admin.get("/api/v1/namespaces/default/configmaps");
    const names = list.json<{ items: Array<{ metadata: { name: string } }> }>().items.map((i) => i.metadata.name);
    expect(names).not.toContain("wk");
    expect(names).not.toContain("big");
  });

  it("keeps an object with finalizers until the last one is removed", async () => {
    const created = await api.admin.post("/api/v1/namespaces/default/configmaps", { ...cm("fin"), metadata: { name: "fin", finalizers: ["example.com/hold"] } });
    expect(created.status).toBe(201);
    const del = await api.admin.delete("/api/v1/namespaces/default/configmaps/fin");
    expect(del.status).toBe(200);
    const terminating = await api.admin.get("/api/v1/namespaces/default/configmaps/fin");
    expect(terminating.json<{ metadata: { deletionTimestamp?: string } }>().metadata.deletionTimestamp).toBeTruthy();
    const patched = await api.admin.patch("/api/v1/namespaces/default/configmaps/fin", { metadata: { finalizers: null } }, "application/merge-patch+json");
    expect(patched.status, patched.text).toBe(200);
    const gone = await api.admin.get("/api/v1/namespaces/default/configmaps/fin");
    expect(gone.status).toBe(404);
  });

  it("generates names from generateName", async () => {
    const res = await api.admin.post("/api/v1/namespaces/default/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { generateName: "gen-" } });
    expect(res.status).toBe(201);
    expect(res.json<{ metadata: { name: string } }>().metadata.name).toMatch(/^gen-[a-z0-9]{5}$/);
  });
});

describe("DELETE from the cached object", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });
  const path = (name: string) => `/api/v1/namespaces/default/configmaps/${name}`;
  const key = (name: string) => `/registry/core/configmaps/default/${name}`;
  /** A DELETE with DeleteOptions, sent with its length as clients send it. */
  const deleteWith = (p: string, body: unknown) => {
    const raw = JSON.stringify(body);
    return api.admin.request("DELETE", p, { raw, headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(raw)) } });
  };
  const keyed = (calls: unknown[][], name: string) => calls.filter((c) => c[0] === key(name) || JSON.stringify(c).includes(key(name))).length;

  it("removes an object that goes at once with one store txn and no read before it", async () => {
    expect((await api.admin.post("/api/v1/namespaces/default/configmaps", cm("quick"))).status).toBe(201);
    expect((await api.admin.get(path("quick"))).status).toBe(200); // the cache has it
    const revisions = vi.spyOn(api.kv, "currentRevision");
    const ranges = vi.spyOn(api.kv, "range");
    const txns = vi.spyOn(api.kv, "txn");
    const del = await api.admin.delete(path("quick"));
    expect(del.status, del.text).toBe(200);
    expect(revisions).not.toHaveBeenCalled();
    expect(keyed(ranges.mock.calls, "quick")).toBe(0);
    expect(keyed(txns.mock.calls, "quick")).toBe(1);
    expect((await api.admin.get(path("quick"))).status).toBe(404);
  });

  it("checks a uid precondition against the object and keeps it on a mismatch", async () => {
    expect((await api.admin.post("/api/v1/namespaces/default/configmaps", cm("pre"))).status).toBe(201);
    const uid = (await api.admin.get(path("pre"))).json<{ metadata: { uid: string } }>().metadata.uid;
    const wrong = await deleteWith(path("pre"), { apiVersion: "v1", kind: "DeleteOptions", preconditions: { uid: "not-this-one" } });
    expect(wrong.status).toBe(409);
    expect(wrong.json<{ message: string }>().message).toBe(`Operation cannot be fulfilled on configmaps "pre": Precondition failed: UID in precondition: not-this-one, UID in object meta: ${uid}`);
    expect((await api.admin.get(path("pre"))).status).toBe(200);
    expect((await deleteWith(path("pre"), { apiVersion: "v1", kind: "DeleteOptions", preconditions: { uid } })).status).toBe(200);
  });

  it("decides on the stored object when the cached one is behind it: a finalizer added meanwhile keeps the object", async () => {
    expect((await api.admin.post("/api/v1/namespaces/default/configmaps", cm("behind"))).status).toBe(201);
    const before = structuredClone(api.replica.cache.getObject(key("behind")));
    expect(before).toBeDefined();
    const patched = await api.admin.patch(path("behind"), { metadata: { finalizers: ["example.com/hold"] } }, "application/merge-patch+json");
    expect(patched.status, patched.text).toBe(200);
    // The cache lags for the delete's first look: it still shows the object without the finalizer.
    const getObject = api.replica.cache.getObject.bind(api.replica.cache);
    let looks = 0;
    const lagging = vi.spyOn(api.replica.cache, "getObject").mockImplementation((k) => (k === key("behind") && looks++ === 0 ? before : getObject(k)));
    const del = await api.admin.delete(path("behind"));
    expect(del.status, del.text).toBe(200);
    expect(lagging).toHaveBeenCalled();
    vi.restoreAllMocks();
    const kept = await api.admin.get(path("behind"));
    expect(kept.status).toBe(200);
    expect(kept.json<{ metadata: { deletionTimestamp?: string; finalizers?: string[] } }>().metadata).toMatchObject({ finalizers: ["example.com/hold"], deletionTimestamp: expect.any(String) });
    expect((await api.admin.patch(path("behind"), { metadata: { finalizers: null } }, "application/merge-patch+json")).status).toBe(200);
    expect((await api.admin.get(path("behind"))).status).toBe(404);
  });
});

describe("discovery", () => {
  it("lists the core resources and groups", async () => {
    const core = await api.admin.get("/api/v1");
    expect(core.status).toBe(200);
    const resources = core.json<{ resources: Array<{ name: string; namespaced: boolean; kind: string; verbs: string[]; shortNames?: string[] }> }>().resources;
    const pods = resources.find((r) => r.name === "pods");
    expect(pods).toMatchObject({ namespaced: true, kind: "Pod", shortNames: ["po"] });
    expect(resources.find((r) => r.name === "pods/status")?.verbs).toEqual(["get", "patch", "update"]);
    const groups = await api.admin.get("/apis");
    const names = groups.json<{ groups: Array<{ name: string }> }>().groups.map((g) => g.name);
    expect(names).toContain("apps");
    expect(names).toContain(api.profile.group("rbac"));
    const version = await api.admin.get("/version");
    expect(version.json<{ major: string }>().major).toBe("1");
  });
});

describe("metrics", () => {
  it("exposes the platform's request metrics with stability classes", async () => {
    await api.admin.get("/api/v1/namespaces/default/configmaps");
    const res = await api.admin.get("/metrics");
    expect(res.status).toBe(200);
    expect(res.text).toContain("# HELP apiserver_request_total [STABLE]");
    expect(res.text).toMatch(/apiserver_request_total\{verb="LIST",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver",code="200"\} \d+/);
    expect(res.text).toContain("apiserver_request_duration_seconds_bucket");
  });
});

describe("graceful deletion of pods", () => {
  const pod = (name: string, nodeName?: string) => ({ apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: "c", image: "nginx:1.27" }] } });

  it("removes an unscheduled pod at once and keeps a bound one until its grace period is cut to zero", async () => {
    expect((await api.admin.post("/api/v1/namespaces/default/pods", pod("loose"))).status).toBe(201);
    expect((await api.admin.delete("/api/v1/namespaces/default/pods/loose")).status).toBe(200);
    expect((await api.admin.get("/api/v1/namespaces/default/pods/loose")).status).toBe(404);

    expect((await api.admin.post("/api/v1/namespaces/default/pods", pod("bound", "node-a"))).status).toBe(201);
    const del = await api.admin.delete("/api/v1/namespaces/default/pods/bound");
    expect(del.json<{ metadata: { deletionGracePeriodSeconds: number; deletionTimestamp: string } }>().metadata).toMatchObject({ deletionGracePeriodSeconds: 30 });
    expect((await api.admin.get("/api/v1/namespaces/default/pods/bound")).status).toBe(200);
    expect((await api.admin.delete("/api/v1/namespaces/default/pods/bound?gracePeriodSeconds=0")).status).toBe(200);
    expect((await api.admin.get("/api/v1/namespaces/default/pods/bound")).status).toBe(404);
  });
});

describe("deletecollection over HTTPS", () => {
  const base = "/api/v1/namespaces/default/configmaps";
  const names = async (q: string) => (await api.admin.get(`${base}?${q}`)).json<{ items: Array<{ metadata: { name: string } }> }>().items.map((i) => i.metadata.name);
  const deleted = (r: { status: number; text: string; json<T>(): T }) => {
    expect(r.status, r.text).toBe(200);
    const list = r.json<{ kind: string; items: Array<{ metadata: { name: string } }> }>();
    expect(list.kind).toBe("ConfigMapList");
    return list.items.map((i) => i.metadata.name).sort();
  };

  it("deletes what the label and field selectors pick; dry run deletes nothing; a large collection goes whole", async () => {
    const N = 150;
    for (let i = 0; i < N; i += 75) {
      const batch = Array.from({ length: Math.min(75, N - i) }, (_, k) => i + k);
      const made = await Promise.all(batch.map((n) => api.admin.post(base, { ...cm(`dc-${n}`), metadata: { name: `dc-${n}`, labels: { suite: "dc", tier: n % 3 === 0 ? "a" : "b" } } })));
      for (const r of made) expect(r.status, r.text).toBe(201);
    }
    const tierA = Array.from({ length: N }, (_, n) => n).filter((n) => n % 3 === 0).map((n) => `dc-${n}`).sort();
    expect(deleted(await api.admin.delete(`${base}?labelSelector=suite%3Ddc,tier%3Da&dryRun=All`))).toEqual(tierA);
    expect(await names("labelSelector=suite%3Ddc")).toHaveLength(N);
    expect(deleted(await api.admin.delete(`${base}?labelSelector=suite%3Ddc&fieldSelector=metadata.name%3Ddc-1`))).toEqual(["dc-1"]);
    expect(deleted(await api.admin.delete(`${base}?labelSelector=suite%3Ddc,tier%3Da`))).toEqual(tierA);
    expect(await names("labelSelector=suite%3Ddc,tier%3Da")).toEqual([]);
    expect(await names("labelSelector=suite%3Ddc")).toHaveLength(N - tierA.length - 1);
    expect(deleted(await api.admin.delete(`${base}?labelSelector=suite%3Ddc`))).toHaveLength(N - tierA.length - 1);
    expect(await names("labelSelector=suite%3Ddc")).toEqual([]);
    const bad = await api.admin.delete(`${base}?labelSelector=suite%3D%3D%3Ddc`);
    expect(bad.status).toBe(400);
    expect(bad.json()).toMatchObject({ kind: "Status", reason: "BadRequest" });
  });
});
