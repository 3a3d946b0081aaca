/**
 * The node lifecycle controller's metrics, as the platform's `node_collector_*` family:
 * per zone (label `zone`, the zone key of zones.ts) the number of nodes
 * (`zone_size`), of nodes not Ready (`unhealthy_nodes_in_zone`) and the percentage of
 * Ready ones (`zone_health`); `evictions_total` (STABLE) counts the NoExecute condition
 * taints added to a zone's nodes (a node eviction); the two durations time one node's
 * health update and a pass over all nodes (the zone states). `evictions_number` is the
 * deprecated (1.24) ALPHA twin of `evictions_total`: declared, hence hidden.
 *
 * Declared once per registry, when the controller first starts (as the platform
 * registers them with the controller), so they are absent when it is disabled.
 */
import type { Counter, Gauge, Histogram } from "prom-client";
import type { MetricsRegistry } from "../../../shared/observability/metrics.ts";

/** `count` buckets from `start`, each `factor` times the previous. */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  const out = [start];
  while (out.length < count) out.push(out[out.length - 1] * factor);
  return out;
}

export interface NodeCollectorMetrics {
  zoneHealth: Gauge<"zone">;
  zoneSize: Gauge<"zone">;
  unhealthyNodes: Gauge<"zone">;
  evictionsTotal: Counter<"zone">;
  updateNodeHealthDuration: Histogram;
  updateAllNodesHealthDuration: Histogram;
}

/** What a pass over the zones reports: every zone's node count and not-Ready count. */
export interface ZoneCounts {
  size: number;
  unhealthy: number;
}

const declared = new WeakMap<MetricsRegistry, NodeCollectorMetrics>();

export function nodeCollectorMetrics(m: MetricsRegistry): NodeCollectorMetrics {
  const existing = declared.get(m);
  if (existing) return existing;
  const zone = ["zone"] as const;
  const metrics: NodeCollectorMetrics = {
    zoneHealth: m.gauge({ name: "node_collector_zone_health", help: "Gauge measuring percentage of healthy nodes per zone.", labelNames: zone }),
    zoneSize: m.gauge({ name: "node_collector_zone_size", help: "Gauge measuring number of registered Nodes per zones.", labelNames: zone }),
    unhealthyNodes: m.gauge({ name: "node_collector_unhealthy_nodes_in_zone", help: "Gauge measuring number of not Ready Nodes per zones.", labelNames: zone }),
    evictionsTotal: m.counter({ name: "node_collector_evictions_total", help: "Number of Node evictions that happened since current instance of NodeController started.", labelNames: zone, stabilityLevel: "STABLE" }),
    updateNodeHealthDuration: m.histogram({ name: "node_collector_update_node_health_duration_seconds", help: "Duration in seconds for NodeController to update the health of a single node.", buckets: exponentialBuckets(0.001, 4, 8) }),
    updateAllNodesHealthDuration: m.histogram({ name: "node_collector_update_all_nodes_health_duration_seconds", help: "Duration in seconds for NodeController to update the health of all nodes.", buckets: exponentialBuckets(0.01, 4, 8) }),
  };
  m.counter({
    name: "node_collector_evictions_number",
    help: "Number of Node evictions that happened since current instance of NodeController started, This metric is replaced by node_collector_evictions_total.",
    labelNames: zone,
    deprecatedVersion: "1.24",
  });
  declared.set(m, metrics);
  return metrics;
}

/** Sets the three zone gauges from a pass; a zone no longer there reads as empty and healthy (0 nodes, 100 %), as on the platform. */
export function reportZones(metrics: NodeCollectorMetrics, zones: ReadonlyMap<string, ZoneCounts>, gone: Iterable<string>): void {
  for (const zone of gone) {
    metrics.zoneSize.set({ zone }, 0);
    metrics.zoneHealth.set({ zone }, 100);
    metrics.unhealthyNodes.set({ zone }, 0);
  }
  for (const [zone, c] of zones) {
    metrics.zoneSize.set({ zone }, c.size);
    metrics.zoneHealth.set({ zone }, c.size === 0 ? 100 : (100 * (c.size - c.unhealthy)) / c.size);
    metrics.unhealthyNodes.set({ zone }, c.unhealthy);
  }
}
