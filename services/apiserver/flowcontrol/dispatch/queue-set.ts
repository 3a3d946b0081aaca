/**
 * One priority level's seats and queues, after the platform's fair queuing for server
 * requests. Deterministic: the caller passes the clock; decisions for waiting requests
 * come through the request's `onDecision` callback, synchronously inside `finish`,
 * `setLimit`, `cancel` or another request's `start` (never inside its own `start`: the
 * caller reads its state when `start` returns).
 *
 * - Exempt: every request executes at once; seats are counted, never limited.
 * - Reject (no queues): a request executes when its seats fit under the limit, else it
 *   is rejected with reason `concurrency-limit`.
 * - Queue: the request goes to the queue of its hand (shuffle sharding over `queues`
 *   with `handSize` cards) that has the least work waiting; when the seats in use are at
 *   the limit and that queue holds `queueLengthLimit` requests, it is rejected
 *   (`queue-full`). Waiting requests are dispatched by virtual finish time: the progress
 *   meter R advances at `min(seats asked, limit) / active queues` seat-seconds per second;
 *   each queue's next dispatch R grows by a request's work (seats x 3 ms, the estimated
 *   service time) when one of its requests starts, is corrected by the real service time
 *   when it ends, and never falls behind the arrival R of its oldest waiting request.
 *   Unlike the platform, the dispatch also counts the service of requests still executing
 *   (seats x time served beyond the estimate): the platform charges it only when they end,
 *   so a flow whose lists hold seats for a long time looks idle and wins seat after seat
 *   over a tenant that waits (`bench -- apf`: the tenant's GET waited through several
 *   list completions, p99 0.5 s of its 0.56 s in the queue). The
 *   queue whose oldest request would finish first goes next (round robin on ties); the
 *   dispatch waits while that request's seats do not fit (a request wider than the whole
 *   limit runs alone). A waiting request leaves its queue on `cancel` (`time-out` when its
 *   wait limit passed, `cancelled` when the client went away).
 * A request may have a second phase after it ends (a write's watch events): it occupies
 * max(initial, final) seats from dispatch on, its work is initial seats x 3 ms plus final
 * seats x its additional latency, and at `finish` it stops executing but keeps its seats
 * for the additional latency (scheduled through the injected `schedule`), as the platform's.
 * Seat demand (seats occupied plus seats waiting) is reported on every change.
 */
import { dealHand } from "./shuffle-shard.ts";

/** Runs `fn` after `ms` on an unref'd timer (the default scheduler of seat releases). */
function scheduleUnref(ms: number, fn: () => void): void {
  setTimeout(fn, ms).unref();
}

export type RejectReason = "queue-full" | "concurrency-limit" | "time-out" | "cancelled";
export type Decision = "execute" | RejectReason;

export type QueueSetMode = { type: "Exempt" } | { type: "Reject" } | { type: "Queue"; queues: number; handSize: number; queueLengthLimit: number };

/** The estimated service time of one seat of work (the platform's G), in seconds. */
export const ESTIMATED_SERVICE_SECONDS = 0.003;

/** What the dumps show of a request beyond its flow. */
export interface RequestDetails {
  userName: string;
  verb: string;
  path: string;
  namespace: string;
  name: string;
  apiVersion: string;
  resource: string;
  subresource: string;
}

export interface SeatRequestSpec {
  flowSchema: string;
  distinguisher: string;
  /** 64-bit shuffle-sharding hash of the flow (ignored without queues). */
  hash: bigint;
  /** Seats while it executes. */
  seats: number;
  /** Seats it keeps for `additionalLatencyMs` after it ends (0 or absent: none). */
  finalSeats?: number;
  additionalLatencyMs?: number;
  details?: RequestDetails;
  /** Called when a waiting request is dispatched or leaves its queue. */
  onDecision?: (decision: Decision) => void;
}

export class SeatRequest {
  state: "waiting" | "executing" | "releasing" | "finished" | "rejected" = "waiting";
  decision: Decision | undefined;
  startedAt = 0;
  /** Index of its queue while it waits or executes from one; -1 without queues. */
  queueIndex = -1;
  arrivalR = 0;

  constructor(
    readonly spec: SeatRequestSpec,
    readonly arrivedAt: number,
  ) {}

  /** The seats it occupies from dispatch until released: max(initial, final). */
  get seats(): number {
    return Math.max(this.spec.seats, this.spec.finalSeats ?? 0);
  }

  get additionalLatencyMs(): number {
    return (this.spec.finalSeats ?? 0) > 0 ? (this.spec.additionalLatencyMs ?? 0) : 0;
  }

