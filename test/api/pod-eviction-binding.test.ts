/**
 * Pod actions over HTTPS against a real replica: `pods/{name}/binding` and `bindings`
 * set `spec.nodeName` once (409 on a second binding, 422 on a bad target, dry run
 * stores nothing); `pods/{name}/eviction` deletes the pod when no budget covers it,
 * spends a PodDisruptionBudget's `disruptionsAllowed` (recording the pod in
 * `disruptedPods`), and refuses with the platform's 429 and DisruptionBudget cause
 * when the budget is exhausted or not yet observed, 500 for two budgets.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

const NS = "evictions";
const pods = `/api/v1/namespaces/${NS}/pods`;
let api: TestApiserver;
let pdbs: string;

interface StatusBody {
  kind: string;
  status: string;
  message?: string;
  reason?: string;
  code: number;
  details?: { causes?: Array<{ reason?: string; message?: string }> };
}
interface PodBody {
  metadata: { resourceVersion: string; uid: string; deletionTimestamp?: string; annotations?: Record<string, string> };
  spec: { nodeName?: string };
  status?: { conditions?: Array<{ type: string; status: string }> };
}

async function makePod(name: string, labels: Record<string, string>, phase?: "Running" | "Pending", ready = true): Promise<PodBody> {
  const res = await api.admin.post(pods, { apiVersion: "v1", kind: "Pod", metadata: { name, labels }, spec: { containers: [{ name: "c", image: "busybox:1.36" }] } });
  expect(res.status, res.text).toBe(201);
  const pod = res.json<PodBody & { metadata: { name: string } }>();
  if (!phase) return pod;
  const conditions = phase === "Running" ? [{ type: "Ready", status: ready ? "True" : "False" }] : [];
  const st = await api.admin.put(`${pods}/${name}/status`, { ...pod, status: { phase, conditions } });
  expect(st.status, st.text).toBe(200);
  return st.json<PodBody>();
}

async function makeBudget(name: string, app: string, status: { disruptionsAllowed: number; currentHealthy?: number; desiredHealthy?: number; observed?: boolean }, policy?: string): Promise<void> {
  const res = await api.admin.post(pdbs, {
    apiVersion: `${api.profile.group("policy")}/v1`,
    kind: "PodDisruptionBudget",
    metadata: { name },
    spec: { minAvailable: 2, selector: { matchLabels: { app } }, ...(policy ? { unhealthyPodEvictionPolicy: policy } : {}) },
  });
  expect(res.status, res.text).toBe(201);
  const pdb = res.json<{ metadata: { generation: number } }>();
  const observedGeneration = status.observed === false ? 0 : pdb.metadata.generation;
  const st = await api.admin.put(`${pdbs}/${name}/status`, {
    ...pdb,
    status: { observedGeneration, disruptionsAllowed: status.disruptionsAllowed, currentHealthy: status.currentHealthy ?? 2, desiredHealthy: status.desiredHealthy ?? 2, expectedPods: 3 },
  });
  expect(st.status, st.text).toBe(200);
}

const evict = (name: string, extra: Record<string, unknown> = {}, query = "") =>
  api.admin.post(`${pods}/${name}/eviction${query}`, { apiVersion: `${api.profile.group("policy")}/v1`, kind: "Eviction", metadata: { name, namespace: NS }, ...extra });

beforeAll(async () => {
  api = await startTestApiserver();
  pdbs = `/apis/${api.profile.group("policy")}/v1/namespaces/${NS}/poddisruptionbudgets`;
  expect((await api.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } })).status).toBe(201);
});
afterAll(async () => {
  await api?.close();
});

describe("pods/binding and bindings", () => {
  it("binds a pod once: 201 Success, nodeName and PodScheduled set; a second binding is 409", async () => {
    await makePod("bound", { app: "b" });
    const res = await api.admin.post(`${pods}/bound/binding`, { apiVersion: "v1", kind: "Binding", metadata: { name: "bound", annotations: { "scheduled-by": "test" } }, target: { kind: "Node", name: "node-1" } });
    expect(res.status, res.text).toBe(201);
    expect(res.json()).toMatchObject({ kind: "Status", status: "Success", code: 201 });
    const pod = (await api.admin.get(`${pods}/bound`)).json<PodBody>();
    expect(pod.spec.nodeName).toBe("node-1");
    expect(pod.metadata.annotations).toMatchObject({ "scheduled-by": "test" });
    expect(pod.status?.conditions).toContainEqual(expect.objectContaining({ type: "PodScheduled", status: "True" }));

    const again = await api.admin.post(`${pods}/bound/binding`, { apiVersion: "v1", kind: "Binding", metadata: { name: "bound" }, target: { name: "node-2" } });
    expect(again.status, again.text).toBe(409);
    expect(again.json<StatusBody>()).toMatchObject({ reason: "Conflict", message: 'Operation cannot be fulfilled on pods/binding "bound": pod bound is already assigned to node "node-1"' });
    expect((await api.admin.get(`${pods}/bound`)).json<PodBody>().spec.nodeName).toBe("node-1");
    // PodScheduled's zero lastProbeTime is written as null, as the platform writes it, and writing the status back is accepted.
    const scheduled = pod.status?.conditions?.find((c) => c.type === "PodScheduled") as Record<string, unknown> | undefined;
    expect(scheduled).toHaveProperty("lastProbeTime", null);
    const running = await api.admin.patch(`${pods}/bound/status`, { status: { phase: "Running" } }, "application/merge-patch+json");
    expect(running.status, running.text).toBe(200);
    const replaced = await api.admin.put(`${pods}/bound/status`, running.json<PodBody>());
    expect(replaced.status, replaced.text).toBe(200);
  });

  it("the bindings collection binds the pod the Binding names; dry run stores nothing", async () => {
    await makePod("via-collection", { app: "b" });
    const dry = await api.admin.post(`/api/v1/namespaces/${NS}/bindings?dryRun=All`, { apiVersion: "v1", kind: "Binding", metadata: { name: "via-collection" }, target: { name: "node-3" } });
    expect(dry.status, dry.text).toBe(201);
    expect((await api.admin.get(`${pods}/via-collection`)).json<PodBody>().spec.nodeName).toBeUndefined();
    const res = await api.admin.post(`/api/v1/namespaces/${NS}/bindings`, { apiVersion: "v1", kind: "Binding", metadata: { name: "via-collection" }, target: { name: "node-3" } });
    expect(res.status, res.text).toBe(201);
    expect((await api.admin.get(`${pods}/via-collection`)).json<PodBody>().spec.nodeName).toBe("node-3");
  });

  it("refuses bad Bindings: 422 target, 400 name mismatch, 404 missing pod, 409 stale resourceVersion", async () => {
    const pod = await makePod("picky", { app: "b" });
    const badKind = await api.admin.post(`${pods}/picky/binding`, { metadata: { name: "picky" }, target: { kind: "Pod", name: "x" } });
    expect(badKind.status, badKind.text).toBe(422);
    expect(badKind.json<StatusBody>().message).toBe('Binding "picky" is invalid: target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>"');
    const noName = await api.admin.post(`${pods}/picky/binding`, { metadata: { name: "picky" }, target: {} });
    expect(noName.status).toBe(422);
    expect(noName.json<StatusBody>().message).toBe('Binding "picky" is invalid: target.name: Required value');
    const mismatch = await api.admin.post(`${pods}/picky/binding`, { metadata: { name: "other" }, target: { name: "n" } });
    expect(mismatch.status).toBe(400);
    expect(mismatch.json<StatusBody>().message).toBe("name in URL does not match name in Binding object");
    const missing = await api.admin.post(`${pods}/ghost/binding`, { metadata: { name: "ghost" }, target: { name: "n" } });
    expect(missing.status).toBe(404);
    expect(missing.json<StatusBody>().message).toBe('pods "ghost" not found');
    const stale = await api.admin.post(`${pods}/picky/binding`, { metadata: { name: "picky", resourceVersion: "1" }, target: { name: "n" } });
    expect(stale.status).toBe(409);
    expect(stale.json<StatusBody>().message).toBe(`Operation cannot be fulfilled on pods/binding "picky": Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: ${pod.metadata.resourceVersion}`);
    const get = await api.admin.get(`${pods}/picky/binding`);
    expect(get.status).toBe(405);
  });
});

describe("pods/eviction", () => {
  it("deletes a pod no budget covers and answers 201 Success", async () => {
    await makePod("free", { app: "free" }, "Running");
    const res = await evict("free");
    expect(res.status, res.text).toBe(201);
    expect(res.json()).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Success", code: 201 });
    expect((await api.admin.get(`${pods}/free`)).status).toBe(404);
  });

  it("spends the budget: one eviction passes and records the pod, the next is 429 with the DisruptionBudget cause", async () => {
    await makeBudget("web", "web", { disruptionsAllowed: 1, currentHealthy: 3, desiredHealthy: 2 });
    await makePod("web-1", { app: "web" }, "Running");
    await makePod("web-2", { app: "web" }, "Running");

    const dry = await evict("web-1", {}, "?dryRun=All");
    expect(dry.status, dry.text).toBe(201);
    expect((await api.admin.get(`${pods}/web-1`)).status).toBe(200);
    expect((await api.admin.get(`${pdbs}/web`)).json<{ status: { disruptionsAllowed: number } }>().status.disruptionsAllowed).toBe(1);

    const first = await evict("web-1");
    expect(first.status, first.text).toBe(201);
    expect((await api.admin.get(`${pods}/web-1`)).status).toBe(404);
    const budget = (await api.admin.get(`${pdbs}/web`)).json<{ status: { disruptionsAllowed: number; disruptedPods: Record<string, string>; conditions: Array<{ type: string; status: string; reason: string }> } }>();
    expect(budget.status.disruptionsAllowed).toBe(0);
    expect(Object.keys(budget.status.disruptedPods)).toEqual(["web-1"]);
    expect(budget.status.conditions).toContainEqual(expect.objectContaining({ type: "DisruptionAllowed", status: "False", reason: "InsufficientPods" }));

    const refused = await evict("web-2");
    expect(refused.status, refused.text).toBe(429);
    expect(refused.json<StatusBody>()).toMatchObject({
      kind: "Status",
      status: "Failure",
      reason: "TooManyRequests",
      code: 429,
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
      details: { causes: [{ reason: "DisruptionBudget", message: "The disruption budget web needs 2 healthy pods and has 3 currently" }] },
    });
    expect((await api.admin.get(`${pods}/web-2`)).status).toBe(200);
  });

  it("a budget its controller has not observed yet is 429 with Retry-After 10", async () => {
    await makeBudget("fresh", "fresh", { disruptionsAllowed: 5, observed: false });
    await makePod("fresh-1", { app: "fresh" }, "Running");
    const res = await evict("fresh-1");
    expect(res.status, res.text).toBe(429);
    expect(res.headers["retry-after"]).toBe("10");
    expect(res.json<StatusBody>().details?.causes).toEqual([{ reason: "DisruptionBudget", message: "The disruption budget fresh is still being processed by the server." }]);
  });

  it("ignores the budget for Pending pods and for unready pods when the budget is healthy or AlwaysAllow", async () => {
    await makeBudget("strict", "strict", { disruptionsAllowed: 0, currentHealthy: 2, desiredHealthy: 2 });
    await makePod("strict-pending", { app: "strict" }, "Pending");
    expect((await evict("strict-pending")).status).toBe(201);
    await makePod("strict-unready", { app: "strict" }, "Running", false);
    expect((await evict("strict-unready")).status).toBe(201);
    await makePod("strict-ready", { app: "strict" }, "Running");
    expect((await evict("strict-ready")).status).toBe(429);

    await makeBudget("lenient", "lenient", { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 2 }, "AlwaysAllow");
    await makePod("lenient-unready", { app: "lenient" }, "Running", false);
    expect((await evict("lenient-unready")).status).toBe(201);
  });

  it("refuses two budgets with 500, a name mismatch with 400, and honours deleteOptions preconditions", async () => {
    await makeBudget("twin-a", "twin", { disruptionsAllowed: 1 });
    await makeBudget("twin-b", "twin", { disruptionsAllowed: 1 });
    await makePod("twin-1", { app: "twin" }, "Running");
    const twice = await evict("twin-1");
    expect(twice.status, twice.text).toBe(500);
    expect(twice.json<StatusBody>()).toMatchObject({ status: "Failure", code: 500, message: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support." });

    const mismatch = await api.admin.post(`${pods}/twin-1/eviction`, { apiVersion: `${api.profile.group("policy")}/v1`, kind: "Eviction", metadata: { name: "other" } });
    expect(mismatch.status).toBe(400);
    expect(mismatch.json<StatusBody>().message).toBe("name in URL does not match name in Eviction object");

    const pod = await makePod("guarded", { app: "guarded" }, "Running");
    const wrongUid = await evict("guarded", { deleteOptions: { preconditions: { uid: "not-the-uid" } } });
    expect(wrongUid.status, wrongUid.text).toBe(409);
    expect(wrongUid.json<StatusBody>().message).toBe(`Operation cannot be fulfilled on pods "guarded": Precondition failed: UID in precondition: not-the-uid, UID in object meta: ${pod.metadata.uid}`);
    const badGrace = await evict("guarded", { deleteOptions: { gracePeriodSeconds: -5 } });
    expect(badGrace.status).toBe(422);
    expect((await evict("guarded", { deleteOptions: { preconditions: { uid: pod.metadata.uid } } })).status).toBe(201);
    expect((await evict("guarded")).status).toBe(404);
  });
});
