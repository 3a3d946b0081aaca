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
 *
 * NoExecute taints (the ones that evict pods) are added at the zone's rate (zones.ts:
 * `--node-eviction-rate`, `--secondary-node-eviction-rate`, `--unhealthy-zone-threshold`,
 * `--large-cluster-size-threshold`; zone states Normal / PartialDisruption /
 * FullDisruption from the nodes' Ready conditions, logged when they change): a node
 * over the limit gets its NoSchedule taint at once and its NoExecute taint when the
 * zone's bucket has a token. When every zone is in FullDisruption no NoExecute taint is
 * added and those there are removed.
 *
 * Metrics (metrics.ts, `node_collector_*`): the zone gauges are set by every zone pass
 * (a pass skipped by the refresh limit runs when the limit allows), which is timed as
 * `update_all_nodes_health_duration_seconds`; each node's sync is timed as
 * `update_node_health_duration_seconds`; `evictions_total` counts the NoExecute
 * condition taints this controller added, by zone.
 */
import { isStatusError } from "../../../shared/api/status.ts";
import type { ApiObject } from "../../../shared/client/object-client.ts";
import { queueMetrics, recordAction, type Controller, type ControllerContext } from "../context.ts";
import { WorkQueue } from "../../../shared/client/work-queue.ts";
import { nodeCollectorMetrics, reportZones, type ZoneCounts } from "./metrics.ts";
import { reconcileTaints, unknownConditions, type NodeCondition, type Taint } from "./taints.ts";
import { allZonesFullyDisrupted, DEFAULT_EVICTION_SETTINGS, TokenBucket, zoneEvictionRate, zoneKey, zoneState, type ZoneState } from "./zones.ts";

const NAME = "node-lifecycle-controller";
const NODES = { group: "", version: "v1", resource: "nodes" };

interface Health {
  probeMs: number;
  heartbeat?: string;
  leaseRenew?: string;
}

const conditionsOf = (node: ApiObject): NodeCondition[] => ((node.status as { conditions?: NodeCondition[] } | undefined)?.conditions ?? []);
const nowTime = () => new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
/** Zone states are recomputed from the node cache at most this often. */
const ZONE_REFRESH_MS = 500;

