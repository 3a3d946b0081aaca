/**
 * The request filter of API Priority and Fairness, or, with
 * `--enable-priority-and-fairness=false`, the plain in-flight limit in its place.
 *
 * APF (an `ApfDispatcher`): every request that is not long-running, and every watch,
 * is classified (FlowSchema and priority level of the configuration half), sized by the
 * work estimate (at most the level's widest request) and admitted, queued, or refused
 * with 429 `Too many requests, please try again later.` and the level's `Retry-After`.
 * Both answers carry the matched FlowSchema's and priority level's UIDs in
 * `X-<Platform>-PF-FlowSchema-UID` and `X-<Platform>-PF-PriorityLevel-UID` (the
 * profile's display name: `X-Kubernetes-PF-…` in the kubernetes profile). A watch holds
 * its seats only until its handler has set it up (its initial events), as the platform's.
 *
 * In-flight limit (an `InFlightLimiter`): every
 * request that is not long-running takes one seat of the read-only or mutating pool
 * (a large list too: the platform's max-in-flight filter counts
 * requests and has no work estimate), or is refused with 429. Seats
 * come back when the response is over: its body written out (a streamed list holds
 * its seats while the client reads it) or the client gone (`ctx.outgoing`'s
 * `close`); without a node response, when the handler returns. They come back
 * earlier when the request's deadline passes while the handler runs, so a stalled
 * body cannot keep them past the request timeout, and a streamed body keeps them
 * at most `maxStreamHoldMs` after the handler returned.
 */
import { tooManyRequests } from "../../../../shared/api/status.ts";
import type { PlatformProfile } from "../../../../shared/platform/index.ts";
import type { Classification } from "../../flowcontrol/contract.ts";
import type { ApfDispatcher } from "../../flowcontrol/dispatch/dispatcher.ts";
import { infoOf, userOf, type Filter, type Handler, type RequestContext } from "./context.ts";
import { InFlightLimiter } from "./in-flight-limiter.ts";
import { answerHeader } from "./response-headers.ts";
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
  out.on("close", hold.onClose); // expireNow removes it (no once-wrapper)
  if (maxHoldMs > 0) timers.schedule(maxHoldMs, hold);
}

const FORGET_WATCH = Symbol("forgetWatch");
type CountedResponse = NonNullable<RequestContext["outgoing"]> & { [FORGET_WATCH]?: () => void };

/** The shared `close` listener of counted watches (`this` is the response): it forgets the watch and removes itself. */
function forgetWatchOnClose(this: CountedResponse): void {
  const forget = this[FORGET_WATCH];
  this[FORGET_WATCH] = undefined;
  this.off("close", forgetWatchOnClose);
  forget?.();
}

/**
 * Calls `forget` once the watch's node response closes (at once when there is none or it
 * closed already). An open watch keeps only `forget` on its response: no hold object,
 * bound listener or once-wrapper of its own.
 */
function forgetWhenResponseIsOver(ctx: RequestContext, forget: () => void): void {
  const out = ctx.outgoing as CountedResponse | undefined;
  if (!out || out.closed || out.destroyed || out[FORGET_WATCH]) {
    forget();
    return;
  }
  out[FORGET_WATCH] = forget;
  out.on("close", forgetWatchOnClose);
}

/** The names of the two classification headers in a profile. */
export function flowControlHeaders(profile: Pick<PlatformProfile, "displayName">): { flowSchemaUid: string; priorityLevelUid: string } {
  const prefix = `X-${profile.displayName}-PF`;
  return { flowSchemaUid: `${prefix}-FlowSchema-UID`, priorityLevelUid: `${prefix}-PriorityLevel-UID` };
}

export interface ApfFilterOptions {
  dispatcher: ApfDispatcher;
  profile: Pick<PlatformProfile, "displayName">;
}

