/**
 * Response bodies that write themselves to the node response. A long-lived stream (a
 * watch) read through a ReadableStream by the HTTP adapter keeps, for as long as it is
 * open, a reader, its pending read and closed promises, the adapter's write loop
 * closures and three suspended async functions. A handler may instead offer its body's
 * source here, keyed by the request; once the response has passed every filter and its
 * body is still that stream, the server (server/direct-bodies.ts) writes the head and
 * hands the node response to the source, and the stream is never read. Without a node
 * response (the app driven in-process), or when a filter replaced the body, the stream
 * is read as usual: the source serves both ways.
 */
import type { ServerResponse } from "node:http";

/** A body source that can write to a node response itself (its head already sent). */
export interface DirectSource {
  attach(out: ServerResponse): void;
}

interface Offer {
  stream: ReadableStream<Uint8Array>;
  source: DirectSource;
}

const offers = new WeakMap<Request, Offer>();

/** Offers `source` as the writer of `stream`, the body of the response to `request`. */
export function offerDirectBody(request: Request, stream: ReadableStream<Uint8Array>, source: DirectSource): void {
  offers.set(request, { stream, source });
}

/**
 * Whether a direct body is offered for `request` and not yet claimed: its head will be
 * written in one piece from the Response's headers, so the answer headers belong on the
 * Response (asked only by the one place that applies them).
 */
export function hasDirectBody(request: Request): boolean {
  return offers.has(request);
}

/** The source offered for `request`, once (later calls: undefined); `body` must still be its stream. */
export function claimDirectBody(request: Request, body: () => ReadableStream<Uint8Array> | null): DirectSource | undefined {
  const offer = offers.get(request);
  if (!offer) return undefined;
  offers.delete(request);
  return body() === offer.stream ? offer.source : undefined;
}