export function startNodeLifecycleController(ctx: ControllerContext): Controller {
  const grace = ctx.settings.nodeMonitorGracePeriodMs ?? 50_000;
  const keys = { unreachable: ctx.profile.taints.unreachable, notReady: ctx.profile.taints.notReady };
  const leasesRes = { group: ctx.profile.group("coordination"), version: "v1", resource: "leases" };
  const nodes = ctx.informers.informer(NODES);
  const leases = ctx.informers.informer(leasesRes, { namespace: ctx.profile.nodeLeaseNamespace });
  const health = new Map<string, Health>();
  const eviction = ctx.settings.nodeEviction ?? DEFAULT_EVICTION_SETTINGS;
  const buckets = new Map<string, TokenBucket>();
  const zoneStates = new Map<string, ZoneState>();
  let zonesAt = 0;
  let refreshLater: NodeJS.Timeout | undefined;
  const metrics = ctx.metrics ? nodeCollectorMetrics(ctx.metrics.registry) : undefined;
  let fullDisruption = false;
  const zoneOf = (node: ApiObject) => zoneKey(node.metadata.labels, ctx.profile.labels.region, ctx.profile.labels.zone);

  /** Zone states and bucket rates from the node cache (every node's Ready condition). */
  function refreshZones(): void {
    const now = Date.now();
    if (now - zonesAt < ZONE_REFRESH_MS) {
      refreshLater ??= setTimeout(() => {
        refreshLater = undefined;
        refreshZones();
      }, ZONE_REFRESH_MS - (now - zonesAt));
      return;
    }
    zonesAt = now;
    const started = performance.now();
    const counts = new Map<string, { ready: number; notReady: number }>();
    for (const node of nodes.list()) {
      const c = counts.get(zoneOf(node)) ?? { ready: 0, notReady: 0 };
      if (conditionsOf(node).find((x) => x.type === "Ready")?.status === "True") c.ready++;
      else c.notReady++;
      counts.set(zoneOf(node), c);
    }
    const gone = [...zoneStates.keys()].filter((zone) => !counts.has(zone));
    for (const zone of gone) zoneStates.delete(zone);
    for (const [zone, c] of counts) {
      const state = zoneState(c.ready, c.notReady, eviction.unhealthyZoneThreshold);
      if (zoneStates.get(zone) !== state) ctx.log("info", "Controller detected that zone is now in state", { zone: JSON.stringify(zone), state });
      zoneStates.set(zone, state);
      const rate = zoneEvictionRate(state, c.ready + c.notReady, eviction);
      const bucket = buckets.get(zone);
      if (bucket) bucket.setRate(rate, now);
      else buckets.set(zone, new TokenBucket(rate));
    }
    const all = allZonesFullyDisrupted(zoneStates.values());
    if (all !== fullDisruption) {
      ctx.log(all ? "error" : "info", all ? "Controller detected that all Nodes are not-Ready. Entering master disruption mode." : "Controller detected that some Nodes are Ready. Exiting master disruption mode.", {});
      fullDisruption = all;
      // Every node is re-decided: taints held back or removed come (back) now.
      for (const node of nodes.list()) if (node.metadata.name) queue.add(node.metadata.name);
    }
    if (metrics) {
      const sizes = new Map<string, ZoneCounts>([...counts].map(([zone, c]) => [zone, { size: c.ready + c.notReady, unhealthy: c.notReady }]));
      reportZones(metrics, sizes, gone);
      metrics.updateAllNodesHealthDuration.observe((performance.now() - started) / 1000);
    }
  }

  const managedNoExecute = (t: Taint) => t.effect === "NoExecute" && (t.key === keys.unreachable || t.key === keys.notReady);
  const newTaints = (current: readonly Taint[], next: readonly Taint[]) => next.filter((t) => !current.some((c) => c.key === t.key && c.effect === t.effect));

  /**
   * The taints to write once the zone's limits apply: a NoExecute condition taint not
   * yet on the node needs a token (else it is retried when one is due); in master
   * disruption mode none is added and those there go.
   */
  function limitNoExecute(node: ApiObject, current: readonly Taint[], next: Taint[]): Taint[] {
    if (fullDisruption) return next.filter((t) => !managedNoExecute(t));
    const adding = newTaints(current, next).filter(managedNoExecute);
    if (adding.length === 0) return next;
    const wait = buckets.get(zoneOf(node))?.take(Date.now()) ?? 0;
    if (wait === 0) return next;
    if (Number.isFinite(wait)) queue.addAfter(node.metadata.name ?? "", Math.ceil(wait) + 5);
    else queue.addAfter(node.metadata.name ?? "", ZONE_REFRESH_MS * 2);
    return next.filter((t) => !adding.includes(t));
  }
  const queue = new WorkQueue<string>(timedSync, { workers: 5, metrics: queueMetrics(ctx, "node_lifecycle_controller"), log: (msg, f) => ctx.log("warn", msg, f) });

  function observe(name: string, heartbeat: string | undefined, leaseRenew: string | undefined): void {
    const h = health.get(name);
    const changed = !h || (heartbeat !== undefined && heartbeat !== h.heartbeat) || (leaseRenew !== undefined && leaseRenew !== h.leaseRenew);
    const next: Health = { probeMs: changed ? Date.now() : (h as Health).probeMs, heartbeat: heartbeat ?? h?.heartbeat, leaseRenew: leaseRenew ?? h?.leaseRenew };
    health.set(name, next);
    queue.add(name);
    if (changed) queue.addAfter(name, grace + 10);
  }

  async function timedSync(name: string): Promise<void> {
    const started = performance.now();
    try {
      await sync(name);
    } finally {
      metrics?.updateNodeHealthDuration.observe((performance.now() - started) / 1000);
    }
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
    // Still within its grace period: check again when it ends (a recheck asked earlier may fire first; this one is the one that counts).
    if (h && ready?.status !== "Unknown") queue.addAfter(name, Math.max(0, h.probeMs + grace - Date.now()) + 10);
    const taints = ((node.spec as { taints?: Taint[] } | undefined)?.taints ?? []);
    refreshZones();
    const wanted = reconcileTaints(keys, taints, ready?.status, nowTime());
    const next = limitNoExecute(node, taints, wanted ?? [...taints]);
    if (next.length === taints.length && next.every((t, i) => t === taints[i] || (t.key === taints[i].key && t.effect === taints[i].effect))) return;
    recordAction(ctx, NAME, "taint", NODES, undefined, name);
    try {
      await ctx.client.update(NODES, { ...node, spec: { ...(node.spec as object), taints: next } });
      if (newTaints(taints, next).some(managedNoExecute)) metrics?.evictionsTotal.inc({ zone: zoneOf(node) });
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
  return {
    run: () => queue.start(),
    stop: () => {
      if (refreshLater) clearTimeout(refreshLater);
      queue.stop();
    },
  };
}
