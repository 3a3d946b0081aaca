/**
 * The in-flight limit (the slot the priority-and-fairness issue refines): every
 * request that is not long-running takes seats of the read-only or mutating pool
 * for the acting user, sized by the work estimate, or is refused with 429. Seats
 * come back when the response is over: its body written out (a streamed list holds
 * its seats while the client reads it) or the client gone (`ctx.outgoing`'s
 * `close`); without a node response, when the handler returns. They come back
 * earlier when the request's deadline passes while the handler runs, so a stalled
 * body cannot keep them past the request timeout, and a streamed body keeps them
 * at most `maxStreamHoldMs` after the handler returned.
 */
import { infoOf, userOf, type Filter, type RequestContext } from "./context.ts";
import type { InFlightLimiter } from "./in-flight-limiter.ts";
import { DeadlineTimers, type Expirable } from "./deadline-timers.ts";
import { isLongRunning } from "./long-running.ts";
import { estimateSeats, type ObjectCount } from "./work-estimate.ts";

const MUTATING = new Set(["create", "update", "patch", "delete", "deletecollection"]);

export const PRIVILEGED_GROUP = "system:masters";

/** The platform's request timeout: how long a streamed body may keep its seats by default. */
export const DEFAULT_MAX_STREAM_HOLD_MS = 60_000;

/**
 * The seats of one request, given back once: when its node response closes or,
 * for a body that streams on, when the hold limit (scheduled on the shared timer
 * queue, no timer of its own) expires first.
 */
class SeatHold implements Expirable {
  settled = false;
  constructor(
    readonly expiresAt: number,
    private readonly out: NonNullable<RequestContext["outgoing"]>,
    private readonly release: () => void,
  ) {}
  /** Bound once per hold: the `close` listener that ends it. */
  readonly onClose = (): void => this.expireNow();
  expireNow(): void {
    if (this.settled) return;
    this.settled = true;
    this.out.off("close", this.onClose);
    this.release();
  }
}

/** Calls `release` once the node response is over (or at once when there is none or it is over already). */
function releaseWhenResponseIsOver(ctx: RequestContext, release: () => void, maxHoldMs: number, timers: DeadlineTimers): void {
  const out = ctx.outgoing;
  if (!out || out.closed || out.destroyed) {
    release();
    return;
  }
  const hold = new SeatHold(maxHoldMs > 0 ? Date.now() + maxHoldMs : Infinity, out, release);
  out.once("close", hold.onClose);
  if (maxHoldMs > 0) timers.schedule(maxHoldMs, hold);
}

export function withPriorityAndFairness(
  limiter: InFlightLimiter,
  count: ObjectCount = () => undefined,
  maxStreamHoldMs = DEFAULT_MAX_STREAM_HOLD_MS,
  timers = new DeadlineTimers(),
): Filter {
  return (next) => async (ctx) => {
    const info = infoOf(ctx);
    if (isLongRunning(info)) return next(ctx);
    const user = userOf(ctx);
    let giveBack: () => void;
    try {
      giveBack = limiter.acquire({
        pool: MUTATING.has(info.verb) ? "mutating" : "readOnly",
        user: user.username,
        seats: estimateSeats(info, ctx.url.searchParams, count),
        privileged: user.groups.includes(PRIVILEGED_GROUP),
      });
    } catch (err) {
      ctx.terminated = true;
      throw err;
    }
    const stopWatching = ctx.deadline.onExpire(giveBack);
    const release = () => {
      stopWatching();
      giveBack();
    };
    let response: Response;
    try {
      response = await next(ctx);
    } catch (err) {
      release();
      throw err;
    }
    releaseWhenResponseIsOver(ctx, release, maxStreamHoldMs, timers);
    return response;
  };
}
