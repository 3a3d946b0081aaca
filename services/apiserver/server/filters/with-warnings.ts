/**
 * Warnings recorded while handling a request (`ctx.warnings`, shared with the
 * handler's scope) leave as `Warning` headers, deduplicated, on successes and
 * failures alike. It is also the chain's error boundary: what the inner filters
 * throw becomes a Status response here, so the warnings can be attached to it.
 */
import type { Filter } from "./context.ts";
import { errorResponse } from "./errors.ts";
import { setResponseHeader } from "./response-headers.ts";

export const withWarnings: Filter = (next) => async (ctx) => {
  let response: Response;
  try {
    response = await next(ctx);
  } catch (err) {
    response = errorResponse(ctx, err);
  }
  if (ctx.warnings.length > 0) {
    response = setResponseHeader(response, "warning", [...new Set(ctx.warnings)].join(", "));
  }
  return response;
};
