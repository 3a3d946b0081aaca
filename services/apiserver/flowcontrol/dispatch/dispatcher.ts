/**
 * The shell around the dispatch core for the request filter: it follows the
 * configuration source, re-divides seats every adjustment period (an unref'd timer),
 * classifies requests with the configuration half's classifier, and admits them:
 * - at once when the level has room (no promise, no timer);
 * - else after waiting in a queue, until dispatched, until the wait limit passes (the
 *   platform's: a quarter of the request's deadline, at most one minute; reason
 *   `time-out`, scheduled on the shared deadline queue), or until the client goes away
 *   (`cancelled`);
 * - or never: the answer is then a rejection with the level's current Retry-After.
 * An admitted request's `release` gives its seats back exactly once.
 *
 * It also counts the replica's open watches (`registerWatch`, forgotten when the watch
 * ends): a write (create, update, patch, delete) that many watches are interested in is
 * estimated with final seats held for an additional latency after it ends (the
 * platform's mutating work estimator; `apiserver_flowcontrol_watch_count_samples`).
 */
import type { Classification, Classifier, FlowControlConfigSource, FlowControlRequest } from "../contract.ts";
import { DeadlineTimers, type Expirable } from "../../server/filters/deadline-timers.ts";
import type { MetricsRegistry } from "../../../../shared/observability/metrics.ts";
import { BORROWING_ADJUSTMENT_PERIOD_MS, FlowController, type PriorityLevelState } from "./controller.ts";
import { declareFlowMetrics } from "./metrics.ts";
import type { Decision, RequestDetails, SeatRequest, SeatRequestSpec } from "./queue-set.ts";
import { RetryAfterTracker } from "./retry-after.ts";
import { flowHash } from "./shuffle-shard.ts";
import { estimateMutatingWork } from "./mutating-estimate.ts";
import { WatchTracker, type WatchScope } from "./watch-tracker.ts";

/** The verbs the mutating work estimate applies to (the platform's; not deletecollection). */
const ESTIMATED_WRITES = new Set(["create", "update", "patch", "delete"]);

/** What a request touches: its verb and object (a RequestInfo fits). */
export interface RequestTarget extends WatchScope {
  verb: string;
  subresource: string;
}

/** A queued request may wait at most this long, whatever its deadline. */
export const MAX_QUEUE_WAIT_MS = 60_000;

export interface ApfDispatcherOptions {
  serverConcurrencyLimit: number;
  source: FlowControlConfigSource;
  classify: Classifier;
  /** `--request-timeout`: a quarter of it is the wait limit of requests without a deadline. */
  requestTimeoutMs: number;
  metrics?: MetricsRegistry;
  adjustmentPeriodMs?: number;
  now?: () => number;
}

export interface AdmitInput {
  classification: Classification;
  seats: number;
  mutating: boolean;
  /** How long the request may wait in a queue. */
  waitLimitMs: number;
  /** Aborted when the client goes away. */
  signal?: AbortSignal;
  /** The verb and object, for the watch count of writes. */
  target?: RequestTarget;
  details?: RequestDetails;
}

/** An admitted request's seats: `release` gives them back, once (later calls do nothing). */
export interface AdmittedSeats {
  readonly admitted: true;
  release(watch: boolean): void;
}

export type Admission = AdmittedSeats | { admitted: false; retryAfterSeconds: number };

/** The wait limit of a queued request, on the shared deadline queue. */
class WaitLimit implements Expirable {
  settled = false;
  constructor(
    readonly expiresAt: number,
    private readonly onExpire: () => void,
  ) {}
  expireNow(): void {
    if (this.settled) return;
    this.settled = true;
    this.onExpire();
  }
}

/** The admission of a request that executes: one record per request, no closure. */
class AdmittedRequest implements AdmittedSeats {
  readonly admitted = true;
  private released = false;

  constructor(
    private readonly dispatcher: ApfDispatcher,
    private readonly level: PriorityLevelState,
    private readonly request: SeatRequest,
    private readonly kind: "readOnly" | "mutating",
    private readonly startedAt: number,
  ) {}

  release(watch: boolean): void {
    if (this.released) return;
    this.released = true;
    this.dispatcher.finished(this.level, this.request, this.kind, this.startedAt, watch);
  }
}

const MAX_CACHED_HASHES = 4096;

export class ApfDispatcher {
  readonly controller: FlowController;
  readonly retryAfter = new RetryAfterTracker();
  /** Requests executing, by kind (the `apiserver_current_inflight_requests` gauge). */
  readonly counts = { readOnly: 0, mutating: 0 };
  /** The replica's open watches, by resource, namespace and name. */
  readonly watches = new WatchTracker();
  private readonly timers = new DeadlineTimers();
  private readonly hashes = new Map<string, bigint>();
  private readonly now: () => number;
  private readonly adjustTimer: NodeJS.Timeout;
  private readonly unsubscribe: () => void;

