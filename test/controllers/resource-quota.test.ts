/**
 * The resource quota controller in a real controller-manager process over HTTPS:
 * `status.hard` follows `spec.hard`, `status.used` counts the namespace's pods,
 * CPU and memory requests, services and node ports, config maps and secrets; a
 * drifted `status.used` (written by hand) is put right; a finished pod and a deleted
 * config map are released.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { eventually, startControllerManager, stopAll, writeAdminKubeconfig } from "./support.ts";

const NS = "quota-ns";
let api: TestApiserver;

beforeAll(async () => {
  api = await startTestApiserver();
  const kubeconfig = await writeAdminKubeconfig(api);
  const cm = await startControllerManager(kubeconfig, "plat", ["--leader-elect=false", "--controllers", "resourcequota"]);
  expect(await eventually(async () => cm.output().includes("controller manager running"), 30_000), cm.output()).toBe(true);
});
afterAll(async () => {
  stopAll();
  await api?.close();
});

const path = `/api/v1/namespaces/${NS}/resourcequotas/q`;
async function used(): Promise<Record<string, string> | undefined> {
  const r = await api.admin.get(path);
  return r.status === 200 ? r.json<{ status?: { used?: Record<string, string> } }>().status?.used : undefined;
}
const pod = (name: string, cpu: string, memory: string) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name },
  spec: { containers: [{ name: "c", image: "busybox", resources: { requests: { cpu, memory }, limits: { cpu, memory } } }] },
});
async function create(resource: string, body: object): Promise<void> {
  const r = await api.admin.post(`/api/v1/namespaces/${NS}/${resource}`, body);
  expect(r.status, r.text).toBe(201);
}

describe("resource quota status", () => {
  it("computes status.used, repairs drift and releases deleted objects", async () => {
    expect((await api.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } })).status).toBe(201);
    const hard = { pods: "10", "requests.cpu": "4", "requests.memory": "4Gi", services: "5", "services.nodeports": "4", configmaps: "10", "count/secrets": "10" };
    await create("resourcequotas", { apiVersion: "v1", kind: "ResourceQuota", metadata: { name: "q" }, spec: { hard } });
    await create("pods", pod("p1", "500m", "256Mi"));
    await create("pods", pod("p2", "1", "1Gi"));
    await create("services", { apiVersion: "v1", kind: "Service", metadata: { name: "s1" }, spec: { type: "NodePort", ports: [{ name: "http", port: 80 }, { name: "https", port: 443 }] } });
    await create("configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c1" } });
    await create("secrets", { apiVersion: "v1", kind: "Secret", metadata: { name: "x1" } });
    const want = { pods: "2", "requests.cpu": "1500m", "requests.memory": "1280Mi", services: "1", "services.nodeports": "2", configmaps: "1", "count/secrets": "1" };
    expect(await eventually(async () => JSON.stringify(Object.entries((await used()) ?? {}).sort()) === JSON.stringify(Object.entries(want).sort()), 15_000), JSON.stringify(await used())).toBe(true);
    const q = (await api.admin.get(path)).json<{ status: { hard: Record<string, string> } }>();
    expect(q.status.hard).toEqual(hard);

    // Drift: a wrong status.used written by hand is recalculated.
    const current = (await api.admin.get(path)).json<Record<string, unknown>>();
    const r = await api.admin.request("PUT", `${path}/status`, { body: { ...current, status: { hard, used: { ...want, pods: "9", "requests.cpu": "3" } } } });
    expect(r.status, r.text).toBe(200);
    expect(await eventually(async () => (await used())?.pods === "2" && (await used())?.["requests.cpu"] === "1500m", 15_000)).toBe(true);

    // A finished pod and a deleted config map are released.
    const p2 = (await api.admin.get(`/api/v1/namespaces/${NS}/pods/p2`)).json<Record<string, unknown>>();
    const done = await api.admin.request("PUT", `/api/v1/namespaces/${NS}/pods/p2/status`, { body: { ...p2, status: { phase: "Succeeded" } } });
    expect(done.status, done.text).toBe(200);
    expect((await api.admin.delete(`/api/v1/namespaces/${NS}/configmaps/c1`)).status).toBe(200);
    const released = { ...want, pods: "1", "requests.cpu": "500m", "requests.memory": "256Mi", configmaps: "0" };
    expect(await eventually(async () => JSON.stringify(Object.entries((await used()) ?? {}).sort()) === JSON.stringify(Object.entries(released).sort()), 15_000), JSON.stringify(await used())).toBe(true);
  });
});
