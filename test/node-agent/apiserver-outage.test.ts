/**
 * Fault: every API server unreachable for the node agent (the relay it talks through
 * refuses connections), while the controller manager's node lifecycle controller
 * (in process over HTTPS, grace period 2 s) keeps watching. The agent keeps running and
 * backs off; the controller marks the node Unknown with the unreachable taints after
 * the grace period; when the API is reachable again the agent's next Lease renewal and
 * status post make the node Ready and the taints go.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runControllers, type RunningControllers } from "../../services/controller-manager/controllers.ts";
import type { ApiObject, ResourceRef } from "../../shared/client/object-client.ts";
import { startCriServer, type CriServer } from "../support/cri-server.ts";
import { NODES, getOrUndefined, startAgentProcess, startAgentTestCluster, waitFor, type AgentProcess, type AgentTestCluster } from "./harness.ts";

const NODE = "outage-node";
const GRACE_MS = 2000;
const OUTAGE_MS = 6000;
let c: AgentTestCluster;
let cri: CriServer;
let agent: AgentProcess;
let controllers: RunningControllers;
let leases: ResourceRef;

type Taint = { key: string; effect: string };
const readyOf = (n: ApiObject | undefined) => ((n?.status as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions ?? []).find((x) => x.type === "Ready")?.status;
const unreachable = (n: ApiObject | undefined) => ((n?.spec as { taints?: Taint[] } | undefined)?.taints ?? []).filter((t) => t.key === c.api.profile.taints.unreachable);

beforeAll(async () => {
  c = await startAgentTestCluster();
  leases = { group: c.api.profile.group("coordination"), version: "v1", resource: "leases" };
  cri = await startCriServer();
  controllers = await runControllers(c.admin, { controllers: ["nodelifecycle"], namespaceFinalizer: c.api.profile.namespaceFinalizer, profile: c.api.profile, settings: { nodeMonitorGracePeriodMs: GRACE_MS } });
  const kubeconfig = await c.kubeconfigFor(`system:node:${NODE}`, ["system:nodes"]);
  agent = await startAgentProcess(["--kubeconfig", kubeconfig, "--hostname-override", NODE, "--container-runtime-endpoint", cri.endpoint, "--node-lease-duration-seconds", "4", "--node-status-update-frequency", "500ms", "--node-status-report-frequency", "2s"]);
}, 60_000);
afterAll(async () => {
  controllers?.stop();
  await agent?.stop();
  await cri?.close();
  await c?.close();
});

describe("all API servers unreachable", () => {
  it("the node turns Unknown with the unreachable taints, and Ready without them once the agent reaches the API again", async () => {
    await waitFor(async () => (readyOf(await getOrUndefined(c.admin, NODES, NODE)) === "True" ? true : undefined), 20_000, "node Ready");
    await c.relay.cut();
    const cutAt = Date.now();
    const marked = await waitFor(async () => {
      const n = await getOrUndefined(c.admin, NODES, NODE);
      return readyOf(n) === "Unknown" && unreachable(n).length === 2 ? Date.now() : undefined;
    }, OUTAGE_MS, "node Unknown with the unreachable taints");
    console.log(`outage: node Unknown and tainted ${marked - cutAt} ms after the API became unreachable (grace ${GRACE_MS} ms)`);
    await new Promise((r) => setTimeout(r, Math.max(0, cutAt + OUTAGE_MS - Date.now())));
    await c.relay.restore();
    const restoredAt = Date.now();
    const lease = await waitFor(async () => {
      const l = await c.admin.get(leases, NODE, { namespace: c.api.profile.nodeLeaseNamespace });
      return Date.parse(String((l.spec as { renewTime: string }).renewTime)) > restoredAt - 50 ? l : undefined;
    }, 12_000, "lease renewed after the outage");
    expect(lease.spec).toMatchObject({ holderIdentity: NODE });
    const recovered = await waitFor(async () => {
      const n = await getOrUndefined(c.admin, NODES, NODE);
      return readyOf(n) === "True" && unreachable(n).length === 0 ? Date.now() : undefined;
    }, 15_000, "node Ready again without the taints");
    console.log(`outage: node Ready and untainted ${recovered - restoredAt} ms after the API came back`);
    // The same process (no restart) renewed: it kept running through the outage, retrying.
    const retried = agent.logs().filter((l) => l.msg === "failed to ensure lease exists, will retry" || /retry/.test(String(l.msg)));
    expect(retried.length).toBeGreaterThan(0);
  }, 60_000);
});
