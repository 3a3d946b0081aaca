/**
 * The deadline of a request that is not long-running: `--request-timeout`, or the
 * shorter `timeout` query parameter (a Go duration; `0` or larger means the server's;
 * malformed → 400). At the deadline `ctx.deadline` expires (the in-flight seats are
 * given back) and the client gets the platform's 504: `Timeout: request did not
 * complete within requested timeout - context deadline exceeded`, on a connection
 * that is then closed, which also ends a body read still waiting for bytes.
 */
import { badRequest, timeout } from "../../../../shared/api/status.ts";
import { infoOf, type Filter } from "./context.ts";
import { errorResponse } from "./errors.ts";
import { Deadline } from "./deadline.ts";
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

export function withTimeout(requestTimeoutMs: number): Filter {
  return (next) => async (ctx) => {
    if (requestTimeoutMs <= 0 || isLongRunning(infoOf(ctx))) return next(ctx);
    const ms = requestDeadlineMs(ctx.url.searchParams.get("timeout"), requestTimeoutMs);
    const deadline = new Deadline();
    ctx.deadline = deadline;
    let timer: NodeJS.Timeout | undefined;
    const expiry = new Promise<Response>((resolve) => {
      timer = setTimeout(() => {
        const err = timeout(DEADLINE_EXCEEDED);
        ctx.terminated = true;
        deadline.expire(err);
        resolve(setResponseHeader(errorResponse(ctx, err), "connection", "close"));
      }, ms);
    });
    try {
      return await Promise.race([next(ctx), expiry]);
    } finally {
      clearTimeout(timer);
    }
  };
}
