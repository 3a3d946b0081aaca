/**
 * HorizontalPodAutoscaler through both served versions over HTTPS: one stored
 * object (autoscaling/v2), read and written through autoscaling/v1 in its v1 form.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

let api: TestApiserver;
beforeAll(async () => {
  api = await startTestApiserver();
});
afterAll(async () => {
  await api?.close();
});

type Obj = Record<string, unknown>;
interface Hpa {
  apiVersion: string;
  kind: string;
  metadata: { name: string; resourceVersion: string; annotations?: Record<string, string>; managedFields?: Array<{ apiVersion: string; manager: string }> };
  spec: Obj & { metrics?: Obj[]; targetCPUUtilizationPercentage?: number };
  status?: Obj;
}

const V1 = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers";
const V2 = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";
const ref = { kind: "Deployment", name: "web", apiVersion: "apps/v1" };
const cpu = (u: number): Obj => ({ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: u } } });
const memory: Obj = { type: "Resource", resource: { name: "memory", target: { type: "AverageValue", averageValue: "500Mi" } } };
const v2Hpa = (name: string, metrics: Obj[]): Obj => ({ apiVersion: "autoscaling/v2", kind: "HorizontalPodAutoscaler", metadata: { name }, spec: { scaleTargetRef: ref, maxReplicas: 5, metrics } });
const v1Hpa = (name: string, target?: number): Obj => ({
  apiVersion: "autoscaling/v1",
  kind: "HorizontalPodAutoscaler",
  metadata: { name },
  spec: { scaleTargetRef: ref, maxReplicas: 5, ...(target === undefined ? {} : { targetCPUUtilizationPercentage: target }) },
});

async function create(path: string, body: Obj): Promise<Hpa> {
  const res = await api.admin.post(path, body);
  expect(res.status, res.text).toBe(201);
  return res.json<Hpa>();
}

async function read(path: string): Promise<Hpa> {
  const res = await api.admin.get(path);
  expect(res.status, res.text).toBe(200);
  return res.json<Hpa>();
}

describe("HorizontalPodAutoscaler across autoscaling/v1 and v2", () => {
  it("reads an object created through v2 in its v1 form, with the other metrics in an annotation", async () => {
    await create(V2, v2Hpa("from-v2", [cpu(70), memory]));
    const hpa = await read(`${V1}/from-v2`);
    expect(hpa.apiVersion).toBe("autoscaling/v1");
    expect(hpa.spec.targetCPUUtilizationPercentage).toBe(70);
    expect(hpa.spec.metrics).toBeUndefined();
    expect(JSON.parse(hpa.metadata.annotations?.[api.profile.annotations.hpaMetrics] ?? "null")).toEqual([{ type: "Resource", resource: { name: "memory", targetAverageValue: "500Mi" } }]);
    const again = await read(`${V2}/from-v2`);
    expect(again.apiVersion).toBe("autoscaling/v2");
    expect(again.metadata.annotations).toBeUndefined();
    expect(again.spec.metrics).toEqual([cpu(70), memory]);
  });

  it("reads an object created through v1 in its v2 form; the create answer is v1", async () => {
    const created = await create(V1, v1Hpa("from-v1", 60));
    expect(created.apiVersion).toBe("autoscaling/v1");
    expect(created.spec).toEqual({ scaleTargetRef: ref, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 60 });
    expect(created.metadata.managedFields?.[0].apiVersion).toBe("autoscaling/v1");
    const hpa = await read(`${V2}/from-v1`);
    expect(hpa.apiVersion).toBe("autoscaling/v2");
    expect(hpa.spec.metrics).toEqual([cpu(60)]);
    expect(hpa.spec.targetCPUUtilizationPercentage).toBeUndefined();
  });

  it("gives a v1 object without a target the 80% cpu default, visible in both versions", async () => {
    const created = await create(V1, v1Hpa("defaulted"));
    expect(created.spec.targetCPUUtilizationPercentage).toBe(80);
    expect((await read(`${V2}/defaulted`)).spec.metrics).toEqual([cpu(80)]);
  });

  it("lists through v1 in v1 form (and through v2 in v2 form)", async () => {
    await create(V2, v2Hpa("listed", [memory, cpu(55)]));
    const v1List = await read(V1);
    const v1Item = (v1List as unknown as { items: Hpa[] }).items.find((i) => i.metadata.name === "listed");
    expect(v1Item?.apiVersion).toBe("autoscaling/v1");
    expect(v1Item?.spec.targetCPUUtilizationPercentage).toBe(55);
    const v2List = await read(V2);
    const v2Item = (v2List as unknown as { items: Hpa[] }).items.find((i) => i.metadata.name === "listed");
    expect(v2Item?.spec.metrics).toEqual([memory, cpu(55)]);
  });

  it("watches through v1 in v1 form while a v2 watcher sees v2", async () => {
    const rv = (await read(V2) as unknown as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    const w1 = api.admin.watch(`${V1}?watch=1&resourceVersion=${rv}`);
    const w2 = api.admin.watch(`${V2}?watch=1&resourceVersion=${rv}`);
    const a = await create(V2, v2Hpa("watched", [cpu(40), memory]));
    const upd = await api.admin.put(`${V2}/watched`, { ...v2Hpa("watched", [cpu(45)]), metadata: { name: "watched", resourceVersion: a.metadata.resourceVersion } });
    expect(upd.status, upd.text).toBe(200);
    const [e1, e2] = await Promise.all([w1.waitFor(2), w2.waitFor(2)]);
    w1.stop();
    w2.stop();
    expect(e1.map((e) => [e.type, e.object.apiVersion, (e.object.spec as Obj).targetCPUUtilizationPercentage])).toEqual([
      ["ADDED", "autoscaling/v1", 40],
      ["MODIFIED", "autoscaling/v1", 45],
    ]);
    expect(e2.map((e) => [e.type, e.object.apiVersion, (e.object.spec as Obj).metrics])).toEqual([
      ["ADDED", "autoscaling/v2", [cpu(40), memory]],
      ["MODIFIED", "autoscaling/v2", [cpu(45)]],
    ]);
    // A GET through either version after the watches (encoded-bytes cache) still answers in its own version.
    expect((await read(`${V1}/watched`)).apiVersion).toBe("autoscaling/v1");
    expect((await read(`${V2}/watched`)).apiVersion).toBe("autoscaling/v2");
  });

  it("applies a merge patch through v1 to the v1 form; v2 shows the new utilization and keeps the other metrics", async () => {
    await create(V2, v2Hpa("patched", [cpu(70), memory]));
    const res = await api.admin.patch(`${V1}/patched`, { spec: { targetCPUUtilizationPercentage: 35 } }, "application/merge-patch+json");
    expect(res.status, res.text).toBe(200);
    const patched = res.json<Hpa>();
    expect(patched.apiVersion).toBe("autoscaling/v1");
    expect(patched.spec.targetCPUUtilizationPercentage).toBe(35);
    const v2 = await read(`${V2}/patched`);
    expect(v2.spec.metrics).toEqual([memory, cpu(35)]);
  });

  it("keeps an unchanged v1 update a no-op (no new resourceVersion, no metric reordering)", async () => {
    const made = await create(V2, v2Hpa("noop", [cpu(70), memory]));
    const v1 = await read(`${V1}/noop`);
    const res = await api.admin.put(`${V1}/noop`, v1);
    expect(res.status, res.text).toBe(200);
    expect(res.json<Hpa>().metadata.resourceVersion).toBe(made.metadata.resourceVersion);
    expect((await read(`${V2}/noop`)).spec.metrics).toEqual([cpu(70), memory]);
  });

  it("answers an update through v1 with a stale resourceVersion with 409", async () => {
    const made = await create(V1, v1Hpa("stale", 50));
    const first = await api.admin.put(`${V1}/stale`, { ...v1Hpa("stale", 51), metadata: { name: "stale", resourceVersion: made.metadata.resourceVersion } });
    expect(first.status, first.text).toBe(200);
    const second = await api.admin.put(`${V1}/stale`, { ...v1Hpa("stale", 52), metadata: { name: "stale", resourceVersion: made.metadata.resourceVersion } });
    expect(second.status, second.text).toBe(409);
    expect(second.json<{ kind: string; reason: string }>()).toMatchObject({ kind: "Status", reason: "Conflict" });
  });

  it("names the v1 field path in a v1 validation error", async () => {
    const res = await api.admin.post(V1, { ...v1Hpa("invalid"), spec: { scaleTargetRef: ref, maxReplicas: 5, targetCPUUtilizationPercentage: "high" } });
    expect(res.status, res.text).toBe(422);
    const status = res.json<{ kind: string; reason: string; details: { causes: Array<{ field: string }> } }>();
    expect(status.kind).toBe("Status");
    expect(status.details.causes.map((c) => c.field)).toEqual(["spec.targetCPUUtilizationPercentage"]);
  });

  it("validates what v1 carries in annotations with the v2 rules", async () => {
    const bad = JSON.stringify([{ type: "Pods", pods: { metricName: "qps" } }]);
    const res = await api.admin.post(V1, { ...v1Hpa("bad-annotation", 50), metadata: { name: "bad-annotation", annotations: { [api.profile.annotations.hpaMetrics]: bad } } });
    expect(res.status, res.text).toBe(422);
  });

  it("records a v1 server-side apply against the v1 form", async () => {
    const res = await api.admin.request("PATCH", `${V1}/applied?fieldManager=tool`, {
      raw: JSON.stringify(v1Hpa("applied", 65)),
      headers: { "content-type": "application/apply-patch+yaml" },
    });
    expect(res.status, res.text).toBe(201);
    const hpa = res.json<Hpa>();
    expect(hpa.apiVersion).toBe("autoscaling/v1");
    expect(hpa.metadata.managedFields?.find((m) => m.manager === "tool")?.apiVersion).toBe("autoscaling/v1");
    expect((await read(`${V2}/applied`)).spec.metrics).toEqual([cpu(65)]);
  });

  it("answers a delete through v1 with the v1 object", async () => {
    await create(V2, v2Hpa("deleted", [cpu(20), memory]));
    const res = await api.admin.delete(`${V1}/deleted`);
    expect(res.status, res.text).toBe(200);
    const body = res.json<Hpa>();
    expect(body.apiVersion).toBe("autoscaling/v1");
    expect(body.spec.targetCPUUtilizationPercentage).toBe(20);
    expect((await api.admin.get(`${V2}/deleted`)).status).toBe(404);
  });
});
