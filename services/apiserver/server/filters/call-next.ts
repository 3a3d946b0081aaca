/**
 * The next handler called by a filter that holds something for the request while it
 * runs (its seats, its deadline). A handler may throw before it has a promise
 * (context.ts); the holder is then let go (`settle`) before the error goes on, as it is
 * when the promise rejects. The promise of a handler that returned one is passed on as
 * it is: no promise or turn of its own.
 */
import type { Handler, RequestContext } from "./context.ts";

/** What a filter holds for a request: `settle` lets it go, and may be called more than once. */
export interface HeldForRequest {
  settle(): void;
}

export function callNext(next: Handler, ctx: RequestContext, held: HeldForRequest): Promise<Response> {
  try {
    return next(ctx);
  } catch (err) {
    held.settle();
    throw err;
  }
}
