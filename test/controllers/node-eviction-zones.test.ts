/**
 * Zone-aware NoExecute tainting of node lifecycle in a real controller-manager process
 * (`--node-monitor-grace-period 2s`, `--node-eviction-rate 0.5`), started once the nodes
 * exist: three zones by the profile's topology labels. Zone "partial" (3 of 4 nodes
 * reporting Ready=False: PartialDisruption, 4 nodes ≤ --large-cluster-size-threshold)
 * gets NoSchedule taints but no NoExecute taint; zone "normal" (1 of 4 silent) gets both; zone "full" (2 of 2 silent:
 * FullDisruption, primary rate) gets its two NoExecute taints at least 1/rate = 2 s
 * apart. When every node goes silent, every zone is fully disrupted and the NoExecute
 * taints are removed (NoSchedule stays).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { eventually, startControllerManager, stopAll, writeAdminKubeconfig } from "./support.ts";

let api: TestApiserver;
let kubeconfig: string;
let renewer: NodeJS.Timeout | undefined;
type Taint = { key: string; effect: string; timeAdded?: string };
interface Node {
  spec?: { taints?: Taint[] };
  status?: { conditions?: Array<{ type: string; status: string }> };
}

const ZONES: Record<string, { alive: number; silent: number }> = { partial: { alive: 1, silent: 3 }, normal: { alive: 3, silent: 1 }, full: { alive: 0, silent: 2 } };
const micro = () => new Date().toISOString().replace(/Z$/, "000Z");
const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, "Z");

beforeAll(async () => {
  api = await startTestApiserver();
  kubeconfig = await writeAdminKubeconfig(api);
});
afterAll(async () => {
  if (renewer) clearInterval(renewer);
  stopAll();
  await api?.close();
});

async function createNode(name: string, zone: string, ready: "True" | "False" = "True"): Promise<void> {
  const r = await api.admin.post("/api/v1/nodes", { apiVersion: "v1", kind: "Node", metadata: { name, labels: { [api.profile.labels.region]: "r1", [api.profile.labels.zone]: zone } } });
  expect(r.status, r.text).toBe(201);
  const node = r.json<Node & Record<string, unknown>>();
  const t = now();
  const status = await api.admin.request("PUT", `/api/v1/nodes/${name}/status`, { body: { ...node, status: { conditions: [{ type: "Ready", status: ready, reason: ready === "True" ? "KubeletReady" : "KubeletNotReady", message: "", lastHeartbeatTime: t, lastTransitionTime: t }] } } });
  expect(status.status, status.text).toBe(200);
}

const taintsOf = async (name: string) => ((await api.admin.get(`/api/v1/nodes/${name}`)).json<Node>().spec?.taints ?? []).filter((t) => t.key === api.profile.taints.unreachable || t.key === api.profile.taints.notReady);
const has = (ts: Taint[], effect: string) => ts.some((t) => t.effect === effect);

describe("zone-aware eviction limits", () => {
  it("no NoExecute in a partially disrupted small zone, rate-limited elsewhere, none when every zone is down", async () => {
    const leases = `/apis/${api.profile.group("coordination")}/v1/namespaces/${api.profile.nodeLeaseNamespace}/leases`;
    const alive: string[] = [];
    const silent: Record<string, string[]> = {};
    for (const [zone, n] of Object.entries(ZONES)) {
      for (let i = 0; i < n.alive; i++) alive.push(`${zone}-alive-${i}`);
      silent[zone] = Array.from({ length: n.silent }, (_, i) => `${zone}-silent-${i}`);
    }
    for (const name of alive) {
      await createNode(name, name.split("-")[0]);
      const lease = await api.admin.post(leases, { apiVersion: `${api.profile.group("coordination")}/v1`, kind: "Lease", metadata: { name }, spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: micro() } });
      expect(lease.status, lease.text).toBe(201);
    }
    renewer = setInterval(() => {
      for (const name of alive) {
        void (async () => {
          const cur = (await api.admin.get(`${leases}/${name}`)).json<{ spec: Record<string, unknown> }>();
          await api.admin.request("PUT", `${leases}/${name}`, { body: { ...cur, spec: { ...cur.spec, renewTime: micro() } } });
        })();
      }
    }, 400);
    for (const [zone, names] of Object.entries(silent)) for (const name of names) await createNode(name, zone, zone === "partial" ? "False" : "True");
    const cm = await startControllerManager(kubeconfig, "plat", ["--leader-elect=false", "--controllers", "nodelifecycle", "--node-monitor-grace-period", "2s", "--node-eviction-rate", "0.5"]);
    expect(await eventually(async () => cm.output().includes("controller manager running"), 30_000), cm.output()).toBe(true);

    // Zone "full": both NoExecute taints come, 1/rate = 2 s apart (their timeAdded, in whole seconds).
    const addedAt = new Map<string, number>();
    const bothFull = await eventually(async () => {
      for (const name of silent.full) {
        const t = (await taintsOf(name)).find((x) => x.effect === "NoExecute");
        if (t?.timeAdded) addedAt.set(name, Date.parse(t.timeAdded));
      }
      return addedAt.size === 2;
    }, 20_000, 100);
    expect(bothFull).toBe(true);
    const gap = Math.abs(addedAt.get(silent.full[0])! - addedAt.get(silent.full[1])!);
    process.stdout.write(`zone eviction: NoExecute taints in the fully disrupted zone added ${gap} ms apart (rate 0.5/s)\n`);
    expect(gap).toBeGreaterThanOrEqual(2000);

    // Zone "normal": its one silent node is tainted NoExecute.
    expect(await eventually(async () => has(await taintsOf(silent.normal[0]), "NoExecute"), 15_000)).toBe(true);
    // Zone "partial": NoSchedule, never NoExecute.
    for (const name of silent.partial) expect(await eventually(async () => has(await taintsOf(name), "NoSchedule"), 10_000)).toBe(true);
    await new Promise((r) => setTimeout(r, 1000));
    for (const name of silent.partial) expect(has(await taintsOf(name), "NoExecute"), name).toBe(false);

    // Every node silent: master disruption mode, NoExecute taints removed everywhere.
    clearInterval(renewer);
    renewer = undefined;
    const all = [...alive, ...Object.values(silent).flat()];
    const cleared = await eventually(async () => {
      for (const name of all) {
        const ts = await taintsOf(name);
        if (!has(ts, "NoSchedule") || has(ts, "NoExecute")) return false;
      }
      return true;
    }, 20_000, 200);
    expect(cleared).toBe(true);
  }, 60_000);
});
