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
import type { Admission, AdmitInput, ApfDispatcher } from "../../flowcontrol/dispatch/dispatcher.ts";
import type { RequestDetails } from "../../flowcontrol/dispatch/queue-set.ts";
import type { RequestInfo } from "../../endpoints/request-info.ts";
import type { UserInfo } from "../../endpoints/scope.ts";
import { infoOf, userOf, type Filter, type Handler, type RequestContext } from "./context.ts";
import { InFlightLimiter } from "./in-flight-limiter.ts";
import { answerHeader } from "./response-headers.ts";
import { DeadlineTimers } from "./deadline-timers.ts";
import { forgetWhenResponseIsOver, SeatHold, type HeldSeats } from "./seat-hold.ts";
import { isLongRunning } from "./long-running.ts";
import { estimateSeats, type ObjectCount } from "./work-estimate.ts";

const MUTATING = new Set(["create", "update", "patch", "delete", "deletecollection"]);

export const PRIVILEGED_GROUP = "system:masters";

/** The platform's request timeout: how long a streamed body may keep its seats by default. */
export const DEFAULT_MAX_STREAM_HOLD_MS = 60_000;

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
  // Not async: the handler runs within the call.
  return (next) => (ctx) => {
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
    return new SeatHold({ release: giveBack }).run(ctx, next, maxStreamHoldMs, timers);
  };
}

type HeaderNames = { flowSchemaUid: string; priorityLevelUid: string };

/** Records the classification headers on the answer: served, queued then refused, or failed alike. */
function noteClassification(ctx: RequestContext, names: HeaderNames, cls: Classification): void {
  answerHeader(ctx, names.flowSchemaUid, cls.flowSchema.uid);
  answerHeader(ctx, names.priorityLevelUid, cls.priorityLevel.uid);
}

/** What the debug dump shows of a request (RequestDetails), read from its info and user only when a dump asks. */
class DetailsOf implements RequestDetails {
  constructor(
    private readonly info: RequestInfo,
    private readonly user: UserInfo,
  ) {}
  get userName(): string {
    return this.user.username;
  }
  get verb(): string {
    return this.info.verb;
  }
  get path(): string {
    return this.info.path;
  }
  get namespace(): string {
    return this.info.namespace;
  }
  get name(): string {
    return this.info.name;
  }
  get apiVersion(): string {
    return this.info.apiGroup ? `${this.info.apiGroup}/${this.info.apiVersion}` : this.info.apiVersion;
  }
  get resource(): string {
    return this.info.resource;
  }
  get subresource(): string {
    return this.info.subresource;
  }
}

/**
 * What the dispatcher admits: one record per request. The abort signal is read only if
 * the request has to wait: it is an AbortController and signal kept with the request
 * for as long as its response is open (a watch: for hours).
 */
class ApfAdmitInput implements AdmitInput {
  constructor(
    readonly classification: Classification,
    readonly seats: number,
    readonly mutating: boolean,
    readonly waitLimitMs: number,
    readonly target: RequestInfo,
    readonly details: RequestDetails,
    private readonly request: Request,
  ) {}

  get signal(): AbortSignal {
    return this.request.signal;
  }
}

function withApf(opts: ApfFilterOptions, count: ObjectCount, maxStreamHoldMs: number, timers: DeadlineTimers): Filter {
  const { dispatcher } = opts;
  const names = flowControlHeaders(opts.profile);
  /** The request once the dispatcher decided: refused (a synchronous throw), or run with its seats. */
  const decided = (ctx: RequestContext, next: Handler, info: RequestInfo, admission: Admission): Promise<Response> => {
    if (!admission.admitted) {
      ctx.terminated = true;
      throw tooManyRequests(undefined, admission.retryAfterSeconds);
    }
    if (info.verb === "watch") return setUpWatch(ctx, next, info, admission);
    return new SeatHold(admission).run(ctx, next, maxStreamHoldMs, timers);
  };
  /**
   * A watch's seats cover setting it up (its initial events), not the stream after; the
   * watch counts for the work estimate of writes until its response is over.
   */
  const setUpWatch = async (ctx: RequestContext, next: Handler, info: RequestInfo, seats: HeldSeats): Promise<Response> => {
    const forgetWatch = dispatcher.registerWatch(info);
    try {
      const response = await next(ctx);
      forgetWhenResponseIsOver(ctx, forgetWatch);
      return response;
    } catch (err) {
      forgetWatch();
      throw err;
    } finally {
      seats.release(true);
    }
  };
  // Not async: an admission decided at once (the common case) runs the handler within the call.
  return (next: Handler) => (ctx) => {
    const info = infoOf(ctx);
    if (info.verb !== "watch" && isLongRunning(info)) return next(ctx);
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
    const waitLimitMs = dispatcher.waitLimitMs(ctx.receivedAt, ctx.deadline.expiresAt);
    const admission = dispatcher.admit(new ApfAdmitInput(cls, seats, MUTATING.has(info.verb), waitLimitMs, info, new DetailsOf(info, user), ctx.request));
    if (admission instanceof Promise) return admission.then((a) => decided(ctx, next, info, a));
    return decided(ctx, next, info, admission);
  };
}
