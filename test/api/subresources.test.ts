import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

let api: TestApiserver;
beforeAll(async () => {
  api = await startTestApiserver();
});
afterAll(async () => {
  await api?.close();
});

const base = "/apis/apps/v1/namespaces/default/deployments";
const dep = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "scaled" },
  spec: { selector: { matchLabels: { app: "s" } }, template: { metadata: { labels: { app: "s" } }, spec: { containers: [{ name: "c", image: "nginx:1.27" }] } } },
};

describe("status and scale subresources", () => {
  it("keeps status out of main-resource writes and spec out of status writes", async () => {
    const created = await api.admin.post(base, { ...dep, status: { replicas: 9 } });
    expect(created.status).toBe(201);
    expect(created.json<{ status?: { replicas?: number } }>().status?.replicas).toBeUndefined();
    const cur = created.json<{ metadata: { resourceVersion: string }; spec: { replicas: number } }>();
    const st = await api.admin.put(`${base}/scaled/status`, { ...dep, metadata: { name: "scaled", resourceVersion: cur.metadata.resourceVersion }, spec: { ...dep.spec, replicas: 50 }, status: { replicas: 3, readyReplicas: 2 } });
    expect(st.status, st.text).toBe(200);
    const after = st.json<{ spec: { replicas: number }; status: { replicas: number }; metadata: { generation: number } }>();
    expect(after.status.replicas).toBe(3);
    expect(after.spec.replicas).toBe(1);
    expect(after.metadata.generation).toBe(1);
  });

  it("reads and writes replicas through the Scale representation", async () => {
    const scale = await api.admin.get(`${base}/scaled/scale`);
    expect(scale.status, scale.text).toBe(200);
    expect(scale.json()).toMatchObject({ kind: "Scale", apiVersion: "autoscaling/v1", spec: { replicas: 1 }, status: { replicas: 3, selector: "app=s" } });
    const patched = await api.admin.patch(`${base}/scaled/scale`, { spec: { replicas: 4 } }, "application/merge-patch+json");
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json<{ spec: { replicas: number } }>().spec.replicas).toBe(4);
    const parent = (await api.admin.get(`${base}/scaled`)).json<{ spec: { replicas: number }; metadata: { generation: number } }>();
    expect(parent.spec.replicas).toBe(4);
    expect(parent.metadata.generation).toBe(2);
    const neg = await api.admin.put(`${base}/scaled/scale`, { kind: "Scale", apiVersion: "autoscaling/v1", metadata: { name: "scaled" }, spec: { replicas: -1 } });
    expect(neg.status).toBe(422);
    const cm = await api.admin.get("/api/v1/namespaces/default/configmaps/x/scale");
    expect(cm.status).toBe(404);
  });
});