  /** Estimated seat-seconds: the execution at G a seat, then the final seats for the additional latency. */
  get work(): number {
    return this.spec.seats * ESTIMATED_SERVICE_SECONDS + (this.spec.finalSeats ?? 0) * (this.additionalLatencyMs / 1000);
  }
}

/** Told every change the metrics follow (counts per flow schema, waits, seat demand). */
export interface QueueSetObserver {
  waiting(flowSchema: string, deltaRequests: number, deltaSeats: number): void;
  executing(flowSchema: string, deltaRequests: number, deltaSeats: number): void;
  dispatched(flowSchema: string, waitedMs: number): void;
  rejected(flowSchema: string, reason: RejectReason, waitedMs: number): void;
  demand(seats: number): void;
}

class Queue {
  readonly requests: SeatRequest[] = [];
  executing = 0;
  seatsInUse = 0;
  nextDispatchR = 0;
  readonly executingRequests = new Set<SeatRequest>();
  /** Ended requests that keep their seats for their additional latency. */
  readonly releasingRequests = new Set<SeatRequest>();

  constructor(public index: number) {}

  get waitingSeats(): number {
    let s = 0;
    for (const r of this.requests) s += r.seats;
    return s;
  }

  /**
   * `nextDispatchR` with the service its executing requests have had beyond their
   * estimate charged already (seats x seconds served past 3 ms): what `finish` will
   * charge, counted while they run, so a queue whose requests hold seats for long does
   * not look idle to the dispatch until they end.
   */
  chargedDispatchR(now: number): number {
    let r = this.nextDispatchR;
    for (const req of this.executingRequests) {
      const beyond = (now - req.startedAt) / 1000 - ESTIMATED_SERVICE_SECONDS;
      if (beyond > 0) r += req.spec.seats * beyond;
    }
    return r;
  }

  get waitingWork(): number {
    let w = 0;
    for (const r of this.requests) w += r.work;
    return w;
  }
}

export interface QueueDump {
  index: number;
  pending: SeatRequest[];
  executing: SeatRequest[];
  seatsInUse: number;
  nextDispatchR: number;
  initialSeatsSum: number;
  maxSeatsSum: number;
  totalWorkSum: number;
}

export interface QueueSetDump {
  waiting: number;
  executing: number;
  seatsInUse: number;
  dispatched: number;
  rejected: number;
  timedOut: number;
  cancelled: number;
  queues: QueueDump[];
  queuelessExecuting: SeatRequest[];
}

export class QueueSet {
  private queues: Queue[] = [];
  private currentR = 0;
  private lastRealTime: number;
  private robinIndex = -1;
  private enqueues = 0;
  private totWaiting = 0;
  private totWaitingSeats = 0;
  private totExecuting = 0;
  private totSeatsInUse = 0;
  private readonly queueless = new Set<SeatRequest>();
  private counts = { dispatched: 0, rejected: 0, timedOut: 0, cancelled: 0 };
  /** The request inside its own `start`: its decision is read from the return value. */
  private starting: SeatRequest | undefined;

  constructor(
    readonly name: string,
    private mode: QueueSetMode,
    private limit: number,
    private readonly now: () => number,
    private readonly observer?: QueueSetObserver,
    private readonly schedule: (ms: number, fn: () => void) => void = scheduleUnref,
  ) {
    this.lastRealTime = now();
    this.growQueues();
  }

  get concurrencyLimit(): number {
    return this.limit;
  }

  get isIdle(): boolean {
    return this.totWaiting === 0 && this.totExecuting === 0 && this.totSeatsInUse === 0;
  }

  get seatsInUse(): number {
    return this.totSeatsInUse;
  }

  get waitingRequests(): number {
    return this.totWaiting;
  }

  get executingRequests(): number {
    return this.totExecuting;
  }

  /** Seats executing plus seats waiting: what the level could use now. */
  get demand(): number {
    return this.totSeatsInUse + this.totWaitingSeats;
  }

  /** Takes a new limit (borrowing) and dispatches what now fits. */
  setLimit(limit: number): void {
    this.syncTime();
    this.limit = Math.max(0, limit);
    this.dispatchAsMuchAsPossible();
  }

  /** A new queuing configuration: more queues are added at once; surplus ones go when empty. */
  reconfigure(mode: QueueSetMode): void {
    this.syncTime();
    this.mode = mode;
    this.growQueues();
    this.dropEmptySurplusQueues();
    this.dispatchAsMuchAsPossible();
  }

