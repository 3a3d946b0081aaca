/**
 * The error boundary of the chain: any thrown error becomes a Status response
 * (`Retry-After` from `details.retryAfterSeconds`). Logging never includes a message
 * that may quote the request body: a failed request is logged with its code and
 * reason, an unexpected error with its type and stack frames only; a request the
 * client abandoned is a debug line without a stack. A Status whose code cannot be an
 * HTTP error status (not an integer from 400 to 599, e.g. a webhook's denial with
 * code 2147483633) is answered as a 500 with its message kept. The Status is encoded
 * as the platform's error negotiation does: the type the request's `Accept` prefers
 * among JSON, YAML and the profile's protobuf (the envelope, kind Status, `v1`), and
 * JSON when nothing is acceptable or the server's profile is unknown.
 */
import { isStatusError, statusHeaders, toStatus, type Status } from "../../../../shared/api/status.ts";
import { statusResponse } from "../../endpoints/encode.ts";
import { negotiateOutput } from "../../endpoints/negotiation.ts";
import type { RequestContext } from "./context.ts";

/** True when the client closed the connection before the answer was sent. */
export function clientGone(ctx: RequestContext): boolean {
  const incoming = ctx.incoming;
  if (ctx.request.signal.aborted) return true;
  return !!incoming && (incoming.destroyed || incoming.socket?.destroyed === true) && !incoming.complete;
}

/** Stack frames without the first line (the message). */
function frames(err: Error): string {
  const stack = err.stack ?? "";
  const nl = stack.indexOf("\n");
  return nl < 0 ? "" : stack.slice(nl + 1);
}

/** The Status with a code an HTTP error response can carry. */
function sendable(status: Status): Status {
  const code = status.code;
  return code !== undefined && Number.isInteger(code) && code >= 400 && code <= 599 ? status : { ...status, code: 500 };
}

/** How the error Status is encoded for this request's `Accept`. */
function errorEncoding(ctx: RequestContext): { mediaType?: string; protobuf?: boolean; pretty?: boolean } {
  if (!ctx.profile) return {};
  try {
    const chosen = negotiateOutput(ctx.request.headers.get("accept"), { profile: ctx.profile });
    return { mediaType: chosen.mediaType, protobuf: chosen.encoding === "protobuf", pretty: chosen.pretty };
  } catch {
    return {};
  }
}

export function errorResponse(ctx: RequestContext, err: unknown): Response {
  const status = sendable(toStatus(err));
  const code = status.code ?? 500;
  const where = { method: ctx.request.method, path: ctx.url.pathname, code, reason: status.reason };
  if (clientGone(ctx)) ctx.log("debug", "request aborted by the client", where);
  else if (code >= 500 && !isStatusError(err)) ctx.log("error", "request failed", { ...where, errorType: err instanceof Error ? err.name : typeof err, stack: err instanceof Error ? frames(err) : "" });
  else if (code >= 500) ctx.log("warn", "request failed", where);
  return statusResponse(status, { ...errorEncoding(ctx), headers: statusHeaders(status) });
}
