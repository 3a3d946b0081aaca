/**
 * The platform's `apiserver_flowcontrol_*` metrics (names, labels, buckets and stability
 * classes of release 1.35), declared on the replica's registry, and the observer that
 * keeps them for one priority level. The request path records through series held per
 * (level, schema) (shared/observability/series.ts): no label object is validated or
 * hashed per request. The metrics of a variable over time (`demand_seats`,
 * `priority_level_seat_utilization`) are timing ratio histograms, as the platform's: each
 * nanosecond the ratio holds is one observation (timing-histogram.ts), not each change.
 */
import type { Gauge } from "prom-client";
import type { CounterSeries, GaugeSeries, HistogramSeries, MetricsRegistry, SeriesCounter, SeriesGauge, SeriesHistogram } from "../../../../shared/observability/metrics.ts";
import type { DemandStats, LevelLimits } from "./concurrency-limits.ts";
import type { QueueSetObserver, RejectReason } from "./queue-set.ts";
import { exposeTimingHistogram } from "./timing-export.ts";
import { TimingRatioHistogram } from "./timing-histogram.ts";

const DURATION_BUCKETS = [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30];
const DEMAND_BUCKETS = [0.2, 0.4, 0.6, 0.8, 1, 1.2, 1.4, 1.7, 2, 2.8, 4, 6];
/** Both 0.99 and 1 so that quantiles show saturation. */
const UTILIZATION_BUCKETS = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1];

/** The timing ratio histograms of every level, by metric, exposed at each scrape. */
interface TimingFamilies {
  demand: Map<string, TimingRatioHistogram>;
  seatUtilization: Map<string, TimingRatioHistogram>;
}

type PlFs = "priority_level" | "flow_schema";

export interface FlowMetrics {
  rejected: SeriesCounter<PlFs | "reason">;
  dispatched: SeriesCounter<PlFs>;
  inqueueRequests: SeriesGauge<PlFs>;
  inqueueSeats: SeriesGauge<PlFs>;
  executingRequests: SeriesGauge<PlFs>;
  executingSeats: SeriesGauge<PlFs>;
  waitDuration: SeriesHistogram<PlFs | "execute">;
  executionSeconds: SeriesHistogram<PlFs | "type">;
  workEstimatedSeats: SeriesHistogram<PlFs>;
  watchCountSamples: SeriesHistogram<PlFs>;
  nominalLimit: Gauge<"priority_level">;
  lowerLimit: Gauge<"priority_level">;
  upperLimit: Gauge<"priority_level">;
  currentLimit: Gauge<"priority_level">;
  demandSeats: SeriesHistogram<"priority_level">;
  seatUtilization: SeriesHistogram<"priority_level">;
  demandHighWatermark: Gauge<"priority_level">;
  demandAverage: Gauge<"priority_level">;
  demandStdev: Gauge<"priority_level">;
  demandSmoothed: Gauge<"priority_level">;
  targetSeats: Gauge<"priority_level">;
  fairFrac: Gauge<string>;
  timing: TimingFamilies;
  now: () => number;
}

const PL_FS: PlFs[] = ["priority_level", "flow_schema"];