  /** Starts a request: it executes, waits (decided later through `onDecision`), or is rejected. */
  start(spec: SeatRequestSpec): SeatRequest {
    this.syncTime();
    const now = this.now();
    const req = new SeatRequest(spec, now);
    req.arrivalR = this.currentR;
    if (this.mode.type === "Exempt") {
      this.execute(req, undefined);
      return req;
    }
    if (this.mode.type === "Reject") {
      if (this.canAccommodate(req.seats)) this.execute(req, undefined);
      else this.reject(req, "concurrency-limit");
      return req;
    }
    const queue = this.shuffleShard(spec.hash);
    if (this.totSeatsInUse >= this.limit && queue.requests.length >= this.mode.queueLengthLimit) {
      this.reject(req, "queue-full");
      return req;
    }
    if (queue.requests.length === 0 && queue.executing === 0) queue.nextDispatchR = this.currentR;
    queue.requests.push(req);
    req.queueIndex = queue.index;
    this.totWaiting++;
    this.totWaitingSeats += req.seats;
    this.observer?.waiting(spec.flowSchema, 1, req.seats);
    this.starting = req;
    try {
      this.dispatchAsMuchAsPossible();
    } finally {
      this.starting = undefined;
    }
    if (req.state === "waiting") this.boundNextDispatch(queue);
    this.reportDemand();
    return req;
  }

  /**
   * The request's execution ended: its seats come back and waiting requests may start, at
   * once or, for a request with an additional latency, when that has passed.
   */
  finish(req: SeatRequest): void {
    if (req.state !== "executing") return;
    this.syncTime();
    this.totExecuting--;
    const latency = req.additionalLatencyMs;
    const queue = req.queueIndex >= 0 ? this.queues[req.queueIndex] : undefined;
    if (queue) {
      queue.executing--;
      queue.executingRequests.delete(req);
      const servedSeconds = (this.now() - req.startedAt) / 1000;
      queue.nextDispatchR -= req.spec.seats * (ESTIMATED_SERVICE_SECONDS - servedSeconds);
      this.boundNextDispatch(queue);
    } else {
      this.queueless.delete(req);
    }
    if (latency <= 0) {
      this.observer?.executing(req.spec.flowSchema, -1, -req.seats);
      this.releaseSeats(req, queue);
      return;
    }
    req.state = "releasing";
    queue?.releasingRequests.add(req);
    this.observer?.executing(req.spec.flowSchema, -1, 0);
    this.schedule(latency, () => {
      this.syncTime();
      const holder = req.queueIndex >= 0 ? this.queues[req.queueIndex] : undefined;
      holder?.releasingRequests.delete(req);
      this.observer?.executing(req.spec.flowSchema, 0, -req.seats);
      this.releaseSeats(req, holder);
    });
  }

  private releaseSeats(req: SeatRequest, queue: Queue | undefined): void {
    req.state = "finished";
    this.totSeatsInUse -= req.seats;
    if (queue) {
      queue.seatsInUse -= req.seats;
      this.dropEmptySurplusQueues();
    }
    this.dispatchAsMuchAsPossible();
    this.reportDemand();
  }

  /** A waiting request leaves its queue (its wait limit passed, or its client went away). */
  cancel(req: SeatRequest, reason: "time-out" | "cancelled"): void {
    if (req.state !== "waiting") return;
    this.syncTime();
    const queue = this.queues[req.queueIndex];
    const at = queue ? queue.requests.indexOf(req) : -1;
    if (at >= 0) queue.requests.splice(at, 1);
    this.totWaiting--;
    this.totWaitingSeats -= req.seats;
    this.observer?.waiting(req.spec.flowSchema, -1, -req.seats);
    if (queue) this.boundNextDispatch(queue);
    this.reject(req, reason);
    req.spec.onDecision?.(reason);
    this.dropEmptySurplusQueues();
    this.reportDemand();
  }

  dump(): QueueSetDump {
    return {
      waiting: this.totWaiting,
      executing: this.totExecuting,
      seatsInUse: this.totSeatsInUse,
      ...this.counts,
      queues: this.queues.map((q) => ({
        index: q.index,
        pending: [...q.requests],
        executing: [...q.executingRequests],
        seatsInUse: q.seatsInUse,
        nextDispatchR: q.nextDispatchR,
        initialSeatsSum: q.waitingSeats,
        maxSeatsSum: q.waitingSeats,
        totalWorkSum: q.waitingWork,
      })),
      queuelessExecuting: [...this.queueless],
    };
  }

  private growQueues(): void {
    const want = this.mode.type === "Queue" ? this.mode.queues : 0;
    while (this.queues.length < want) this.queues.push(new Queue(this.queues.length));
  }

