/**
 * The node lifecycle controller in a real controller-manager process over HTTPS with
 * `--node-monitor-grace-period 3s`: a node whose Lease keeps being renewed stays
 * Ready without taints; a silent node turns Unknown after the grace period (time
 * measured and printed) with the unreachable NoSchedule and NoExecute taints; a node
 * reporting Ready=False gets the not-ready taints; the taints go when Ready is True again.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { eventually, startControllerManager, stopAll, writeAdminKubeconfig } from "./support.ts";

const GRACE_MS = 3000;
let api: TestApiserver;
let renewer: NodeJS.Timeout | undefined;

interface Node {
  metadata: { name: string };
  spec?: { taints?: Array<{ key: string; effect: string; timeAdded?: string }> };
  status?: { conditions?: Array<{ type: string; status: string; reason?: string; lastHeartbeatTime?: string }> };
}

beforeAll(async () => {
  api = await startTestApiserver();
  const kubeconfig = await writeAdminKubeconfig(api);
  const cm = await startControllerManager(kubeconfig, "plat", ["--leader-elect=false", "--controllers", "nodelifecycle", "--node-monitor-grace-period", "3s", "--node-eviction-rate", "10"]);
  expect(await eventually(async () => cm.output().includes("controller manager running"), 30_000), cm.output()).toBe(true);
});
afterAll(async () => {
  if (renewer) clearInterval(renewer);
  stopAll();
  await api?.close();
});

const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
const micro = () => new Date().toISOString().replace(/Z$/, "000Z");

async function readNode(name: string): Promise<Node> {
  return (await api.admin.get(`/api/v1/nodes/${name}`)).json<Node>();
}

async function postReady(name: string, status: "True" | "False"): Promise<void> {
  const node = await readNode(name);
  const t = now();
  const body = { ...node, status: { ...node.status, conditions: [{ type: "Ready", status, reason: status === "True" ? "KubeletReady" : "KubeletNotReady", message: "", lastHeartbeatTime: t, lastTransitionTime: t }] } };
  const r = await api.admin.request("PUT", `/api/v1/nodes/${name}/status`, { body });
  expect(r.status, r.text).toBe(200);
}

async function createNode(name: string, ready: "True" | "False"): Promise<void> {
  const r = await api.admin.post("/api/v1/nodes", { apiVersion: "v1", kind: "Node", metadata: { name } });
  expect(r.status, r.text).toBe(201);
  await postReady(name, ready);
}

const conditionTaints = (n: Node) => (n.spec?.taints ?? []).filter((t) => t.key === api.profile.taints.unreachable || t.key === api.profile.taints.notReady);
const readyOf = (n: Node) => n.status?.conditions?.find((c) => c.type === "Ready");

describe("node lifecycle", () => {
  it("marks a silent node Unknown after the grace period with the unreachable taints, keeps a heartbeating node Ready, and clears taints when Ready returns", async () => {
    const leases = `/apis/${api.profile.group("coordination")}/v1/namespaces/${api.profile.nodeLeaseNamespace}/leases`;
    await createNode("n-alive", "True");
    await createNode("n-sick", "False");
    // n-alive and n-sick keep renewing their Leases (n-sick stays Ready=False, never Unknown).
    for (const name of ["n-alive", "n-sick"]) {
      const lease = await api.admin.post(leases, { apiVersion: `${api.profile.group("coordination")}/v1`, kind: "Lease", metadata: { name }, spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: micro() } });
      expect(lease.status, lease.text).toBe(201);
    }
    renewer = setInterval(() => {
      for (const name of ["n-alive", "n-sick"]) {
        void (async () => {
          const cur = (await api.admin.get(`${leases}/${name}`)).json<{ spec: Record<string, unknown> }>();
          await api.admin.request("PUT", `${leases}/${name}`, { body: { ...cur, spec: { ...cur.spec, renewTime: micro() } } });
        })();
      }
    }, 500);
    await createNode("n-silent", "True");
    const silentSince = Date.now();

    const unknownAt = await eventually(async () => (readyOf(await readNode("n-silent"))?.status === "Unknown" ? Date.now() : undefined), GRACE_MS + 10_000, 50);
    expect(unknownAt).toBeDefined();
    const elapsed = (unknownAt as number) - silentSince;
    process.stdout.write(`node lifecycle: silent node Unknown after ${elapsed} ms (grace ${GRACE_MS} ms)\n`);
    expect(elapsed).toBeGreaterThanOrEqual(GRACE_MS - 200);
    expect(elapsed).toBeLessThanOrEqual(GRACE_MS + 2500);
    expect(readyOf(await readNode("n-silent"))?.reason).toBe("NodeStatusUnknown");
    const tainted = await eventually(async () => {
      const t = conditionTaints(await readNode("n-silent"));
      return t.length === 2 ? t : undefined;
    });
    expect(tainted?.map((t) => `${t.key}:${t.effect}`).sort()).toEqual([`${api.profile.taints.unreachable}:NoExecute`, `${api.profile.taints.unreachable}:NoSchedule`]);
    expect(tainted?.find((t) => t.effect === "NoExecute")?.timeAdded).toBeDefined();

    const sick = await eventually(async () => {
      const t = conditionTaints(await readNode("n-sick"));
      return t.length === 2 ? t : undefined;
    });
    expect(sick?.map((t) => `${t.key}:${t.effect}`).sort()).toEqual([`${api.profile.taints.notReady}:NoExecute`, `${api.profile.taints.notReady}:NoSchedule`]);

    // The heartbeating node outlived the grace period without a change.
    const alive = await readNode("n-alive");
    expect(readyOf(alive)?.status).toBe("True");
    expect(conditionTaints(alive)).toEqual([]);

    await postReady("n-silent", "True");
    expect(await eventually(async () => conditionTaints(await readNode("n-silent"))?.length === 0)).toBe(true);
    expect(readyOf(await readNode("n-silent"))?.status).toBe("True");
  });
});