export function declareFlowMetrics(m: MetricsRegistry, now: () => number = Date.now): FlowMetrics {
  const fc = (name: string) => `apiserver_flowcontrol_${name}`;
  const timing: TimingFamilies = { demand: new Map(), seatUtilization: new Map() };
  const timed = (name: string, help: string, buckets: number[], family: Map<string, TimingRatioHistogram>, constLabels: Record<string, string> = {}) => {
    const h = m.histogram({ name: fc(name), help, labelNames: ["priority_level"], stabilityLevel: "ALPHA", buckets });
    exposeTimingHistogram(h, fc(name), () => [...family].map(([level, t]) => ({ labels: { ...constLabels, priority_level: level }, snapshot: t.snapshot(now()) })));
    return h;
  };
  const perLevel = (name: string, help: string, stabilityLevel: "ALPHA" | "BETA" = "ALPHA") => m.gauge({ name: fc(name), help, labelNames: ["priority_level"], stabilityLevel });
  return {
    rejected: m.counter({ name: fc("rejected_requests_total"), help: "Number of requests rejected by API Priority and Fairness subsystem", labelNames: [...PL_FS, "reason"], stabilityLevel: "BETA" }),
    dispatched: m.counter({ name: fc("dispatched_requests_total"), help: "Number of requests executed by API Priority and Fairness subsystem", labelNames: PL_FS, stabilityLevel: "BETA" }),
    inqueueRequests: m.gauge({ name: fc("current_inqueue_requests"), help: "Number of requests currently pending in queues of the API Priority and Fairness subsystem", labelNames: PL_FS, stabilityLevel: "BETA" }),
    inqueueSeats: m.gauge({ name: fc("current_inqueue_seats"), help: "Number of seats currently pending in queues of the API Priority and Fairness subsystem", labelNames: PL_FS, stabilityLevel: "ALPHA" }),
    executingRequests: m.gauge({
      name: fc("current_executing_requests"),
      help: "Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem",
      labelNames: PL_FS,
      stabilityLevel: "BETA",
    }),
    executingSeats: m.gauge({
      name: fc("current_executing_seats"),
      help: "Concurrency (number of seats) occupied by the currently executing (initial stage for a WATCH, any stage otherwise) requests in the API Priority and Fairness subsystem",
      labelNames: PL_FS,
      stabilityLevel: "BETA",
    }),
    waitDuration: m.histogram({ name: fc("request_wait_duration_seconds"), help: "Length of time a request spent waiting in its queue", labelNames: [...PL_FS, "execute"], stabilityLevel: "BETA", buckets: DURATION_BUCKETS }),
    executionSeconds: m.histogram({
      name: fc("request_execution_seconds"),
      help: "Duration of initial stage (for a WATCH) or any (for a non-WATCH) stage of request execution in the API Priority and Fairness subsystem",
      labelNames: [...PL_FS, "type"],
      stabilityLevel: "ALPHA",
      buckets: DURATION_BUCKETS,
    }),
    workEstimatedSeats: m.histogram({
      name: fc("work_estimated_seats"),
      help: "Number of estimated seats (maximum of initial and final seats) associated with requests in API Priority and Fairness",
      labelNames: PL_FS,
      stabilityLevel: "ALPHA",
      buckets: [1, 2, 4, 10],
    }),
    watchCountSamples: m.histogram({
      name: fc("watch_count_samples"),
      help: "count of watchers for mutating requests in API Priority and Fairness",
      labelNames: PL_FS,
      stabilityLevel: "ALPHA",
      buckets: [0, 1, 10, 100, 1000, 10000],
    }),
    nominalLimit: perLevel("nominal_limit_seats", "Nominal number of execution seats configured for each priority level", "BETA"),
    lowerLimit: perLevel("lower_limit_seats", "Configured lower bound on number of execution seats available to each priority level"),
    upperLimit: perLevel("upper_limit_seats", "Configured upper bound on number of execution seats available to each priority level"),
    currentLimit: perLevel("current_limit_seats", "current derived number of execution seats available to each priority level"),
    demandSeats: timed(
      "demand_seats",
      "Observations, at the end of every nanosecond, of (the number of seats each priority level could use) / (current seat limit for that level if that is not zero otherwise max(1, round(server seat limit/10.0)))",
      DEMAND_BUCKETS,
      timing.demand,
    ),
    seatUtilization: timed(
      "priority_level_seat_utilization",
      "Observations, at the end of every nanosecond, of utilization of seats for any stage of execution (but only initial stage for WATCHes); denominator is current seat limit or max(1, round(server seat limit/10))",
      UTILIZATION_BUCKETS,
      timing.seatUtilization,
      { phase: "executing" },
    ),
    demandHighWatermark: perLevel("demand_seats_high_watermark", "High watermark, over last adjustment period, of demand_seats"),
    demandAverage: perLevel("demand_seats_average", "Time-weighted average, over last adjustment period, of demand_seats"),
    demandStdev: perLevel("demand_seats_stdev", "Time-weighted standard deviation, over last adjustment period, of demand_seats"),
    demandSmoothed: perLevel("demand_seats_smoothed", "Smoothed seat demands"),
    targetSeats: perLevel("target_seats", "Seat allocation targets"),
    fairFrac: m.gauge({ name: fc("seat_fair_frac"), help: "Fair fraction of server's concurrency to allocate to each priority level that can use it", stabilityLevel: "ALPHA" }),
    timing,
    now,
  };
}

/** The series of one (level, schema), made on its first request and kept. */
interface FlowSeries {
  plain: Readonly<Record<PlFs, string>>;
  inqueueRequests: GaugeSeries;
  inqueueSeats: GaugeSeries;
  executingRequests: GaugeSeries;
  executingSeats: GaugeSeries;
  dispatched: CounterSeries;
  waitedExecute: HistogramSeries;
  waitedRejected: HistogramSeries;
  regular: HistogramSeries;
  watch: HistogramSeries;
  estimatedSeats: HistogramSeries;
  watchCount: HistogramSeries;
}

const MAX_FLOW_LABELS = 1024;

