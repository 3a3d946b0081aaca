/**
 * Response headers set by filters: on the Response (copied when its headers are
 * immutable), or on the node response while its head is not written.
 */
import type { ServerResponse } from "node:http";
import { hasDirectBody } from "../../endpoints/direct-body.ts";

/** Sets a response header, copying the response when its headers are immutable (a fetched response). */
export function setResponseHeader(response: Response, name: string, value: string): Response {
  try {
    response.headers.set(name, value);
    return response;
  } catch {
    const headers = new Headers(response.headers);
    headers.set(name, value);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }
}

/**
 * Sets a header of the answer to a request. With a node response whose head is not
 * written, it goes there (the Response keeps its plain header record: node-server's fast
 * path), except for a body the server writes directly (endpoints/direct-body.ts): that
 * head is written in one piece from the Response's headers, so a long-lived stream's node
 * response keeps no header table. Otherwise it goes on the Response.
 */
export function setAnswerHeader(ctx: { readonly request: Request; readonly outgoing?: ServerResponse }, response: Response, name: string, value: string): Response {
  const out = ctx.outgoing;
  if (out && !out.headersSent && !hasDirectBody(ctx.request)) {
    out.setHeader(name, value);
    return response;
  }
  return setResponseHeader(response, name, value);
}