  constructor(private readonly opts: ApfDispatcherOptions) {
    this.now = opts.now ?? Date.now;
    this.controller = new FlowController(
      { serverConcurrencyLimit: opts.serverConcurrencyLimit, now: this.now, metrics: opts.metrics && declareFlowMetrics(opts.metrics, this.now) },
      opts.source.current(),
    );
    this.unsubscribe = opts.source.subscribe((config) => this.controller.apply(config));
    this.adjustTimer = setInterval(() => this.controller.adjust(), opts.adjustmentPeriodMs ?? BORROWING_ADJUSTMENT_PERIOD_MS);
    this.adjustTimer.unref();
  }

  classify(request: FlowControlRequest): Classification {
    return this.opts.classify(request);
  }

  /** The widest request the level takes (seats); 0: the level sets no bound (the work estimator's own limits apply). */
  maxSeats(levelName: string): number {
    return this.controller.level(levelName)?.limits.maxRequestSeats ?? 0;
  }

  /** The wait limit for a request with the given deadline (Infinity: none). */
  waitLimitMs(receivedAt: number, deadline: number): number {
    const limit = Number.isFinite(deadline) ? (deadline - receivedAt) / 4 : this.opts.requestTimeoutMs / 4;
    return Math.max(0, Math.min(MAX_QUEUE_WAIT_MS, limit));
  }

  /** Counts an open watch; the returned function forgets it once the watch ends. */
  registerWatch(scope: WatchScope): () => void {
    return this.watches.register(scope);
  }

  /** Sets the final seats and their additional latency of a write, from the watches interested in it. */
  private setFinalPhase(spec: SeatRequestSpec, cls: Classification, target: RequestTarget | undefined): void {
    if (!target || !ESTIMATED_WRITES.has(target.verb)) return;
    const watches = this.watches.interestedCount(target.verb, target);
    this.controller.level(cls.priorityLevel.name)?.metrics?.watchCount(cls.flowSchema.name, watches);
    const work = estimateMutatingWork(watches, this.maxSeats(cls.priorityLevel.name), target);
    spec.finalSeats = work.finalSeats;
    spec.additionalLatencyMs = work.additionalLatencyMs;
  }

  /**
   * Admits a request. The common case (the level has room) makes no closure and no
   * promise: the spec is one record, the admission one `AdmittedRequest`; only a request
   * that waits gets its decision callback, wait limit and abort listener.
   */
  admit(input: AdmitInput): Admission | Promise<Admission> {
    const cls = input.classification;
    const spec: SeatRequestSpec = {
      flowSchema: cls.flowSchema.name,
      distinguisher: cls.flowDistinguisher,
      hash: this.hashOf(cls.flowSchema.name, cls.flowDistinguisher),
      seats: input.seats,
      finalSeats: 0,
      additionalLatencyMs: 0,
      details: input.details,
      onDecision: undefined,
    };
    this.setFinalPhase(spec, cls, input.target);
    const started = this.controller.start(cls.priorityLevel.name, spec) ?? this.controller.start("catch-all", spec);
    if (!started) return this.rejected(cls.priorityLevel.name);
    const { level, request } = started;
    if (request.state !== "waiting") return this.decided(level, request, request.decision ?? "concurrency-limit", input.mutating);
    // Decisions of a waiting request come later, never inside its own start (queue-set.ts).
    return new Promise<Admission>((resolve) => {
      const wait = new WaitLimit(this.now() + input.waitLimitMs, () => this.controller.cancel(level, request, "time-out"));
      const onAbort = () => this.controller.cancel(level, request, "cancelled");
      input.signal?.addEventListener("abort", onAbort, { once: true });
      spec.onDecision = (d) => {
        wait.settled = true;
        input.signal?.removeEventListener("abort", onAbort);
        resolve(this.decided(level, request, d, input.mutating));
      };
      this.timers.schedule(input.waitLimitMs, wait);
      if (input.signal?.aborted) onAbort();
    });
  }

  close(): void {
    clearInterval(this.adjustTimer);
    this.unsubscribe();
  }

  private decided(level: PriorityLevelState, request: SeatRequest, decision: Decision, mutating: boolean): Admission {
    if (decision !== "execute") return this.rejected(level.name);
    const kind = mutating ? "mutating" : "readOnly";
    this.counts[kind]++;
    return new AdmittedRequest(this, level, request, kind, this.now());
  }

  /** Gives an admitted request's seats back (AdmittedRequest.release). */
  finished(level: PriorityLevelState, request: SeatRequest, kind: "readOnly" | "mutating", startedAt: number, watch: boolean): void {
    this.counts[kind]--;
    this.controller.finish(level, request, (this.now() - startedAt) / 1000, watch);
  }

  private rejected(levelName: string): Admission {
    this.retryAfter.recordRejection(levelName, this.now());
    return { admitted: false, retryAfterSeconds: this.retryAfter.retryAfter(levelName) };
  }

  private hashOf(flowSchema: string, distinguisher: string): bigint {
    const key = `${flowSchema}\u0000${distinguisher}`;
    let h = this.hashes.get(key);
    if (h === undefined) {
      if (this.hashes.size >= MAX_CACHED_HASHES) this.hashes.clear();
      h = flowHash(flowSchema, distinguisher);
      this.hashes.set(key, h);
    }
    return h;
  }
}
