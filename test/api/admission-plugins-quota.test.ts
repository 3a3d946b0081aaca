/**
 * LimitRanger, ResourceQuota, DefaultStorageClass and DefaultIngressClass over
 * HTTPS. Quota usage is charged atomically: concurrent creates through two
 * replicas over one store never exceed `hard`, and `status.used` matches the
 * stored objects afterwards (also after deletes).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Replica } from "../../services/apiserver/server/replica.ts";
import { startSecondReplica, startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { HttpsClient } from "../support/https-client.ts";

let api: TestApiserver;
let second: Replica;
let admin2: HttpsClient;

beforeAll(async () => {
  api = await startTestApiserver();
  ({ replica: second, admin: admin2 } = await startSecondReplica(api));
  for (const ns of ["lr", "quota", "race", "classes"]) {
    const r = await api.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
    expect(r.status, r.text).toBe(201);
  }
});
afterAll(async () => {
  admin2?.close();
  await second?.close();
  await api?.close();
});

type Obj = Record<string, unknown>;
const pod = (name: string, resources?: Obj) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name },
  spec: { containers: [{ name: "app", image: "busybox", ...(resources ? { resources } : {}) }] },
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

describe("LimitRanger admission", () => {
  it("defaults container resources, annotates the pod and refuses values out of range", async () => {
    const lr = await api.admin.post("/api/v1/namespaces/lr/limitranges", {
      apiVersion: "v1",
      kind: "LimitRange",
      metadata: { name: "limits" },
      spec: { limits: [{ type: "Container", default: { cpu: "500m", memory: "128Mi" }, defaultRequest: { cpu: "100m" }, max: { cpu: "1" }, min: { cpu: "50m" } }] },
    });
    expect(lr.status, lr.text).toBe(201);
    const ok = await api.admin.post("/api/v1/namespaces/lr/pods", pod("a"));
    expect(ok.status, ok.text).toBe(201);
    const body = ok.json<{ metadata: { annotations: Record<string, string> }; spec: { containers: Array<{ resources: Obj }> } }>();
    expect(body.spec.containers[0].resources).toEqual({ limits: { cpu: "500m", memory: "128Mi" }, requests: { cpu: "100m", memory: "128Mi" } });
    expect(body.metadata.annotations[api.profile.admission.limitRanger]).toBe("LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit for container app");
    const big = await api.admin.post("/api/v1/namespaces/lr/pods", pod("b", { limits: { cpu: "2" }, requests: { cpu: "1" } }));
    expect(big.status).toBe(403);
    expect(big.json()).toMatchObject({ kind: "Status", reason: "Forbidden", code: 403, message: 'pods "b" is forbidden: maximum cpu usage per Container is 1, but limit is 2' });
    const both = await api.admin.post("/api/v1/namespaces/lr/pods", pod("c", { limits: { cpu: "2" }, requests: { cpu: "10m" } }));
    expect(both.status).toBe(403);
    expect(both.json<{ message: string }>().message).toBe(
      'pods "c" is forbidden: [minimum cpu usage per Container is 50m, but request is 10m, maximum cpu usage per Container is 1, but limit is 2]',
    );
  });
});

describe("ResourceQuota admission", () => {
  it("fills the status of a new quota, charges creates and refuses with the platform's message", async () => {
    await api.admin.post("/api/v1/namespaces/quota/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "before" } });
    const q = await api.admin.post("/api/v1/namespaces/quota/resourcequotas", {
      apiVersion: "v1",
      kind: "ResourceQuota",
      metadata: { name: "compute" },
      spec: { hard: { "requests.cpu": "1", "limits.cpu": "2", pods: "3", "count/configmaps": "2" } },
    });
    expect(q.status, q.text).toBe(201);
    const created = q.json<{ status: { hard: Obj; used: Obj } }>();
    expect(created.status.hard).toEqual({ "requests.cpu": "1", "limits.cpu": "2", pods: "3", "count/configmaps": "2" });
    expect(created.status.used).toEqual({ "count/configmaps": "1", "limits.cpu": "0", pods: "0", "requests.cpu": "0" });

    const missing = await api.admin.post("/api/v1/namespaces/quota/pods", pod("bare"));
    expect(missing.status).toBe(403);
    expect(missing.json<{ message: string }>().message).toBe('pods "bare" is forbidden: failed quota: compute: must specify limits.cpu for: app; requests.cpu for: app');

    const p1 = await api.admin.post("/api/v1/namespaces/quota/pods", pod("p1", { requests: { cpu: "600m" }, limits: { cpu: "1" } }));
    expect(p1.status, p1.text).toBe(201);
    const p2 = await api.admin.post("/api/v1/namespaces/quota/pods", pod("p2", { requests: { cpu: "500m" }, limits: { cpu: "1" } }));
    expect(p2.status).toBe(403);
    expect(p2.json()).toMatchObject({
      kind: "Status",
      reason: "Forbidden",
      code: 403,
      message: 'pods "p2" is forbidden: exceeded quota: compute, requested: requests.cpu=500m, used: requests.cpu=600m, limited: requests.cpu=1',
    });
    const dry = await api.admin.post("/api/v1/namespaces/quota/configmaps?dryRun=All", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "dry" } });
    expect(dry.status, dry.text).toBe(201);
    const cm = await api.admin.post("/api/v1/namespaces/quota/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "second" } });
    expect(cm.status, cm.text).toBe(201);
    const third = await api.admin.post("/api/v1/namespaces/quota/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "third" } });
    expect(third.status).toBe(403);
    expect(third.json<{ message: string }>().message).toBe(
      'configmaps "third" is forbidden: exceeded quota: compute, requested: count/configmaps=1, used: count/configmaps=2, limited: count/configmaps=2',
    );
    const status = await api.admin.get("/api/v1/namespaces/quota/resourcequotas/compute");
    expect(status.json<{ status: { used: Obj } }>().status.used).toEqual({ "count/configmaps": "2", "limits.cpu": "1", pods: "1", "requests.cpu": "600m" });

    const del = await api.admin.delete("/api/v1/namespaces/quota/configmaps/before");
    expect(del.status).toBe(200);
    const after = await eventually(
      () => api.admin.get("/api/v1/namespaces/quota/resourcequotas/compute"),
      (r) => r.json<{ status: { used: Obj } }>().status.used["count/configmaps"] === "1",
    );
    expect(after.json<{ status: { used: Obj } }>().status.used["count/configmaps"]).toBe("1");
  });

  it("admits exactly `hard` objects from concurrent creates through two replicas", async () => {
    const q = await api.admin.post("/api/v1/namespaces/race/resourcequotas", {
      apiVersion: "v1",
      kind: "ResourceQuota",
      metadata: { name: "few" },
      spec: { hard: { "count/configmaps": "5" } },
    });
    expect(q.status, q.text).toBe(201);
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        (i % 2 === 0 ? api.admin : admin2).post("/api/v1/namespaces/race/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `c${i}` } }),
      ),
    );
    const codes = results.map((r) => r.status);
    expect(codes.filter((c) => c === 201)).toHaveLength(5);
    expect(codes.filter((c) => c === 403)).toHaveLength(19);
    for (const r of results.filter((x) => x.status === 403)) expect(r.json<{ message: string }>().message).toContain("exceeded quota: few, requested: count/configmaps=1, used: count/configmaps=5, limited: count/configmaps=5");
    const list = await api.admin.get("/api/v1/namespaces/race/configmaps");
    expect(list.json<{ items: unknown[] }>().items).toHaveLength(5);
    const status = await admin2.get("/api/v1/namespaces/race/resourcequotas/few");
    expect(status.json<{ status: { used: Obj } }>().status.used).toEqual({ "count/configmaps": "5" });
  });
});

describe("DefaultStorageClass and DefaultIngressClass admission", () => {
  it("give claims and ingresses the default class", async () => {
    const sg = api.profile.group("storage");
    const ng = api.profile.group("networking");
    const sc = await api.admin.post(`/apis/${sg}/v1/storageclasses`, {
      apiVersion: `${sg}/v1`,
      kind: "StorageClass",
      metadata: { name: "standard", annotations: { [api.profile.admission.defaultStorageClass]: "true" } },
      provisioner: "example/disk",
    });
    expect(sc.status, sc.text).toBe(201);
    const claim = (name: string, extra: Obj = {}) => ({
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: { name },
      spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } }, ...extra },
    });
    const c1 = await api.admin.post("/api/v1/namespaces/classes/persistentvolumeclaims", claim("c1"));
    expect(c1.status, c1.text).toBe(201);
    expect(c1.json<{ spec: Obj }>().spec.storageClassName).toBe("standard");
    const c2 = await api.admin.post("/api/v1/namespaces/classes/persistentvolumeclaims", claim("c2", { storageClassName: "" }));
    expect(c2.json<{ spec: Obj }>().spec.storageClassName).toBe("");

    const ic = await api.admin.post(`/apis/${ng}/v1/ingressclasses`, {
      apiVersion: `${ng}/v1`,
      kind: "IngressClass",
      metadata: { name: "edge", annotations: { [api.profile.admission.defaultIngressClass]: "true" } },
      spec: { controller: "example/edge" },
    });
    expect(ic.status, ic.text).toBe(201);
    const ing = await api.admin.post(`/apis/${ng}/v1/namespaces/classes/ingresses`, {
      apiVersion: `${ng}/v1`,
      kind: "Ingress",
      metadata: { name: "web" },
      spec: { defaultBackend: { service: { name: "web", port: { number: 80 } } } },
    });
    expect(ing.status, ing.text).toBe(201);
    expect(ing.json<{ spec: Obj }>().spec.ingressClassName).toBe("edge");
  });
});
