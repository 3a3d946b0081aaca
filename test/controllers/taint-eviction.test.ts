/**
 * The taint eviction controller in a real controller-manager process over HTTPS: on a
 * node with a NoExecute taint, a pod without a matching toleration is deleted at once,
 * one tolerating it for 2 s is deleted about 2 s after the taint was added (measured),
 * and one tolerating it without a bound stays.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { eventually, startControllerManager, stopAll, writeAdminKubeconfig } from "./support.ts";

let api: TestApiserver;

beforeAll(async () => {
  api = await startTestApiserver();
  const kubeconfig = await writeAdminKubeconfig(api);
  const cm = await startControllerManager(kubeconfig, "plat", ["--leader-elect=false", "--controllers", "taint-eviction-controller"]);
  expect(await eventually(async () => cm.output().includes("controller manager running"), 30_000), cm.output()).toBe(true);
});
afterAll(async () => {
  stopAll();
  await api?.close();
});

async function gone(name: string): Promise<boolean> {
  const r = await api.admin.get(`/api/v1/namespaces/default/pods/${name}`);
  return r.status === 404 || !!r.json<{ metadata: { deletionTimestamp?: string } }>().metadata.deletionTimestamp;
}

describe("taint eviction", () => {
  it("evicts pods that do not tolerate a NoExecute taint, after tolerationSeconds, and keeps unbounded tolerations", async () => {
    // Not the unreachable/not-ready keys: admission gives every pod 300 s tolerations of those.
    const key = "example.com/maintenance";
    expect((await api.admin.post("/api/v1/nodes", { apiVersion: "v1", kind: "Node", metadata: { name: "tainted" } })).status).toBe(201);
    const pod = (name: string, tolerations: object[]) => ({ apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { nodeName: "tainted", tolerations, containers: [{ name: "c", image: "busybox" }] } });
    for (const [name, tolerations] of [
      ["p-none", []],
      ["p-2s", [{ key, operator: "Exists", effect: "NoExecute", tolerationSeconds: 2 }]],
      ["p-forever", [{ key, operator: "Exists", effect: "NoExecute" }]],
    ] as const) {
      const r = await api.admin.post("/api/v1/namespaces/default/pods", pod(name, [...tolerations]));
      expect(r.status, r.text).toBe(201);
    }
    // Nothing happens before the taint.
    await new Promise((r) => setTimeout(r, 500));
    expect(await gone("p-none")).toBe(false);
    const node = (await api.admin.get("/api/v1/nodes/tainted")).json<Record<string, unknown>>();
    const addedAt = Date.now();
    const taint = { key, effect: "NoExecute", timeAdded: new Date(addedAt).toISOString().replace(/\.\d{3}Z$/, "Z") };
    expect((await api.admin.request("PUT", "/api/v1/nodes/tainted", { body: { ...node, spec: { taints: [taint] } } })).status).toBe(200);
    expect(await eventually(() => gone("p-none"), 5_000, 50)).toBe(true);
    const at = await eventually(async () => ((await gone("p-2s")) ? Date.now() : undefined), 10_000, 50);
    const waited = (at ?? 0) - Math.floor(addedAt / 1000) * 1000;
    process.stdout.write(`taint eviction: pod with tolerationSeconds 2 deleted ${waited} ms after the taint\n`);
    expect(waited).toBeGreaterThanOrEqual(2000);
    expect(waited).toBeLessThan(4500);
    expect(await gone("p-forever")).toBe(false);
  });
});
