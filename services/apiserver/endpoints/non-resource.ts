/**
 * Non-resource paths: discovery (/api, /apis and below), /version, health and
 * OpenAPI. Each route is a function of the request; unknown paths are 404.
 */
import { statusError } from "../../../shared/api/status.ts";
import type { RequestInfo } from "./request-info.ts";
import type { UserInfo } from "./scope.ts";

export type NonResourceHandler = (req: Request, url: URL, info: RequestInfo, user: UserInfo) => Promise<Response> | Response;

export interface NonResourceRoutes {
  /** Exact paths. */
  exact: Map<string, NonResourceHandler>;
  /** Path prefixes (longest first wins). */
  prefixes: Array<[string, NonResourceHandler]>;
}

export function dispatchNonResource(routes: NonResourceRoutes, info: RequestInfo, req: Request, url: URL, user: UserInfo): Promise<Response> | Response {
  const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, "") : url.pathname;
  const exact = routes.exact.get(path);
  if (exact) return exact(req, url, info, user);
  for (const [prefix, handler] of routes.prefixes) if (path.startsWith(prefix)) return handler(req, url, info, user);
  throw statusError({ code: 404, reason: "NotFound", message: "the server could not find the requested resource", details: { causes: [{ reason: "UnexpectedServerResponse", message: "404 page not found" }] } });
}
