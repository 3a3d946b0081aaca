/**
 * The in-flight limit (the slot the priority-and-fairness issue refines): every
 * request that is not long-running takes seats of the read-only or mutating pool
 * for the acting user, sized by the work estimate, or is refused with 429. Seats
 * come back when the request ends or its deadline passes (`ctx.deadline`), whichever
 * is first, so a stalled body cannot keep them past the request timeout.
 */
import { infoOf, userOf, type Filter } from "./context.ts";
import type { InFlightLimiter } from "./in-flight-limiter.ts";
import { isLongRunning } from "./long-running.ts";
import { estimateSeats, type ObjectCount } from "./work-estimate.ts";

const MUTATING = new Set(["create", "update", "patch", "delete", "deletecollection"]);

export const PRIVILEGED_GROUP = "system:masters";

export function withPriorityAndFairness(limiter: InFlightLimiter, count: ObjectCount = () => undefined): Filter {
  return (next) => async (ctx) => {
    const info = infoOf(ctx);
    if (isLongRunning(info)) return next(ctx);
    const user = userOf(ctx);
    let release: () => void;
    try {
      release = limiter.acquire({
        pool: MUTATING.has(info.verb) ? "mutating" : "readOnly",
        user: user.username,
        seats: estimateSeats(info, ctx.url.searchParams, count),
        privileged: user.groups.includes(PRIVILEGED_GROUP),
      });
    } catch (err) {
      ctx.terminated = true;
      throw err;
    }
    const stopWatching = ctx.deadline.onExpire(release);
    try {
      return await next(ctx);
    } finally {
      stopWatching();
      release();
    }
  };
}
