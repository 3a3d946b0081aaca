/**
 * Headers of the answer to a request. The app and filters record them on the request
 * context (`answerHeader`: a flat name/value list, no Headers object); the app applies
 * the list once, when the chain has answered (`applyAnswerHeaders`). Filters never
 * choose where a header goes.
 */
import type { ServerResponse } from "node:http";
import { answerHeadersIn } from "../../endpoints/answer-record.ts";
import { hasDirectBody } from "../../endpoints/direct-body.ts";
import type { RequestContext } from "./context.ts";

/** Records a header of the answer (applied once by the app; a later record of the same name wins). */
export function answerHeader(ctx: Pick<RequestContext, "answerHeaders">, name: string, value: string): void {
  ctx.answerHeaders.push(name, value);
}

/** Sets a response header, copying the response when its headers are immutable (a fetched response). */
export function setResponseHeader(response: Response, name: string, value: string): Response {
  return setResponseHeaders(response, [name, value]);
}

/** Sets a flat name/value list on headers; with `appendWarnings`, a Warning is added beside those already there. */
function putHeaders(headers: Headers, list: readonly string[], appendWarnings: boolean): void {
  for (let i = 0; i + 1 < list.length; i += 2) {
    if (appendWarnings && list[i].toLowerCase() === "warning") headers.append(list[i], list[i + 1]);
    else headers.set(list[i], list[i + 1]);
  }
}

/** Sets a flat name/value list on the Response, copied once when its headers are immutable. */
function setResponseHeaders(response: Response, list: readonly string[], appendWarnings = false): Response {
  try {
    putHeaders(response.headers, list, appendWarnings);
    return response;
  } catch {
    const headers = new Headers(response.headers);
    putHeaders(headers, list, appendWarnings);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }
}

/** Whether the list records a Warning (only then is the Response's own header record read). */
function recordsWarning(list: readonly string[]): boolean {
  for (let i = 0; i < list.length; i += 2) if (list[i].toLowerCase() === "warning") return true;
  return false;
}

/**
 * Applies the recorded answer headers, once per request:
 * - a node response whose head is not written gets them (the Response keeps its plain
 *   header record: node-server's fast path), unless
 * - the body is written directly (endpoints/direct-body.ts): its head is written in one
 *   piece from the Response's headers, so they go on the Response and a long-lived
 *   stream's node response keeps no header table;
 * - without a node response (the app driven in process) or once its head is written,
 *   they go on the Response;
 * - a Warning recorded for a Response that already carries Warning headers (a proxied
 *   backend's) is added beside them on the Response, as the platform sends both;
 * - those an encoded body's Response carries already in its header record
 *   (endpoints/answer-record.ts: recorded before the handler made it) are not applied
 *   again: a GET's head is then written in one piece from that record.
 */
export function applyAnswerHeaders(ctx: Pick<RequestContext, "request" | "outgoing" | "answerHeaders">, response: Response): Response {
  const carried = answerHeadersIn(response);
  const list = carried > 0 ? ctx.answerHeaders.slice(carried) : ctx.answerHeaders;
  if (list.length === 0) return response;
  const appendWarnings = recordsWarning(list) && response.headers.has("warning");
  const out: ServerResponse | undefined = ctx.outgoing;
  if (!appendWarnings && out && !out.headersSent && !hasDirectBody(ctx.request)) {
    for (let i = 0; i + 1 < list.length; i += 2) out.setHeader(list[i], list[i + 1]);
    return response;
  }
  return setResponseHeaders(response, list, appendWarnings);
}
