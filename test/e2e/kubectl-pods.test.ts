/**
 * kubectl 1.34, unmodified, against a replica (kubernetes profile) with the controller
 * manager's disruption controller: `kubectl create service clusterip` shows an allocated address, and
 * `kubectl drain` of a node whose pods a PodDisruptionBudget covers evicts one pod, is
 * held back with the platform's 429 while the budget allows no disruption (kubectl says
 * it will retry), and completes once a replacement pod is Ready and the disruption
 * controller allows another disruption. A DaemonSet's pod is left with `--ignore-daemonsets`
 * (kubectl's warning) and refused without it.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { layerClients, runClient } from "../support/clients.ts";
import { startTestControllers, type TestControllers } from "../support/controllers.ts";
import type { HttpsClient } from "../support/https-client.ts";
import { writeAdminKubeconfig } from "../controllers/support.ts";
import { headerOf, rowsOf } from "./kubectl-env.ts";

let api: TestApiserver;
let controllers: TestControllers;
let admin: HttpsClient;
let home: string;
let env: Record<string, string>;
const NS = "drain-test";
const NODE = "drained-node";

async function kubectl(args: string[]): Promise<string> {
  const r = await runClient(layerClients().kubectl, args, { env });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r.stdout;
}

async function readyPod(name: string, nodeName = NODE): Promise<void> {
  const created = await admin.post(`/api/v1/namespaces/${NS}/pods`, {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, labels: { app: "web" } },
    spec: { nodeName, containers: [{ name: "c", image: "busybox:1.36" }] },
  });
  expect(created.status, created.text).toBe(201);
  const pod = created.json<Record<string, unknown>>();
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const st = await admin.put(`/api/v1/namespaces/${NS}/pods/${name}/status`, {
    ...pod,
    status: { phase: "Running", conditions: [{ type: "Ready", status: "True", lastTransitionTime: now }], startTime: now },
  });
  expect(st.status, st.text).toBe(200);
}

beforeAll(async () => {
  api = await startTestApiserver({ profileId: "kubernetes" });
  admin = api.admin;
  controllers = await startTestControllers(api, ["disruption"]);
  home = mkdtempSync(join(tmpdir(), "kubectl-pods-home-"));
  env = { HOME: home, KUBECONFIG: await writeAdminKubeconfig(api, "kubectl-pods.kubeconfig") };
}, 120_000);
afterAll(async () => {
  controllers?.stop();
  await api?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

describe("kubectl 1.34: services and pods", () => {
  it("kubectl create service clusterip shows an allocated address", async () => {
    await kubectl(["create", "service", "clusterip", "web", "--tcp=80:8080"]);
    const ip = await kubectl(["get", "service", "web", "-o", "jsonpath={.spec.clusterIP}"]);
    expect(ip).toMatch(/^10\.0\.0\.\d+$/);
    const table = await kubectl(["get", "service", "web"]);
    expect(headerOf(table)).toContain("CLUSTER-IP");
    expect(rowsOf(table)[0][headerOf(table).indexOf("CLUSTER-IP")]).toBe(ip);
    await kubectl(["delete", "service", "web"]);
  });

  it("kubectl drain honours the PodDisruptionBudget: retried while the budget is spent, done once a replacement is Ready", async () => {
    await kubectl(["create", "namespace", NS]);
    const node = await admin.post("/api/v1/nodes", { apiVersion: "v1", kind: "Node", metadata: { name: NODE } });
    expect(node.status, node.text).toBe(201);
    await readyPod("web-1");
    await readyPod("web-2");
    await kubectl(["-n", NS, "create", "poddisruptionbudget", "web", "--selector=app=web", "--min-available=1"]);
    // A DaemonSet's pod on the node (no DaemonSet controller runs here): drain leaves it with --ignore-daemonsets.
    const ds = await admin.post(`/apis/apps/v1/namespaces/${NS}/daemonsets`, {
      apiVersion: "apps/v1",
      kind: "DaemonSet",
      metadata: { name: "agent" },
      spec: { selector: { matchLabels: { app: "agent" } }, template: { metadata: { labels: { app: "agent" } }, spec: { containers: [{ name: "c", image: "busybox:1.36" }] } } },
    });
    expect(ds.status, ds.text).toBe(201);
    const dsUid = ds.json<{ metadata: { uid: string } }>().metadata.uid;
    const dsPod = await admin.post(`/api/v1/namespaces/${NS}/pods`, {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "agent-1", labels: { app: "agent" }, ownerReferences: [{ apiVersion: "apps/v1", kind: "DaemonSet", name: "agent", uid: dsUid, controller: true }] },
      spec: { nodeName: NODE, containers: [{ name: "c", image: "busybox:1.36" }] },
    });
    expect(dsPod.status, dsPod.text).toBe(201);
    // The disruption controller computes the budget: two healthy pods, one disruption allowed.
    for (let i = 0; ; i++) {
      const allowed = await kubectl(["-n", NS, "get", "pdb", "web", "-o", "jsonpath={.status.disruptionsAllowed}"]);
      if (allowed === "1") break;
      if (i > 100) throw new Error(`the budget was not computed: ${allowed}`);
      await new Promise((r) => setTimeout(r, 100));
    }

    const child = spawn(layerClients().kubectl, ["drain", NODE, "--grace-period=0", "--timeout=60s", "--ignore-daemonsets", "--force"], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    const exited = new Promise<number>((resolve) => child.on("close", (code) => resolve(code ?? 1)));
    try {
      const deadline = Date.now() + 30_000;
      while (!output.includes("Cannot evict pod as it would violate the pod's disruption budget.")) {
        if (Date.now() > deadline) throw new Error(`no eviction was refused:\n${output}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(output).toMatch(/will retry after 5s/);
      expect(output).toContain(`node/${NODE} cordoned`);
      // kubectl joins its drain warnings into one "Warning: " line in Go map order, so either may come first.
      expect(output).toMatch(/^Warning: .*deleting Pods that declare no controller: /m);
      expect(output).toMatch(new RegExp(`^Warning: .*ignoring DaemonSet-managed Pods: ${NS}/agent-1`, "m"));
      // A replacement pod (as a ReplicaSet would create) lets the controller allow the next disruption.
      await readyPod("web-3", "other-node");
      expect(await exited).toBe(0);
    } finally {
      child.kill("SIGKILL");
    }
    expect(output).toContain(`node/${NODE} drained`);
    expect(output).toMatch(/pod\/web-1 evicted/);
    expect(output).toMatch(/pod\/web-2 evicted/);
    const left = await kubectl(["-n", NS, "get", "pods", "-o", "name"]);
    expect(left.trim().split("\n").sort()).toEqual(["pod/agent-1", "pod/web-3"]);
    // Without --ignore-daemonsets, drain refuses the DaemonSet's pod.
    const refused = await runClient(layerClients().kubectl, ["drain", NODE, "--force", "--timeout=10s"], { env });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): ${NS}/agent-1`);
    expect(await kubectl(["get", "node", NODE, "-o", "jsonpath={.spec.unschedulable}"])).toBe("true");
  }, 90_000);
});
