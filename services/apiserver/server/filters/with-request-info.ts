/**
 * First filter: parses the method, path and query into the request info (verb,
 * group, version, resource, namespace, name, subresource). A malformed path is
 * answered with its Status before any identity is looked at.
 */
import { parseRequestInfo } from "../../endpoints/request-info.ts";
import type { Filter } from "./context.ts";

export const withRequestInfo: Filter = (next) => (ctx) => {
  ctx.info = parseRequestInfo(ctx.request.method, ctx.url, ctx.url.searchParams);
  return next(ctx);
};
