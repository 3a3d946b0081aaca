/**
 * Zone-aware eviction limits of node lifecycle, as the platform's (pure):
 * - a node's zone is its region and zone labels (the profile's topology labels); nodes
 *   without them share the zone "";
 * - a zone's state from its nodes' Ready conditions: FullDisruption when no node is
 *   Ready and at least one is not; PartialDisruption when more than 2 are not Ready and
 *   they are at least `--unhealthy-zone-threshold` (0.55) of the zone; Normal otherwise;
 * - the rate at which NoExecute taints are added to unhealthy nodes of a zone:
 *   `--node-eviction-rate` (0.1 nodes/s) when Normal or FullDisruption; when
 *   PartialDisruption, `--secondary-node-eviction-rate` (0.01) if the zone has more than
 *   `--large-cluster-size-threshold` (50) nodes, else 0 (evictions stop);
 * - when every zone is in FullDisruption (the control plane most likely lost sight of
 *   all nodes), no NoExecute taint is added anywhere and the ones there are removed.
 * The token bucket (burst 1, as the platform's) lets one node through at once and then
 * one per 1/rate seconds.
 */

export type ZoneState = "Normal" | "PartialDisruption" | "FullDisruption";

export interface EvictionSettings {
  evictionRate: number;
  secondaryEvictionRate: number;
  unhealthyZoneThreshold: number;
  largeClusterSizeThreshold: number;
}

export const DEFAULT_EVICTION_SETTINGS: EvictionSettings = { evictionRate: 0.1, secondaryEvictionRate: 0.01, unhealthyZoneThreshold: 0.55, largeClusterSizeThreshold: 50 };

export function zoneKey(labels: Readonly<Record<string, string>> | undefined, regionLabel: string, zoneLabel: string): string {
  const region = labels?.[regionLabel] ?? "";
  const zone = labels?.[zoneLabel] ?? "";
  return region === "" && zone === "" ? "" : `${region}:\x00:${zone}`;
}

export function zoneState(ready: number, notReady: number, threshold: number): ZoneState {
  if (ready === 0 && notReady > 0) return "FullDisruption";
  if (notReady > 2 && notReady / (notReady + ready) >= threshold) return "PartialDisruption";
  return "Normal";
}

/** Nodes per second that may get a NoExecute taint in a zone of `size` nodes in `state`. */
export function zoneEvictionRate(state: ZoneState, size: number, s: EvictionSettings): number {
  if (state === "PartialDisruption") return size > s.largeClusterSizeThreshold ? s.secondaryEvictionRate : 0;
  return s.evictionRate;
}

/** Every zone is in FullDisruption (and there is at least one). */
export function allZonesFullyDisrupted(states: Iterable<ZoneState>): boolean {
  let any = false;
  for (const st of states) {
    if (st !== "FullDisruption") return false;
    any = true;
  }
  return any;
}

/** A token bucket with burst 1: `take(now)` is 0 when a token is there (and takes it), else the ms to wait. */
export class TokenBucket {
  private nextFreeMs = Number.NEGATIVE_INFINITY;

  constructor(private rate: number) {}

  setRate(rate: number, nowMs: number): void {
    if (rate === this.rate) return;
    // A bucket that was stopped starts with a token; a slower one keeps its schedule.
    if (this.rate === 0) this.nextFreeMs = nowMs;
    this.rate = rate;
  }

  take(nowMs: number): number {
    if (this.rate <= 0) return Number.POSITIVE_INFINITY;
    if (nowMs >= this.nextFreeMs) {
      this.nextFreeMs = nowMs + 1000 / this.rate;
      return 0;
    }
    return this.nextFreeMs - nowMs;
  }
}
