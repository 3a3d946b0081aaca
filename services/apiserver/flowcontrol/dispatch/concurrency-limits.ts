/**
 * Seats per priority level, as the platform's API Priority and Fairness divides them.
 * Pure functions, no clock:
 * - the server's concurrency limit is `--max-requests-inflight` + `--max-mutating-requests-inflight`;
 * - a level's nominal limit is `ceil(serverLimit * shares / sum of all shares)` (exempt levels
 *   count with their shares too; the sum of nominal limits may exceed the server limit a little);
 * - `lendable = round(nominal * lendablePercent / 100)`, `borrowing = round(nominal *
 *   borrowingLimitPercent / 100)` or the whole server limit when unset; the level's limit
 *   moves between `lower = nominal - lendable` and `upper = nominal + borrowing`, and starts at
 *   `nominal - floor(lendable / 2)`;
 * - every adjustment period the sum of nominal limits is re-divided by seat demand
 *   (`allocateSeats`): each level gets `clamp(fairProp * target, lower bound, upper bound)`
 *   with one `fairProp` for all, so that the allocations sum to the required total.
 * - the widest request a level with queues accepts: `max(1, min(ceil(0.15 * nominal),
 *   floor(nominal / handSize)))`, however large (the work estimator applies its own limits:
 *   100 seats for a list with size-based estimates, 10 otherwise and for writes); a level
 *   without queues (Reject, Exempt) sets no bound of its own (0).
 */
import type { PriorityLevelView } from "../contract.ts";

/** Share of a level's nominal limit one request may occupy at most. */
export const MAX_SEATS_FRACTION = 0.15;

export function serverConcurrencyLimit(maxRequestsInFlight: number, maxMutatingRequestsInFlight: number): number {
  return Math.max(0, Math.floor(maxRequestsInFlight)) + Math.max(0, Math.floor(maxMutatingRequestsInFlight));
}

export interface LevelLimits {
  name: string;
  nominal: number;
  lendable: number;
  borrowing: number;
  /** nominal - lendable: the level never goes below this. */
  lower: number;
  /** nominal + borrowing: the level never goes above this. */
  upper: number;
  /** The limit a new level starts with: nominal - floor(lendable / 2). */
  initial: number;
  /** The widest request this level accepts (seats); 0: no bound of the level's own. */
  maxRequestSeats: number;
}

/** The nominal, lower, upper and initial limits of every level (in the given order). */
export function levelLimits(levels: readonly PriorityLevelView[], serverLimit: number): LevelLimits[] {
  const shareSum = levels.reduce((sum, l) => sum + Math.max(0, l.nominalConcurrencyShares), 0);
  return levels.map((l) => {
    const nominal = shareSum > 0 ? Math.ceil((serverLimit * Math.max(0, l.nominalConcurrencyShares)) / shareSum) : 0;
    const lendable = Math.round((nominal * clampPercent(l.lendablePercent)) / 100);
    const borrowing = l.type === "Limited" && l.borrowingLimitPercent !== undefined ? Math.round((nominal * Math.max(0, l.borrowingLimitPercent)) / 100) : serverLimit;
    const handSize = l.limitResponse?.type === "Queue" ? Math.max(1, l.limitResponse.queuing.handSize) : 0;
    const fraction = Math.ceil(nominal * MAX_SEATS_FRACTION);
    const maxSeats = handSize > 0 ? Math.max(1, Math.min(fraction, Math.floor(nominal / handSize))) : 0;
    return {
      name: l.name,
      nominal,
      lendable,
      borrowing,
      lower: nominal - lendable,
      upper: nominal + borrowing,
      initial: nominal - Math.floor(lendable / 2),
      maxRequestSeats: maxSeats,
    };
  });
}

function clampPercent(p: number): number {
  return Math.min(100, Math.max(0, p));
}

export interface AllocationItem {
  target: number;
  lowerBound: number;
  upperBound: number;
}

/** A target below this counts as this (a level with no demand still gets a share of the slack). */
export const MIN_TARGET = 0.001;

/**
 * Allocations `clamp(fairProp * target, lower, upper)` summing to `requiredSum`, with the one
 * `fairProp` that achieves it. When the bounds cannot meet the sum, every level gets the bound
 * that is closest (all lower bounds when they already exceed it, all upper bounds when they
 * cannot reach it). Found by bisection on `fairProp` (the sum is monotonic in it).
 */
export function allocateSeats(requiredSum: number, items: readonly AllocationItem[]): { allocs: number[]; fairProp: number } {
  const targets = items.map((i) => Math.max(MIN_TARGET, i.target));
  const lowSum = items.reduce((s, i) => s + i.lowerBound, 0);
  const highSum = items.reduce((s, i) => s + i.upperBound, 0);
  if (items.length === 0 || requiredSum <= 0) return { allocs: items.map(() => 0), fairProp: 0 };
  if (lowSum >= requiredSum) return { allocs: items.map((i) => i.lowerBound), fairProp: Math.min(...items.map((i, k) => i.lowerBound / targets[k])) };
  if (highSum <= requiredSum) return { allocs: items.map((i) => i.upperBound), fairProp: Math.max(...items.map((i, k) => i.upperBound / targets[k])) };
  const at = (prop: number): number[] => items.map((i, k) => Math.max(i.lowerBound, Math.min(i.upperBound, prop * targets[k])));
  const sumAt = (prop: number): number => at(prop).reduce((s, a) => s + a, 0);
  let lo = 0;
  let hi = Math.max(...items.map((i, k) => i.upperBound / targets[k]));
  for (let step = 0; step < 200 && hi - lo > 1e-12 * Math.max(1, hi); step++) {
    const mid = (lo + hi) / 2;
    if (sumAt(mid) < requiredSum) lo = mid;
    else hi = mid;
  }
  return { allocs: at(hi), fairProp: hi };
}

/** The smoothing of seat demand between adjustments: a half-life of about 5 minutes at a 10 s period. */
export const SEAT_DEMAND_SMOOTHING = 0.977;

/** What a level's seat-demand integrator saw over one adjustment period. */
export interface DemandObservation {
  /** Milliseconds covered; 0 when nothing was observed. */
  durationMs: number;
  average: number;
  deviation: number;
  max: number;
}

export interface DemandStats {
  average: number;
  deviation: number;
  highWatermark: number;
  /** max(avg + stdDev, A * smoothed + (1 - A) * (avg + stdDev)). */
  smoothed: number;
}

export const NO_DEMAND: DemandStats = { average: 0, deviation: 0, highWatermark: 0, smoothed: 0 };

export function nextDemandStats(prev: DemandStats, obs: DemandObservation): DemandStats {
  if (obs.durationMs <= 0) return { ...prev, highWatermark: obs.max };
  const deviation = Number.isNaN(obs.deviation) ? 0 : obs.deviation;
  const envelope = obs.average + deviation;
  const smoothed = Math.max(envelope, SEAT_DEMAND_SMOOTHING * prev.smoothed + (1 - SEAT_DEMAND_SMOOTHING) * envelope);
  return { average: obs.average, deviation, highWatermark: obs.max, smoothed };
}

/** One level's bounds and target for the next re-division. */
export function allocationItem(limits: Pick<LevelLimits, "nominal" | "lower" | "upper">, stats: DemandStats): AllocationItem {
  const lowerBound = Math.max(limits.lower, Math.min(limits.nominal, stats.highWatermark));
  return { lowerBound, upperBound: Math.max(lowerBound, limits.upper), target: Math.max(lowerBound, stats.smoothed) };
}