  private dropEmptySurplusQueues(): void {
    const want = this.mode.type === "Queue" ? this.mode.queues : 0;
    for (let i = this.queues.length - 1; i >= 0 && this.queues.length > want; i--) {
      const q = this.queues[i];
      if (q.requests.length > 0 || q.executing > 0 || q.seatsInUse > 0) continue;
      this.queues.splice(i, 1);
      for (let j = i; j < this.queues.length; j++) {
        const moved = this.queues[j];
        moved.index = j;
        for (const r of moved.requests) r.queueIndex = j;
        for (const r of moved.executingRequests) r.queueIndex = j;
        for (const r of moved.releasingRequests) r.queueIndex = j;
      }
      if (this.robinIndex >= i) this.robinIndex--;
    }
  }

  /** Advances R by the time since the last change at the rate the queues had. */
  private syncTime(): void {
    const now = this.now();
    const elapsed = Math.max(0, now - this.lastRealTime) / 1000;
    this.lastRealTime = now;
    this.currentR += elapsed * this.virtualTimeRatio();
  }

  private virtualTimeRatio(): number {
    let active = 0;
    let asked = 0;
    for (const q of this.queues) {
      asked += q.seatsInUse + q.waitingSeats;
      if (q.requests.length > 0 || q.executing > 0) active++;
    }
    return active === 0 ? 0 : Math.min(asked, this.limit) / active;
  }

  /** The hand's queue with the least work waiting; the starting card rotates so ties spread. */
  private shuffleShard(hash: bigint): Queue {
    const mode = this.mode as Extract<QueueSetMode, { type: "Queue" }>;
    const hand = dealHand(hash, mode.queues, mode.handSize);
    const offset = this.enqueues++ % hand.length;
    let best = this.queues[hand[offset]];
    let bestWork = best.waitingWork;
    for (let i = 1; i < hand.length; i++) {
      const q = this.queues[hand[(offset + i) % hand.length]];
      const w = q.waitingWork;
      if (w < bestWork) {
        best = q;
        bestWork = w;
      }
    }
    return best;
  }

  private canAccommodate(seats: number): boolean {
    if (seats > this.limit) return this.totExecuting === 0;
    return this.totSeatsInUse + seats <= this.limit;
  }

  private dispatchAsMuchAsPossible(): void {
    while (this.totWaiting > 0 && this.totSeatsInUse < this.limit && this.dispatchOne()) {
      // keep going
    }
  }

  private dispatchOne(): boolean {
    const n = this.queues.length;
    let best: Queue | undefined;
    let bestIndex = -1;
    let bestFinish = Infinity;
    const now = this.now();
    for (let k = 0; k < n; k++) {
      this.robinIndex = (this.robinIndex + 1) % n;
      const q = this.queues[this.robinIndex];
      const head = q.requests[0];
      if (!head) continue;
      const finish = q.chargedDispatchR(now) + head.work;
      if (finish < bestFinish) {
        bestFinish = finish;
        best = q;
        bestIndex = this.robinIndex;
      }
    }
    if (!best) return false;
    const req = best.requests[0];
    if (!this.canAccommodate(req.seats)) return false;
    best.requests.shift();
    this.robinIndex = bestIndex;
    this.totWaiting--;
    this.totWaitingSeats -= req.seats;
    this.observer?.waiting(req.spec.flowSchema, -1, -req.seats);
    this.execute(req, best);
    best.nextDispatchR += req.work;
    this.boundNextDispatch(best);
    if (req !== this.starting) req.spec.onDecision?.("execute");
    return true;
  }

  private execute(req: SeatRequest, queue: Queue | undefined): void {
    const now = this.now();
    req.state = "executing";
    req.decision = "execute";
    req.startedAt = now;
    this.totExecuting++;
    this.totSeatsInUse += req.seats;
    if (queue) {
      queue.executing++;
      queue.seatsInUse += req.seats;
      queue.executingRequests.add(req);
    } else {
      this.queueless.add(req);
    }
    this.counts.dispatched++;
    this.observer?.executing(req.spec.flowSchema, 1, req.seats);
    this.observer?.dispatched(req.spec.flowSchema, now - req.arrivedAt);
    this.reportDemand();
  }

  private reject(req: SeatRequest, reason: RejectReason): void {
    req.state = "rejected";
    req.decision = reason;
    if (reason === "time-out") this.counts.timedOut++;
    else if (reason === "cancelled") this.counts.cancelled++;
    else this.counts.rejected++;
    this.observer?.rejected(req.spec.flowSchema, reason, this.now() - req.arrivedAt);
  }

  /** A queue's next dispatch never precedes the arrival of its oldest waiting request. */
  private boundNextDispatch(queue: Queue): void {
    const head = queue.requests[0];
    if (head && queue.nextDispatchR < head.arrivalR) queue.nextDispatchR = head.arrivalR;
  }

  private reportDemand(): void {
    this.observer?.demand(this.demand);
  }
}
