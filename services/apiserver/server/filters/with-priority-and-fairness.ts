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
import { isLongRunning } from "./long-running.ts";
import { estimateSeats, type ObjectCount } from "./work-estimate.ts";

const MUTATING = new Set(["create", "update", "patch", "delete", "deletecollection"]);

export const PRIVILEGED_GROUP = "system:masters";

/** The platform's request timeout: how long a streamed body may keep its seats by default. */
export const DEFAULT_MAX_STREAM_HOLD_MS = 60_000;

/** Calls `release` once the node response is over (or at once when there is none or it is over already). */
function releaseWhenResponseIsOver(ctx: RequestContext, release: () => void, maxHoldMs: number): void {
  const out = ctx.outgoing;
  if (!out || out.closed || out.destroyed) {
    release();
    return;
  }
  const timer = maxHoldMs > 0 ? setTimeout(done, maxHoldMs) : undefined;
  timer?.unref();
  out.once("close", done);
  function done(): void {
    clearTimeout(timer);
    out?.off("close", done);
    release();
  }
}

export function withPriorityAndFairness(limiter: InFlightLimiter, count: ObjectCount = () => undefined, maxStreamHoldMs = DEFAULT_MAX_STREAM_HOLD_MS): Filter {
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
    releaseWhenResponseIsOver(ctx, release, maxStreamHoldMs);
    return response;
  };
}