/** The metrics of one priority level: what its queue set reports, and its limits. */
export class LevelMetrics implements QueueSetObserver {
  private readonly byFlow = new Map<string, FlowSeries>();
  private readonly level: Readonly<Record<"priority_level", string>>;
  /** Seats demanded (occupied plus waiting) over the denominator, in time. */
  private readonly demandRatio: TimingRatioHistogram;
  /** Seats occupied over the denominator, in time. */
  private readonly seatRatio: TimingRatioHistogram;
  private seatsInUse = 0;

  constructor(
    private readonly m: FlowMetrics,
    readonly priorityLevel: string,
    private readonly serverLimit: number,
  ) {
    this.level = { priority_level: priorityLevel };
    // the denominator: the current limit, or max(1, round(server limit / 10)) when it is 0 (set by `adjusted`)
    this.demandRatio = new TimingRatioHistogram(DEMAND_BUCKETS, m.now());
    this.seatRatio = new TimingRatioHistogram(UTILIZATION_BUCKETS, m.now());
    m.timing.demand.set(priorityLevel, this.demandRatio);
    m.timing.seatUtilization.set(priorityLevel, this.seatRatio);
  }

  /** The series of a schema's requests at this level (schemas past MAX_FLOW_LABELS are not kept: their series are looked up again). */
  series(flowSchema: string): FlowSeries {
    let l = this.byFlow.get(flowSchema);
    if (!l) {
      const m = this.m;
      const plain = { priority_level: this.priorityLevel, flow_schema: flowSchema };
      l = {
        plain,
        inqueueRequests: m.inqueueRequests.series(plain),
        inqueueSeats: m.inqueueSeats.series(plain),
        executingRequests: m.executingRequests.series(plain),
        executingSeats: m.executingSeats.series(plain),
        dispatched: m.dispatched.series(plain),
        waitedExecute: m.waitDuration.series({ ...plain, execute: "true" }),
        waitedRejected: m.waitDuration.series({ ...plain, execute: "false" }),
        regular: m.executionSeconds.series({ ...plain, type: "regular" }),
        watch: m.executionSeconds.series({ ...plain, type: "watch" }),
        estimatedSeats: m.workEstimatedSeats.series(plain),
        watchCount: m.watchCountSamples.series(plain),
      };
      if (this.byFlow.size < MAX_FLOW_LABELS) this.byFlow.set(flowSchema, l);
    }
    return l;
  }

  waiting(flowSchema: string, deltaRequests: number, deltaSeats: number): void {
    const l = this.series(flowSchema);
    l.inqueueRequests.inc(deltaRequests);
    l.inqueueSeats.inc(deltaSeats);
  }

  executing(flowSchema: string, deltaRequests: number, deltaSeats: number): void {
    const l = this.series(flowSchema);
    l.executingRequests.inc(deltaRequests);
    l.executingSeats.inc(deltaSeats);
    if (deltaSeats !== 0) {
      this.seatsInUse += deltaSeats;
      this.seatRatio.setNumerator(this.m.now(), this.seatsInUse);
    }
  }

  dispatched(flowSchema: string, waitedMs: number): void {
    const l = this.series(flowSchema);
    l.dispatched.inc();
    l.waitedExecute.observe(waitedMs / 1000);
  }

  rejected(flowSchema: string, reason: RejectReason, waitedMs: number): void {
    const l = this.series(flowSchema);
    this.m.rejected.inc({ ...l.plain, reason });
    l.waitedRejected.observe(waitedMs / 1000);
  }

  demand(seats: number): void {
    this.demandRatio.setNumerator(this.m.now(), seats);
  }

  executed(flowSchema: string, seconds: number, watch: boolean): void {
    const l = this.series(flowSchema);
    (watch ? l.watch : l.regular).observe(seconds);
  }

  estimated(flowSchema: string, seats: number): void {
    this.series(flowSchema).estimatedSeats.observe(seats);
  }

  watchCount(flowSchema: string, watches: number): void {
    this.series(flowSchema).watchCount.observe(watches);
  }

  limits(limits: LevelLimits): void {
    this.m.nominalLimit.set(this.level, limits.nominal);
    this.m.lowerLimit.set(this.level, limits.lower);
    this.m.upperLimit.set(this.level, limits.upper);
  }

  adjusted(currentLimit: number, stats: DemandStats, target: number): void {
    const denominator = currentLimit > 0 ? currentLimit : Math.max(1, Math.round(this.serverLimit / 10));
    this.demandRatio.setDenominator(this.m.now(), denominator);
    this.seatRatio.setDenominator(this.m.now(), denominator);
    this.m.currentLimit.set(this.level, currentLimit);
    this.m.demandHighWatermark.set(this.level, stats.highWatermark);
    this.m.demandAverage.set(this.level, stats.average);
    this.m.demandStdev.set(this.level, stats.deviation);
    this.m.demandSmoothed.set(this.level, stats.smoothed);
    this.m.targetSeats.set(this.level, target);
  }
}