/** `count` (the stored objects per resource) sizes lists and watches under APF only. */
export function withPriorityAndFairness(
  gate: InFlightLimiter | ApfFilterOptions,
  count: ObjectCount = () => undefined,
  maxStreamHoldMs = DEFAULT_MAX_STREAM_HOLD_MS,
  timers = new DeadlineTimers(),
): Filter {
  if (!(gate instanceof InFlightLimiter)) return withApf(gate, count, maxStreamHoldMs, timers);
  const limiter = gate;
  return (next) => async (ctx) => {
    const info = infoOf(ctx);
    if (isLongRunning(info)) return next(ctx);
    let giveBack: () => void;
    try {
      giveBack = limiter.acquire({
        pool: MUTATING.has(info.verb) ? "mutating" : "readOnly",
        privileged: userOf(ctx).groups.includes(PRIVILEGED_GROUP),
      });
    } catch (err) {
      ctx.terminated = true;
      throw err;
    }
    return runHoldingSeats(ctx, next, giveBack, maxStreamHoldMs, timers);
  };
}

/**
 * Runs the handler with seats held: they come back once (`giveBack`) when the handler
 * fails, when the deadline passes while it runs, or when the response is over.
 */
async function runHoldingSeats(ctx: RequestContext, next: Handler, giveBack: () => void, maxStreamHoldMs: number, timers: DeadlineTimers): Promise<Response> {
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
}

type HeaderNames = { flowSchemaUid: string; priorityLevelUid: string };

/** Records the classification headers on the answer: served, queued then refused, or failed alike. */
function noteClassification(ctx: RequestContext, names: HeaderNames, cls: Classification): void {
  answerHeader(ctx, names.flowSchemaUid, cls.flowSchema.uid);
  answerHeader(ctx, names.priorityLevelUid, cls.priorityLevel.uid);
}

function withApf(opts: ApfFilterOptions, count: ObjectCount, maxStreamHoldMs: number, timers: DeadlineTimers): Filter {
  const { dispatcher } = opts;
  const names = flowControlHeaders(opts.profile);
  return (next: Handler) => async (ctx) => {
    const info = infoOf(ctx);
    const watch = info.verb === "watch";
    if (!watch && isLongRunning(info)) return next(ctx);
    const user = userOf(ctx);
    const cls = dispatcher.classify({
      user: { name: user.username, groups: user.groups },
      verb: info.verb,
      isResourceRequest: info.isResourceRequest,
      apiGroup: info.apiGroup,
      resource: info.resource,
      subresource: info.subresource,
      namespace: info.namespace,
      path: info.path,
    });
    noteClassification(ctx, names, cls);
    const seats = estimateSeats(info, ctx.url.searchParams, count, dispatcher.maxSeats(cls.priorityLevel.name));
    let admission = dispatcher.admit({
      classification: cls,
      seats,
      mutating: MUTATING.has(info.verb),
      waitLimitMs: dispatcher.waitLimitMs(ctx.receivedAt, ctx.deadline.expiresAt),
      // Read only if the request has to wait: the signal is an AbortController and signal
      // kept with the request for as long as its response is open (a watch: for hours).
      get signal() {
        return ctx.request.signal;
      },
      target: info,
      details: {
        userName: user.username,
        verb: info.verb,
        path: info.path,
        namespace: info.namespace,
        name: info.name,
        apiVersion: info.apiGroup ? `${info.apiGroup}/${info.apiVersion}` : info.apiVersion,
        resource: info.resource,
        subresource: info.subresource,
      },
    });
    if (admission instanceof Promise) admission = await admission;
    if (!admission.admitted) {
      ctx.terminated = true;
      throw tooManyRequests(undefined, admission.retryAfterSeconds);
    }
    const release = admission.release;
    if (watch) {
      // The seats cover setting the watch up (its initial events), not the stream after;
      // the watch counts for the work estimate of writes until its response is over.
      const forgetWatch = dispatcher.registerWatch(info);
      try {
        const response = await next(ctx);
        forgetWhenResponseIsOver(ctx, forgetWatch);
        return response;
      } catch (err) {
        forgetWatch();
        throw err;
      } finally {
        release(true);
      }
    }
    return await runHoldingSeats(ctx, next, () => release(false), maxStreamHoldMs, timers);
  };
}
