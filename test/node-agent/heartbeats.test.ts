/**
 * The node agent as a real process against a real apiserver (through a relay that can
 * cut the connection) and the test container runtime: registration, Lease renewal
 * timing, retries with backoff during an outage, status cadence and transitions, and
 * registration again after the Node is deleted. Intervals are shortened by flags
 * (lease 4 s → renew every 1 s; status computed every 500 ms, reported every 2 s; the outage lasts 6.5 s, 14 s with LONG=1 to reach the 7 s cap).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApiObject, ResourceRef, WatchStream } from "../../shared/client/object-client.ts";
import { startCriServer, type CriServer } from "../support/cri-server.ts";
import { NODES, getOrUndefined, startAgentProcess, startAgentTestCluster, waitFor, type AgentProcess, type AgentTestCluster } from "./harness.ts";

const NODE = "hb-node";
const LONG = process.env.LONG === "1";
const OUTAGE_MS = LONG ? 14_000 : 6500;
let c: AgentTestCluster;
let cri: CriServer;
let agent: AgentProcess;
let leases: ResourceRef;
const watches: WatchStream[] = [];

interface Condition {
  type: string;
  status: string;
  reason?: string;
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
}

function conditions(node: ApiObject): Condition[] {
  return (node.status as { conditions?: Condition[] } | undefined)?.conditions ?? [];
}

/** Records the node's MODIFIED events and the lease's renew times as they arrive. */
function record<T>(res: ResourceRef, name: string, namespace: string | undefined, pick: (o: ApiObject) => T): { seen: Array<{ at: number; value: T }> } {
  const seen: Array<{ at: number; value: T }> = [];
  const w = c.admin.watch(res, { namespace, fieldSelector: `metadata.name=${name}` });
  watches.push(w);
  void (async () => {
    try {
      for await (const ev of w) if (ev.type === "ADDED" || ev.type === "MODIFIED") seen.push({ at: Date.now(), value: pick(ev.object) });
    } catch {
      // stopped
    }
  })();
  return { seen };
}

beforeAll(async () => {
  c = await startAgentTestCluster();
  leases = { group: c.api.profile.group("coordination"), version: "v1", resource: "leases" };
  cri = await startCriServer();
  const kubeconfig = await c.kubeconfigFor(`system:node:${NODE}`, ["system:nodes"]);
  agent = await startAgentProcess([
    "--kubeconfig", kubeconfig,
    "--hostname-override", NODE,
    "--node-labels", "tier=edge,example.com/rack=r1",
    "--container-runtime-endpoint", cri.endpoint,
    "--node-lease-duration-seconds", "4",
    "--node-status-update-frequency", "500ms",
    "--node-status-report-frequency", "2s",
  ]);
});

afterAll(async () => {
  for (const w of watches) w.stop();
  await agent?.stop();
  await cri?.close();
  await c?.close();
});

