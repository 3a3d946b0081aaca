/**
 * The dispatch state of one replica: a queue set per priority level of the current
 * configuration, sized from the server's concurrency limit, and the periodic
 * re-division of seats among levels by their demand (`adjust`, which the owner calls
 * every adjustment period). Deterministic: the clock is injected, nothing runs by itself.
 *
 * Configuration changes (`apply`) keep the queue set of a level that stays (new limits
 * and queuing apply to it), add new levels, and keep a removed level that still has
 * requests as "quiescing" until it is idle (then the shares are divided again without
 * it); then, as the platform's digest of a configuration does, they close the demand
 * period and re-divide the seats by demand at once (a new level's initial limit is
 * replaced by its allocation). Each replica enforces
 * its own share: nothing here is shared between replicas.
 */
import type { FlowControlConfig, PriorityLevelView } from "../contract.ts";
import { allocateSeats, allocationItem, levelLimits, nextDemandStats, NO_DEMAND, type DemandStats, type LevelLimits } from "./concurrency-limits.ts";
import { DemandIntegrator } from "./demand-integrator.ts";
import { dumpPriorityLevels, dumpQueues, dumpRequests, type LevelSnapshot } from "./dump.ts";
import { LevelMetrics, type FlowMetrics } from "./metrics.ts";
import { QueueSet, type QueueSetMode, type QueueSetObserver, type RejectReason, type SeatRequest, type SeatRequestSpec } from "./queue-set.ts";

/** How often the seats of the server are re-divided by demand. */
export const BORROWING_ADJUSTMENT_PERIOD_MS = 10_000;

export class PriorityLevelState {
  limits: LevelLimits;
  currentLimit: number;
  quiescing = false;
  stats: DemandStats = NO_DEMAND;
  readonly queues: QueueSet;
  readonly integrator: DemandIntegrator;

  constructor(
    public view: PriorityLevelView,
    limits: LevelLimits,
    now: () => number,
    readonly metrics: LevelMetrics | undefined,
    schedule?: (ms: number, fn: () => void) => void,
  ) {
    this.limits = limits;
    this.currentLimit = limits.initial;
    this.integrator = new DemandIntegrator(now());
    const integrator = this.integrator;
    const observer: QueueSetObserver = {
      waiting: (fs, r, s) => metrics?.waiting(fs, r, s),
      executing: (fs, r, s) => metrics?.executing(fs, r, s),
      dispatched: (fs, w) => metrics?.dispatched(fs, w),
      rejected: (fs, reason, w) => metrics?.rejected(fs, reason, w),
      demand: (seats) => {
        integrator.set(now(), seats);
        metrics?.demand(seats);
      },
    };
    this.queues = new QueueSet(view.name, modeOf(view), this.currentLimit, now, observer, schedule);
    metrics?.limits(limits);
    metrics?.adjusted(this.currentLimit, this.stats, this.currentLimit);
  }

  get name(): string {
    return this.view.name;
  }
}

function modeOf(view: PriorityLevelView): QueueSetMode {
  if (view.type === "Exempt") return { type: "Exempt" };
  const response = view.limitResponse;
  if (!response || response.type === "Reject") return { type: "Reject" };
  const q = response.queuing;
  return { type: "Queue", queues: Math.max(1, q.queues), handSize: Math.max(1, Math.min(q.handSize, q.queues)), queueLengthLimit: Math.max(0, q.queueLengthLimit) };
}

export interface FlowControllerOptions {
  /** `--max-requests-inflight` + `--max-mutating-requests-inflight`. */
  serverConcurrencyLimit: number;
  now?: () => number;
  metrics?: FlowMetrics;
  /** Runs a seat release after a request's additional latency (default: an unref'd timer). */
  schedule?: (ms: number, fn: () => void) => void;
}

export class FlowController {
  private readonly levels = new Map<string, PriorityLevelState>();
  private readonly now: () => number;
  /** Sum of nominal limits: what the adjustment re-divides. */
  private nominalSum = 0;
  private config: FlowControlConfig;

  constructor(
    private readonly opts: FlowControllerOptions,
    config: FlowControlConfig,
  ) {
    this.now = opts.now ?? Date.now;
    this.config = config;
    this.apply(config);
  }

