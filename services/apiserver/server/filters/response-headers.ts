/**
 * Headers of the answer to a request. The app and filters record them on the request
 * context (`answerHeader`: a flat name/value list, no Headers object); the app applies
 * the list once, when the chain has answered (`applyAnswerHeaders`). Filters never
 * choose where a header goes.
 */
import type { ServerResponse } from "node:http";
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

/** Sets a flat name/value list on the Response, copied once when its headers are immutable. */
function setResponseHeaders(response: Response, list: readonly string[]): Response {
  try {
    for (let i = 0; i + 1 < list.length; i += 2) response.headers.set(list[i], list[i + 1]);
    return response;
  } catch {
    const headers = new Headers(response.headers);
    for (let i = 0; i + 1 < list.length; i += 2) headers.set(list[i], list[i + 1]);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }
}

/**
 * Applies the recorded answer headers, once per request:
 * - a node response whose head is not written gets them (the Response keeps its plain
 *   header record: node-server's fast path), unless
 * - the body is written directly (endpoints/direct-body.ts): its head is written in one
 *   piece from the Response's headers, so they go on the Response and a long-lived
 *   stream's node response keeps no header table;
 * - without a node response (the app driven in process) or once its head is written,
 *   they go on the Response.
 */
export function applyAnswerHeaders(ctx: Pick<RequestContext, "request" | "outgoing" | "answerHeaders">, response: Response): Response {
  const list = ctx.answerHeaders;
  if (list.length === 0) return response;
  const out: ServerResponse | undefined = ctx.outgoing;
  if (out && !out.headersSent && !hasDirectBody(ctx.request)) {
    for (let i = 0; i + 1 < list.length; i += 2) out.setHeader(list[i], list[i + 1]);
    return response;
  }
  return setResponseHeaders(response, list);
}