describe("node agent heartbeats", () => {
  it("registers its Node with labels, capacity, allocatable, addresses, node info and five conditions", async () => {
    const node = await waitFor(async () => {
      const n = await getOrUndefined(c.admin, NODES, NODE);
      return n && conditions(n).length > 0 ? n : undefined;
    }, 15_000, "node registered with its status");
    const labels = c.api.profile.labels;
    expect(node.metadata.labels).toMatchObject({ [labels.hostname]: NODE, [labels.os]: "linux", tier: "edge", "example.com/rack": "r1" });
    expect(node.metadata.labels?.[labels.arch]).toMatch(/^(amd64|arm64|arm|386|ppc64le|s390x|riscv64)$/);
    const status = node.status as { capacity: Record<string, string>; allocatable: Record<string, string>; addresses: Array<{ type: string; address: string }>; nodeInfo: Record<string, string> };
    expect(Number(status.capacity.cpu)).toBeGreaterThan(0);
    expect(status.capacity.memory).toMatch(/^\d+Ki$/);
    expect(status.capacity.pods).toBe("110");
    expect(parseInt(status.allocatable.memory, 10)).toBe(parseInt(status.capacity.memory, 10) - 100 * 1024);
    expect(status.addresses).toContainEqual({ type: "Hostname", address: NODE });
    expect(status.nodeInfo).toMatchObject({ operatingSystem: "linux", kubeletVersion: "v1.35.0" });
    await waitFor(async () => ((await c.admin.get(NODES, NODE)).status as { nodeInfo: Record<string, string> }).nodeInfo.containerRuntimeVersion === "test-runtime://1.0.0" || undefined, 10_000, "runtime version reported");
    const types = conditions(node).map((x) => x.type).sort();
    expect(types).toEqual(["DiskPressure", "MemoryPressure", "NetworkUnavailable", "PIDPressure", "Ready"]);
    expect(conditions(node).find((x) => x.type === "Ready")).toMatchObject({ status: "True", reason: "KubeletReady" });
  });

  it("renews its Lease every duration x 0.25 (1 s here), held by the node and owned by the Node", async () => {
    const renewals = record(leases, NODE, c.api.profile.nodeLeaseNamespace, (o) => Date.parse(String((o.spec as { renewTime: string }).renewTime)));
    await new Promise((r) => setTimeout(r, 4200));
    const lease = await c.admin.get(leases, NODE, { namespace: c.api.profile.nodeLeaseNamespace });
    const node = await c.admin.get(NODES, NODE);
    expect(lease.spec).toMatchObject({ holderIdentity: NODE, leaseDurationSeconds: 4 });
    expect(lease.metadata.ownerReferences).toEqual([{ apiVersion: "v1", kind: "Node", name: NODE, uid: node.metadata.uid }]);
    const times = [...new Set(renewals.seen.map((s) => s.value))];
    const gaps = times.slice(1).map((t, i) => t - times[i]);
    console.log(`lease renew gaps (ms): ${gaps.join(", ")}`);
    expect(gaps.length).toBeGreaterThanOrEqual(3);
    for (const g of gaps) {
      expect(g).toBeGreaterThanOrEqual(950);
      expect(g).toBeLessThan(1600);
    }
  });

  it("retries with backoff 200 ms doubling to 7 s while the API is unreachable, and renews once it is back", async () => {
    const renewals = record(leases, NODE, c.api.profile.nodeLeaseNamespace, (o) => Date.parse(String((o.spec as { renewTime: string }).renewTime)));
    await waitFor(() => (renewals.seen.length > 0 ? true : undefined), 5000, "lease watch started");
    const logsBefore = agent.logs().length;
    await c.relay.cut();
    const cutAt = Date.now();
    await new Promise((r) => setTimeout(r, OUTAGE_MS));
    await c.relay.restore();
    const restoredAt = Date.now();
    const renewed = await waitFor(() => renewals.seen.find((s) => s.value > restoredAt - 50), 12_000, "lease renewed after the outage");
    const retries = agent
      .logs()
      .slice(logsBefore)
      .filter((l) => l.msg === "failed to ensure lease exists, will retry")
      .map((l) => ({ at: Date.parse(String(l.time)), wait: parseInt(String(l.interval), 10) }));
    console.log(`retry waits (ms): ${retries.map((r) => r.wait).join(", ")}; renewed ${renewed.value - restoredAt} ms after the API came back`);
    const schedule = [200, 400, 800, 1600, 3200, 6400, 7000, 7000];
    expect(retries.map((r) => r.wait)).toEqual(schedule.slice(0, retries.length));
    expect(retries.length).toBeGreaterThanOrEqual(LONG ? 7 : 5);
    for (let i = 1; i < retries.length; i++) {
      const gap = retries[i].at - retries[i - 1].at;
      expect(gap).toBeGreaterThanOrEqual(retries[i - 1].wait - 20);
      expect(gap).toBeLessThan(retries[i - 1].wait + 1500);
    }
    expect(retries[0].at - cutAt).toBeLessThan(2500);
    // The next try after the API returns is at most the wait then running away.
    expect(renewed.value - restoredAt).toBeLessThan(retries[retries.length - 1].wait + 1500);
  }, 45_000);

  it("posts status on change at once and otherwise only every report period, with correct condition times", async () => {
    const posts = record(NODES, NODE, undefined, (o) => conditions(o).find((x) => x.type === "Ready"));
    await new Promise((r) => setTimeout(r, 4500));
    const quiet = posts.seen.filter((p, i) => i > 0 || p.value !== undefined).slice(1);
    console.log(`unchanged status posts in 4.5 s: ${quiet.length}`);
    // Computed 9 times in 4.5 s; posted every 2 s only: at most 3 posts.
    expect(quiet.length).toBeGreaterThanOrEqual(1);
    expect(quiet.length).toBeLessThanOrEqual(3);
    const before = posts.seen.at(-1)?.value;
    expect(before?.status).toBe("True");
    const changeAt = Date.now();
    cri.down = true;
    const notReady = await waitFor(() => posts.seen.find((p) => p.value?.status === "False"), 5000, "Ready=False posted");
    expect(notReady.at - changeAt).toBeLessThan(2000);
    expect(notReady.value?.reason).toBe("KubeletNotReady");
    expect(Date.parse(String(notReady.value?.lastTransitionTime))).toBeGreaterThanOrEqual(Math.floor(changeAt / 1000) * 1000);
    cri.down = false;
    const ready = await waitFor(() => posts.seen.find((p) => p.at > notReady.at && p.value?.status === "True"), 5000, "Ready=True posted");
    expect(Date.parse(String(ready.value?.lastTransitionTime))).toBeGreaterThanOrEqual(Date.parse(String(notReady.value?.lastTransitionTime)));
    expect(ready.value?.lastHeartbeatTime).toBe(ready.value?.lastTransitionTime);
  }, 30_000);

  it("registers again after its Node is deleted", async () => {
    const old = await c.admin.get(NODES, NODE);
    await c.admin.delete(NODES, NODE);
    const again = await waitFor(async () => {
      const n = await getOrUndefined(c.admin, NODES, NODE);
      return n && n.metadata.uid !== old.metadata.uid && conditions(n).length > 0 ? n : undefined;
    }, 10_000, "node registered again");
    expect(conditions(again).map((x) => x.type)).toContain("Ready");
  });
});
