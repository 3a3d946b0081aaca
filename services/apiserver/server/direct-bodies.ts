/**
 * The outermost wrap of the replica's fetch, next to the node adapter: a response whose
 * body a handler offered as a direct source (endpoints/direct-body.ts) gets its status
 * and headers written to the node response here, after every filter added its own, and
 * the source writes the body itself. The adapter is then told the response is already
 * written: an idle watch keeps no reader, read promise or write loop of the adapter.
 * Every other response passes through untouched.
 */
import type { ServerResponse } from "node:http";
import { claimDirectBody } from "../endpoints/direct-body.ts";

type Fetch<E> = (request: Request, env: E) => Response | Promise<Response>;

/**
 * What @hono/node-server takes as "the handler wrote the response itself": an object
 * without its response cache, no body, and its `x-hono-already-sent` header.
 */
const ALREADY_WRITTEN = { status: 200, headers: new Headers({ "x-hono-already-sent": "true" }), body: null } as unknown as Response;

export function withDirectBodies<E extends { outgoing?: ServerResponse } | undefined>(fetch: Fetch<E>): Fetch<E> {
  return (request, env) => {
    const result = fetch(request, env);
    return result instanceof Promise ? result.then((response) => takeOver(request, response, env)) : takeOver(request, result, env);
  };
}

function takeOver(request: Request, response: Response, env: { outgoing?: ServerResponse } | undefined): Response {
  const out = env?.outgoing;
  const source = claimDirectBody(request, () => response.body);
  if (!source) return response;
  if (!out || out.headersSent || out.destroyed) {
    return response; // the stream is read as usual
  }
  // A raw name/value list: without headers set on it before (the app applied the answer
  // headers to this Response, filters/response-headers.ts), the node response keeps no
  // header table of its own.
  const head: string[] = [];
  response.headers.forEach((value, name) => {
    head.push(name, value);
  });
  out.writeHead(response.status, head);
  out.flushHeaders();
  source.attach(out);
  return ALREADY_WRITTEN;
}
