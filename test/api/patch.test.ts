import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

let api: TestApiserver;
beforeAll(async () => {
  api = await startTestApiserver();
});
afterAll(async () => {
  await api?.close();
});

const deploymentPath = "/apis/apps/v1/namespaces/default/deployments";
const deployment = (name: string) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name, labels: { app: name } },
  spec: {
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: {
        containers: [
          { name: "web", image: "nginx:1.27", ports: [{ containerPort: 80 }], env: [{ name: "A", value: "1" }] },
          { name: "sidecar", image: "busybox:1.36" },
        ],
      },
    },
  },
});
type Dep = { spec: { template: { spec: { containers: Array<{ name: string; image: string; env?: Array<{ name: string; value: string }> }> } }; strategy: Record<string, unknown> }; metadata: { labels: Record<string, string>; resourceVersion: string } };

describe("patch over HTTPS", () => {
  it("applies a strategic merge patch by merge key and with directives", async () => {
    expect((await api.admin.post(deploymentPath, deployment("smp"))).status).toBe(201);
    const res = await api.admin.patch(
      `${deploymentPath}/smp`,
      {
        spec: {
          strategy: { $retainKeys: ["type"], type: "Recreate" },
          template: { spec: { containers: [{ name: "web", image: "nginx:1.28", env: [{ name: "B", value: "2" }] }, { name: "sidecar", $patch: "delete" }] } },
        },
      },
      "application/strategic-merge-patch+json",
    );
    expect(res.status, res.text).toBe(200);
    const dep = res.json<Dep>();
    expect(dep.spec.template.spec.containers.map((c) => `${c.name}:${c.image}`)).toEqual(["web:nginx:1.28"]);
    expect(dep.spec.template.spec.containers[0].env).toEqual([
      { name: "B", value: "2" },
      { name: "A", value: "1" },
    ]);
    expect(dep.spec.strategy).toEqual({ type: "Recreate" });
  });

  it("applies a JSON merge patch (RFC 7386): objects merge, null deletes, lists replace", async () => {
    await api.admin.post(deploymentPath, deployment("merge"));
    const res = await api.admin.patch(`${deploymentPath}/merge`, { metadata: { labels: { app: null, tier: "front" } }, spec: { template: { spec: { containers: [{ name: "only", image: "redis:7" }] } } } }, "application/merge-patch+json");
    expect(res.status, res.text).toBe(200);
    const dep = res.json<Dep>();
    expect(dep.metadata.labels).toEqual({ tier: "front" });
    expect(dep.spec.template.spec.containers.map((c) => c.name)).toEqual(["only"]);
  });

  it("applies a JSON patch (RFC 6902); a failed test changes nothing", async () => {
    await api.admin.post(deploymentPath, deployment("jp"));
    const before = (await api.admin.get(`${deploymentPath}/jp`)).json<Dep>();
    const failed = await api.admin.patch(
      `${deploymentPath}/jp`,
      [
        { op: "replace", path: "/metadata/labels/app", value: "changed" },
        { op: "test", path: "/spec/replicas", value: 7 },
      ],
      "application/json-patch+json",
    );
    expect(failed.status).toBe(422);
    const after = (await api.admin.get(`${deploymentPath}/jp`)).json<Dep>();
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(after.metadata.labels.app).toBe("jp");
    const ok = await api.admin.patch(
      `${deploymentPath}/jp`,
      [
        { op: "test", path: "/spec/replicas", value: 1 },
        { op: "add", path: "/metadata/labels/new", value: "x" },
        { op: "remove", path: "/spec/template/spec/containers/1" },
      ],
      "application/json-patch+json",
    );
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json<Dep>().metadata.labels.new).toBe("x");
    expect(ok.json<Dep>().spec.template.spec.containers).toHaveLength(1);
  });

  it("answers 404 for a missing object, 415 for an unknown patch type, 400 for a bad body; no-op keeps the version", async () => {
    expect((await api.admin.patch(`${deploymentPath}/missing`, { metadata: {} }, "application/merge-patch+json")).status).toBe(404);
    expect((await api.admin.patch(`${deploymentPath}/jp`, "x", "text/plain")).status).toBe(415);
    expect((await api.admin.patch(`${deploymentPath}/jp`, "{oops", "application/merge-patch+json")).status).toBe(400);
    const before = (await api.admin.get(`${deploymentPath}/jp`)).json<Dep>();
    const noop = await api.admin.patch(`${deploymentPath}/jp`, { metadata: { labels: { app: "jp" } } }, "application/merge-patch+json");
    expect(noop.json<Dep>().metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  });

  it("supports dry run: nothing stored, no watch event", async () => {
    const start = (await api.admin.get("/api/v1/namespaces/default/configmaps")).json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
    const w = api.admin.watch(`/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${start}`);
    const dry = await api.admin.post("/api/v1/namespaces/default/configmaps?dryRun=All", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "dry" } });
    expect(dry.status).toBe(201);
    expect((await api.admin.get("/api/v1/namespaces/default/configmaps/dry")).status).toBe(404);
    expect((await api.admin.post("/api/v1/namespaces/default/configmaps?dryRun=Some", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "dry" } })).status).toBe(400);
    await api.admin.post("/api/v1/namespaces/default/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "real" } });
    const evs = await w.waitFor(1);
    w.stop();
    expect(evs.map((e) => (e.object.metadata as { name: string }).name)).toEqual(["real"]);
  });

  it("compresses large lists with gzip when asked", async () => {
    for (let i = 0; i < 20; i++) await api.admin.post("/api/v1/namespaces/default/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `gz-${i}` }, data: { v: "x".repeat(7 * 1024) } }); // above the 128 KiB threshold in all
    const gz = await api.admin.get("/api/v1/namespaces/default/configmaps", { "accept-encoding": "gzip" });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    const plain = await api.admin.get("/api/v1/namespaces/default/configmaps");
    expect(plain.headers["content-encoding"]).toBeUndefined();
  });
});