  get serverConcurrencyLimit(): number {
    return this.opts.serverConcurrencyLimit;
  }

  level(name: string): PriorityLevelState | undefined {
    return this.levels.get(name);
  }

  /** Takes a new configuration (levels added, changed, or quiescing until idle). */
  apply(config: FlowControlConfig): void {
    this.config = config;
    const wanted = new Map(config.priorityLevels.map((v) => [v.name, v]));
    // Removed levels that still have requests keep their seats share while they drain.
    const views: PriorityLevelView[] = [...wanted.values()];
    for (const [name, state] of this.levels) {
      if (wanted.has(name)) continue;
      if (state.queues.isIdle) this.levels.delete(name);
      else {
        state.quiescing = true;
        views.push(state.view);
      }
    }
    const limits = levelLimits(views, this.opts.serverConcurrencyLimit);
    this.nominalSum = limits.reduce((s, l) => s + l.nominal, 0);
    views.forEach((view, i) => {
      const existing = this.levels.get(view.name);
      if (!existing) {
        const metrics = this.opts.metrics && new LevelMetrics(this.opts.metrics, view.name, this.opts.serverConcurrencyLimit);
        this.levels.set(view.name, new PriorityLevelState(view, limits[i], this.now, metrics, this.opts.schedule));
        return;
      }
      if (wanted.has(view.name)) existing.quiescing = false;
      existing.view = view;
      existing.limits = limits[i];
      existing.metrics?.limits(limits[i]);
      existing.queues.reconfigure(modeOf(view));
    });
    this.adjust();
  }

  /**
   * Closes the demand statistics of the period that ended and re-divides the nominal
   * seats by demand: each level between max(lower, min(nominal, high watermark)) and its
   * upper limit, proportional to its smoothed demand. Called every adjustment period and
   * on every configuration change.
   */
  adjust(): void {
    const states = [...this.levels.values()];
    const now = this.now();
    for (const s of states) s.stats = nextDemandStats(s.stats, s.integrator.reset(now));
    const items = states.map((s) => allocationItem(s.limits, s.stats));
    const { allocs, fairProp } = allocateSeats(this.nominalSum, items);
    states.forEach((s, i) => {
      s.currentLimit = Math.round(allocs[i]);
      s.queues.setLimit(s.currentLimit);
      s.metrics?.adjusted(s.currentLimit, s.stats, items[i].target);
    });
    this.opts.metrics?.fairFrac.set(fairProp);
    if (states.some((s) => s.quiescing && s.queues.isIdle)) this.apply(this.config);
  }

  /** Starts a request in its level (see QueueSet.start); undefined when the level is unknown. */
  start(levelName: string, spec: SeatRequestSpec): { level: PriorityLevelState; request: SeatRequest } | undefined {
    const level = this.levels.get(levelName);
    if (!level) return undefined;
    level.metrics?.estimated(spec.flowSchema, Math.max(spec.seats, spec.finalSeats ?? 0));
    return { level, request: level.queues.start(spec) };
  }

  finish(level: PriorityLevelState, request: SeatRequest, executedSeconds: number, watch: boolean): void {
    level.queues.finish(request);
    level.metrics?.executed(request.spec.flowSchema, executedSeconds, watch);
    // a drained level that is no longer configured goes, and its share returns to the others
    if (level.quiescing && level.queues.isIdle) this.apply(this.config);
  }

  cancel(level: PriorityLevelState, request: SeatRequest, reason: Extract<RejectReason, "time-out" | "cancelled">): void {
    level.queues.cancel(request, reason);
  }

  private snapshot(): LevelSnapshot[] {
    return [...this.levels.values()].map((s) => ({ name: s.name, quiescing: s.quiescing, isIdle: s.queues.isIdle, dump: s.queues.dump() }));
  }

  dumpPriorityLevels(): string {
    return dumpPriorityLevels(this.snapshot());
  }

  dumpQueues(): string {
    return dumpQueues(this.snapshot());
  }

  dumpRequests(includeRequestDetails: boolean): string {
    return dumpRequests(this.snapshot(), includeRequestDetails);
  }
}
