/**
 * The disruption controller in a real controller-manager process over HTTPS: a
 * minAvailable budget counts the Ready pods its selector picks (disruptionsAllowed,
 * DisruptionAllowed SufficientPods / InsufficientPods as pods turn unready); a
 * maxUnavailable budget takes expectedPods from the scale of the pods' ReplicaSet;
 * policy/v1 selectors: an empty selector picks every pod, an unset one none; a pod an
 * eviction recorded in status.disruptedPods is not counted healthy until it terminates.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { eventually, startControllerManager, stopAll, writeAdminKubeconfig } from "./support.ts";

const NS = "pdb-ns";
let api: TestApiserver;
let policy: string;
type Obj = Record<string, unknown>;
interface PdbStatus {
  currentHealthy?: number;
  desiredHealthy?: number;
  disruptionsAllowed?: number;
  expectedPods?: number;
  observedGeneration?: number;
  disruptedPods?: Record<string, string>;
  conditions?: Array<{ type: string; status: string; reason: string }>;
}

beforeAll(async () => {
  api = await startTestApiserver();
  policy = api.profile.group("policy");
  const kubeconfig = await writeAdminKubeconfig(api);
  const cm = await startControllerManager(kubeconfig, "plat", ["--leader-elect=false", "--controllers", "disruption"]);
  expect(await eventually(async () => cm.output().includes("controller manager running"), 30_000), cm.output()).toBe(true);
  expect((await api.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } })).status).toBe(201);
});
afterAll(async () => {
  stopAll();
  await api?.close();
});

async function must(path: string, body: Obj): Promise<Obj> {
  const r = await api.admin.post(path, body);
  expect(r.status, r.text).toBe(201);
  return r.json<Obj>();
}

async function setReady(name: string, ready: boolean): Promise<void> {
  const pod = (await api.admin.get(`/api/v1/namespaces/${NS}/pods/${name}`)).json<Obj>();
  const t = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
  const r = await api.admin.request("PUT", `/api/v1/namespaces/${NS}/pods/${name}/status`, { body: { ...pod, status: { phase: "Running", conditions: [{ type: "Ready", status: ready ? "True" : "False", lastTransitionTime: t }] } } });
  expect(r.status, r.text).toBe(200);
}

async function pod(name: string, labels: Record<string, string>, owner?: Obj): Promise<void> {
  await must(`/api/v1/namespaces/${NS}/pods`, { apiVersion: "v1", kind: "Pod", metadata: { name, labels, ...(owner ? { ownerReferences: [owner] } : {}) }, spec: { containers: [{ name: "c", image: "busybox" }] } });
  await setReady(name, true);
}

async function pdb(name: string, spec: Obj): Promise<void> {
  await must(`/apis/${policy}/v1/namespaces/${NS}/poddisruptionbudgets`, { apiVersion: `${policy}/v1`, kind: "PodDisruptionBudget", metadata: { name }, spec });
}

async function status(name: string): Promise<PdbStatus> {
  return (await api.admin.get(`/apis/${policy}/v1/namespaces/${NS}/poddisruptionbudgets/${name}`)).json<{ status?: PdbStatus }>().status ?? {};
}

async function statusBecomes(name: string, want: Partial<PdbStatus>, reason: string): Promise<PdbStatus> {
  const got = await eventually(async () => {
    const s = await status(name);
    const ok = Object.entries(want).every(([k, v]) => s[k as keyof PdbStatus] === v) && s.conditions?.[0]?.reason === reason;
    return ok ? s : undefined;
  }, 15_000);
  expect(got, JSON.stringify(await status(name))).toBeDefined();
  return got as PdbStatus;
}

describe("PodDisruptionBudget status", () => {
  it("minAvailable counts Ready picked pods and follows readiness", async () => {
    for (const n of ["web-1", "web-2", "web-3"]) await pod(n, { app: "web" });
    await pod("other", { app: "db" });
    await pdb("web-min", { minAvailable: 2, selector: { matchLabels: { app: "web" } } });
    const s = await statusBecomes("web-min", { currentHealthy: 3, desiredHealthy: 2, expectedPods: 3, disruptionsAllowed: 1 }, "SufficientPods");
    expect(s.conditions?.[0]).toMatchObject({ type: "DisruptionAllowed", status: "True" });
    expect(s.observedGeneration).toBe(1);
    await setReady("web-2", false);
    const after = await statusBecomes("web-min", { currentHealthy: 2, disruptionsAllowed: 0 }, "InsufficientPods");
    expect(after.conditions?.[0].status).toBe("False");
  });

  it("empty selector picks every pod of the namespace, an unset selector none", async () => {
    await pdb("all", { minAvailable: 1, selector: {} });
    await pdb("none", { minAvailable: 1 });
    await statusBecomes("all", { expectedPods: 4, currentHealthy: 3, disruptionsAllowed: 2 }, "SufficientPods");
    await statusBecomes("none", { expectedPods: 0, currentHealthy: 0, disruptionsAllowed: 0 }, "InsufficientPods");
  });

  it("maxUnavailable takes expectedPods from the ReplicaSet's scale", async () => {
    const apps = api.profile.group("apps");
    const labels = { app: "api" };
    const rs = await must(`/apis/${apps}/v1/namespaces/${NS}/replicasets`, {
      apiVersion: `${apps}/v1`,
      kind: "ReplicaSet",
      metadata: { name: "api-rs" },
      spec: { replicas: 4, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: "c", image: "busybox" }] } } },
    });
    const owner = { apiVersion: `${apps}/v1`, kind: "ReplicaSet", name: "api-rs", uid: (rs.metadata as { uid: string }).uid, controller: true };
    for (const n of ["api-1", "api-2", "api-3"]) await pod(n, labels, owner);
    await pdb("api-max", { maxUnavailable: "25%", selector: { matchLabels: labels } });
    await statusBecomes("api-max", { expectedPods: 4, desiredHealthy: 3, currentHealthy: 3, disruptionsAllowed: 0 }, "InsufficientPods");
    await pod("api-4", labels, owner);
    await statusBecomes("api-max", { expectedPods: 4, currentHealthy: 4, disruptionsAllowed: 1 }, "SufficientPods");
  });

  it("a pod recorded in disruptedPods by an eviction is not healthy until it terminates", async () => {
    for (const n of ["cache-1", "cache-2"]) await pod(n, { app: "cache" });
    await pdb("cache-min", { minAvailable: 1, selector: { matchLabels: { app: "cache" } } });
    await statusBecomes("cache-min", { currentHealthy: 2, disruptionsAllowed: 1 }, "SufficientPods");
    // What an eviction writes before it deletes the pod: one disruption spent, the pod recorded.
    const path = `/apis/${policy}/v1/namespaces/${NS}/poddisruptionbudgets/cache-min`;
    const budget = (await api.admin.get(path)).json<Obj & { status: PdbStatus }>();
    const spent = await api.admin.request("PUT", `${path}/status`, {
      body: { ...budget, status: { ...budget.status, disruptionsAllowed: 0, disruptedPods: { "cache-1": new Date().toISOString().replace(/\.\d{3}Z$/, "Z") } } },
    });
    expect(spent.status, spent.text).toBe(200);
    // A pod event makes the controller sync the budget while cache-1 still runs: it must not hand the disruption back.
    await setReady("cache-2", true);
    const held = await statusBecomes("cache-min", { currentHealthy: 1, disruptionsAllowed: 0 }, "InsufficientPods");
    expect(Object.keys(held.disruptedPods ?? {})).toEqual(["cache-1"]);
    // Once the evicted pod is gone the record is confirmed and dropped.
    expect((await api.admin.request("DELETE", `/api/v1/namespaces/${NS}/pods/cache-1`)).status).toBe(200);
    const confirmed = await statusBecomes("cache-min", { currentHealthy: 1, disruptionsAllowed: 0, expectedPods: 1 }, "InsufficientPods");
    expect(confirmed.disruptedPods).toBeUndefined();
  });
});
