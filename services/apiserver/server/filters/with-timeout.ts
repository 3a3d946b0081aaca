/**
 * The deadline of a request that is not long-running: `--request-timeout`, or the
 * shorter `timeout` query parameter (a Go duration; `0` or larger means the server's;
 * malformed → 400). At the deadline `ctx.deadline` expires (the in-flight seats are
 * given back) and the client gets the platform's 504: `Timeout: request did not
 * complete within requested timeout - context deadline exceeded`, on a connection
 * that is then closed, which also ends a body read still waiting for bytes.
 * Cost per request: one Deadline (the context's and the timer queue's entry at once)
 * and one promise; the deadlines share a timer per duration (deadline-timers.ts).
 */
import { badRequest, timeout } from "../../../../shared/api/status.ts";
import { infoOf, type Filter, type RequestContext } from "./context.ts";
import { callNext } from "./call-next.ts";
import { errorResponse } from "./errors.ts";
import { Deadline } from "./deadline.ts";
import { DeadlineTimers } from "./deadline-timers.ts";
import { isLongRunning } from "./long-running.ts";
import { setResponseHeader } from "./response-headers.ts";

const GO_DURATION = /^([0-9]*(\.[0-9]*)?(ns|us|µs|ms|s|m|h))+$/;
const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A Go duration in milliseconds (`1m30s`, `250ms`, `0`); undefined when malformed. */
export function parseGoDuration(text: string): number | undefined {
  const sign = text.startsWith("-") ? -1 : 1;
  const body = text.replace(/^[-+]/, "");
  if (body === "0") return 0;
  if (!GO_DURATION.test(body)) return undefined;
  let total = 0;
  for (const m of body.matchAll(/([0-9]*(?:\.[0-9]*)?)(ns|us|µs|ms|s|m|h)/g)) {
    if (m[1] === "" || m[1] === ".") return undefined;
    total += Number(m[1]) * UNIT_MS[m[2]];
  }
  return sign * total;
}

/** The deadline in ms for a `timeout` parameter under the server's maximum. */
export function requestDeadlineMs(param: string | null, maxMs: number): number {
  if (param === null || param === "") return maxMs;
  const asked = parseGoDuration(param);
  if (asked === undefined) throw badRequest("invalid timeout specified in the request URL");
  return asked > 0 && asked < maxMs ? asked : maxMs;
}

export const DEADLINE_EXCEEDED = "request did not complete within requested timeout - context deadline exceeded";

/**
 * A request's deadline that answers it with the 504 when it expires first. Settled,
 * it lets go of the request: the timer queue keeps it until the queue's timer next
 * runs, and must not keep the request's objects alive that long.
 */
class RequestDeadline extends Deadline {
  resolve: (r: Response) => void = noop;

  constructor(
    expiresAt: number,
    private ctx: RequestContext | undefined,
  ) {
    super(expiresAt);
  }

  override expireNow(): void {
    const ctx = this.ctx;
    if (this.settled || !ctx) return;
    const err = timeout(DEADLINE_EXCEEDED);
    ctx.terminated = true;
    this.expire(err);
    this.resolve(setResponseHeader(errorResponse(ctx, err), "connection", "close"));
    this.settle();
  }

  override settle(): void {
    super.settle();
    this.ctx = undefined;
    this.resolve = noop;
  }
}

function noop(): void {}

export function withTimeout(requestTimeoutMs: number, timers = new DeadlineTimers()): Filter {
  return (next) => (ctx) => {
    if (requestTimeoutMs <= 0 || isLongRunning(infoOf(ctx))) return next(ctx);
    const ms = requestDeadlineMs(ctx.url.searchParams.get("timeout"), requestTimeoutMs);
    const deadline = new RequestDeadline(Date.now() + ms, ctx);
    ctx.deadline = deadline;
    return new Promise<Response>((resolve, reject) => {
      deadline.resolve = resolve;
      timers.schedule(ms, deadline);
      // A synchronous throw settles the deadline and rejects this promise (the executor's throw).
      callNext(next, ctx, deadline).then(
        (r) => {
          deadline.settle();
          resolve(r);
        },
        (err: unknown) => {
          deadline.settle();
          reject(err);
        },
      );
    });
  };
}
