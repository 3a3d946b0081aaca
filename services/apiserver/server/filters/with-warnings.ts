/**
 * Warnings recorded while handling a request (`ctx.warnings`, shared with the
 * handler's scope) leave as one `Warning` answer header, deduplicated, on successes
 * and failures alike (recorded on the context; the app applies it: response-headers.ts).
 * It is also the chain's error boundary: what the inner filters throw becomes a Status
 * response here, so the warnings go with it.
 */
import type { Filter } from "./context.ts";
import { errorResponse } from "./errors.ts";
import { answerHeader } from "./response-headers.ts";

export const withWarnings: Filter = (next) => async (ctx) => {
  let response: Response;
  try {
    response = await next(ctx);
  } catch (err) {
    response = errorResponse(ctx, err);
  }
  if (ctx.warnings.length > 0) answerHeader(ctx, "warning", [...new Set(ctx.warnings)].join(", "));
  return response;
};
