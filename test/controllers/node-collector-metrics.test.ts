/**
 * The node lifecycle controller's `node_collector_*` metrics on a real controller-manager
 * process's /metrics (HTTPS): two Ready nodes in one zone read as size 2, health 100,
 * no unhealthy node; when one reports Ready=False the zone's health drops to 50 with
 * one unhealthy node, the node gets its not-ready NoExecute taint, the taint eviction
 * controller evicts its pod, and `node_collector_evictions_total` counts that one node
 * eviction for the zone (and still 1 after the node is Ready again). Help texts carry
 * the platform's stability classes, the two duration histograms its buckets, and the
 * deprecated `node_collector_evictions_number` is hidden.
 */
import { readFileSync } from "node:fs";
import { request } from "node:https";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { eventually, startControllerManager, stopAll, writeAdminKubeconfig, type ControllerManagerProcess } from "./support.ts";

let api: TestApiserver;
let cm: ControllerManagerProcess;
let ca: string;

beforeAll(async () => {
  api = await startTestApiserver();
  const kubeconfig = await writeAdminKubeconfig(api);
  const certDir = join(api.dir, "node-collector-certs");
  // A long grace period: the nodes never need to heartbeat; Ready=False is what they report.
  cm = await startControllerManager(kubeconfig, "plat", ["--leader-elect=false", "--controllers", "nodelifecycle,taint-eviction-controller", "--node-monitor-grace-period", "120s", "--node-eviction-rate", "10", "--cert-dir", certDir, "--authorization-always-allow-paths", "/metrics"]);
  expect(await eventually(async () => cm.output().includes("controller manager running"), 30_000), cm.output()).toBe(true);
  ca = readFileSync(join(certDir, "plat-controller-manager.crt"), "utf8");
});
afterAll(async () => {
  stopAll();
  await api?.close();
});

function scrape(): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: cm.port, path: "/metrics", ca, servername: "localhost" }, (res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString()));
      res.on("end", () => (res.statusCode === 200 ? resolve(text) : reject(new Error(`/metrics: ${res.statusCode} ${text}`))));
    });
    req.on("error", reject);
    req.end();
  });
}

/** The value of one sample, `name{labels}`, or undefined when the series is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, "Z");

async function postReady(name: string, status: "True" | "False"): Promise<void> {
  const node = (await api.admin.get(`/api/v1/nodes/${name}`)).json<Record<string, unknown>>();
  const t = now();
  const conditions = [{ type: "Ready", status, reason: status === "True" ? "KubeletReady" : "KubeletNotReady", message: "", lastHeartbeatTime: t, lastTransitionTime: t }];
  const r = await api.admin.request("PUT", `/api/v1/nodes/${name}/status`, { body: { ...node, status: { conditions } } });
  expect(r.status, r.text).toBe(200);
}

describe("node_collector metrics", () => {
  it("report zone size, health and unhealthy nodes, and count the node eviction that evicted a pod", async () => {
    const labels = { [api.profile.labels.region]: "r1", [api.profile.labels.zone]: "z1" };
    const zone = "r1:\x00:z1";
    const of = (name: string) => `${name}{zone="${zone}"}`;
    for (const name of ["nc-a", "nc-b"]) {
      const r = await api.admin.post("/api/v1/nodes", { apiVersion: "v1", kind: "Node", metadata: { name, labels } });
      expect(r.status, r.text).toBe(201);
      await postReady(name, "True");
    }
    // The pod tolerates the not-ready taint for 0 s (admission would give it 300 s otherwise).
    const tolerations = [{ key: api.profile.taints.notReady, operator: "Exists", effect: "NoExecute", tolerationSeconds: 0 }];
    const pod = await api.admin.post("/api/v1/namespaces/default/pods", { apiVersion: "v1", kind: "Pod", metadata: { name: "on-nc-b" }, spec: { nodeName: "nc-b", tolerations, containers: [{ name: "c", image: "busybox" }] } });
    expect(pod.status, pod.text).toBe(201);

    const healthy = await eventually(async () => {
      const text = await scrape();
      return sample(text, of("node_collector_zone_size")) === 2 && sample(text, of("node_collector_zone_health")) === 100 ? text : undefined;
    }, 10_000);
    expect(healthy, await scrape()).toBeDefined();
    expect(sample(healthy!, of("node_collector_unhealthy_nodes_in_zone"))).toBe(0);
    expect(sample(healthy!, of("node_collector_evictions_total"))).toBeUndefined();

    await postReady("nc-b", "False");
    const evicted = await eventually(async () => {
      const r = await api.admin.get("/api/v1/namespaces/default/pods/on-nc-b");
      return r.status === 404 || !!r.json<{ metadata: { deletionTimestamp?: string } }>().metadata.deletionTimestamp;
    }, 10_000, 50);
    expect(evicted).toBe(true);
    const text = (await eventually(async () => {
      const t = await scrape();
      return sample(t, of("node_collector_zone_health")) === 50 ? t : undefined;
    }, 5_000)) ?? (await scrape());
    expect(sample(text, of("node_collector_zone_health"))).toBe(50);
    expect(sample(text, of("node_collector_unhealthy_nodes_in_zone"))).toBe(1);
    expect(sample(text, of("node_collector_zone_size"))).toBe(2);
    expect(sample(text, of("node_collector_evictions_total"))).toBe(1);

    // Help texts, classes and buckets as the platform's; the deprecated counter is hidden.
    expect(text).toContain("# HELP node_collector_evictions_total [STABLE] Number of Node evictions that happened since current instance of NodeController started.");
    expect(text).toContain("# HELP node_collector_zone_health [ALPHA] Gauge measuring percentage of healthy nodes per zone.");
    expect(text).toContain("# HELP node_collector_unhealthy_nodes_in_zone [ALPHA] Gauge measuring number of not Ready Nodes per zones.");
    expect(text).toContain("# HELP node_collector_zone_size [ALPHA] Gauge measuring number of registered Nodes per zones.");
    expect(text).not.toContain("node_collector_evictions_number");
    const les = (name: string) => [...text.matchAll(new RegExp(`^${name}_bucket\\{le="([^"]+)"\\}`, "gm"))].map((m) => m[1]);
    expect(les("node_collector_update_node_health_duration_seconds")).toEqual(["0.001", "0.004", "0.016", "0.064", "0.256", "1.024", "4.096", "16.384", "+Inf"]);
    expect(les("node_collector_update_all_nodes_health_duration_seconds")).toEqual(["0.01", "0.04", "0.16", "0.64", "2.56", "10.24", "40.96", "163.84", "+Inf"]);
    expect(sample(text, "node_collector_update_node_health_duration_seconds_count")).toBeGreaterThan(0);
    expect(sample(text, "node_collector_update_all_nodes_health_duration_seconds_count")).toBeGreaterThan(0);

    // Ready again: the zone is healthy, the taints go, and no further eviction is counted.
    await postReady("nc-b", "True");
    const recovered = await eventually(async () => {
      const t = await scrape();
      return sample(t, of("node_collector_zone_health")) === 100 ? t : undefined;
    }, 5_000);
    expect(recovered).toBeDefined();
    expect(sample(recovered!, of("node_collector_unhealthy_nodes_in_zone"))).toBe(0);
    expect(sample(recovered!, of("node_collector_evictions_total"))).toBe(1);
  }, 60_000);
});
