/**
 * The node lifecycle controller (`node-lifecycle-controller`): a node whose agent has
 * neither renewed its Lease (node lease namespace, same name) nor changed its Ready
 * heartbeat for `--node-monitor-grace-period` (default 50 s) gets every condition set
 * to Unknown; the Ready condition drives the taints (unreachable for Unknown,
 * not-ready for False, NoSchedule and NoExecute; removed when Ready is True again).
 *
 * Silence is measured by this controller's own clock: the moment it saw the heartbeat
 * or the lease change (never the node's timestamps). Each observed heartbeat schedules
 * a check at the end of the grace period; no periodic listing. Eviction of pods from
 * NoExecute-tainted nodes is not done here.
 */
import { isStatusError } from "../../../shared/api/status.ts";
import type { ApiObject } from "../../../shared/client/object-client.ts";
import { queueMetrics, recordAction, type Controller, type ControllerContext } from "../context.ts";
import { WorkQueue } from "../work-queue.ts";
import { reconcileTaints, unknownConditions, type NodeCondition, type Taint } from "./taints.ts";

const NAME = "node-lifecycle-controller";
const NODES = { group: "", version: "v1", resource: "nodes" };

interface Health {
  probeMs: number;
  heartbeat?: string;
  leaseRenew?: string;
}

const conditionsOf = (node: ApiObject): NodeCondition[] => ((node.status as { conditions?: NodeCondition[] } | undefined)?.conditions ?? []);
const nowTime = () => new Date().toISOString().replace(/\.\d{3}Z$/, "Z");

export function startNodeLifecycleController(ctx: ControllerContext): Controller {
  const grace = ctx.settings.nodeMonitorGracePeriodMs ?? 50_000;
  const keys = { unreachable: ctx.profile.taints.unreachable, notReady: ctx.profile.taints.notReady };
  const leasesRes = { group: ctx.profile.group("coordination"), version: "v1", resource: "leases" };
  const nodes = ctx.informers.informer(NODES);
  const leases = ctx.informers.informer(leasesRes, { namespace: ctx.profile.nodeLeaseNamespace });
  const health = new Map<string, Health>();
  const queue = new WorkQueue<string>(sync, { workers: 5, metrics: queueMetrics(ctx, "node_lifecycle_controller"), log: (msg, f) => ctx.log("warn", msg, f) });

  function observe(name: string, heartbeat: string | undefined, leaseRenew: string | undefined): void {
    const h = health.get(name);
    const changed = !h || (heartbeat !== undefined && heartbeat !== h.heartbeat) || (leaseRenew !== undefined && leaseRenew !== h.leaseRenew);
    const next: Health = { probeMs: changed ? Date.now() : (h as Health).probeMs, heartbeat: heartbeat ?? h?.heartbeat, leaseRenew: leaseRenew ?? h?.leaseRenew };
    health.set(name, next);
    queue.add(name);
    if (changed) queue.addAfter(name, grace + 10);
  }

  async function sync(name: string): Promise<void> {
    const node = nodes.get(name);
    if (!node) {
      health.delete(name);
      return;
    }
    const h = health.get(name);
    const conditions = conditionsOf(node);
    const ready = conditions.find((c) => c.type === "Ready");
    if (h && Date.now() - h.probeMs > grace && ready?.status !== "Unknown") {
      recordAction(ctx, NAME, "mark-unknown", NODES, undefined, name);
      try {
        await ctx.client.update(NODES, { ...node, status: { ...(node.status as object), conditions: unknownConditions(conditions, nowTime()) } }, { subresource: "status" });
      } catch (err) {
        if (!isStatusError(err, "Conflict") && !isStatusError(err, "NotFound")) throw err;
      }
      return; // the node's update event brings the Unknown condition and the taints follow
    }
    const taints = ((node.spec as { taints?: Taint[] } | undefined)?.taints ?? []);
    const next = reconcileTaints(keys, taints, ready?.status, nowTime());
    if (!next) return;
    recordAction(ctx, NAME, "taint", NODES, undefined, name);
    try {
      await ctx.client.update(NODES, { ...node, spec: { ...(node.spec as object), taints: next } });
    } catch (err) {
      if (!isStatusError(err, "Conflict") && !isStatusError(err, "NotFound")) throw err;
    }
  }

  const onNode = (node: ApiObject) => {
    if (!node.metadata.name) return;
    observe(node.metadata.name, conditionsOf(node).find((c) => c.type === "Ready")?.lastHeartbeatTime, undefined);
  };
  const onLease = (lease: ApiObject) => {
    if (!lease.metadata.name) return;
    observe(lease.metadata.name, undefined, (lease.spec as { renewTime?: string } | undefined)?.renewTime ?? lease.metadata.resourceVersion);
  };
  nodes.addHandler({ add: onNode, update: (_o, n) => onNode(n), delete: (n) => n.metadata.name && queue.add(n.metadata.name) });
  leases.addHandler({ add: onLease, update: (_o, n) => onLease(n) });
  return { run: () => queue.start(), stop: () => queue.stop() };
}
