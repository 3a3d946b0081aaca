/**
 * Impersonation: with `Impersonate-*` headers the request continues as the
 * impersonated identity once the authorizer allowed each value (400/403 Status
 * otherwise); without them the authenticated user continues unchanged.
 */
import type { IncomingMessage } from "node:http";
import type { ImpersonationAuthorize } from "../../authn/impersonation.ts";
import type { RequestInfo } from "../../endpoints/request-info.ts";
import type { UserInfo } from "../../endpoints/scope.ts";
import { userOf, type Filter } from "./context.ts";
import type { Authorize } from "./with-authorization.ts";

/**
 * The identity to act as for `user`; throws (or rejects with) a 400 or 403 Status on a bad
 * or refused impersonation. It may answer synchronously: no impersonation asked, no promise.
 */
export type Impersonate = (user: UserInfo, req: Request, incoming: IncomingMessage | undefined) => UserInfo | Promise<UserInfo>;

export function withImpersonation(impersonate: Impersonate | undefined): Filter {
  if (!impersonate) return (next) => next;
  return (next) => (ctx) => {
    const user = userOf(ctx);
    const acting = impersonate(user, ctx.request, ctx.incoming);
    if (acting === user) return next(ctx);
    return Promise.resolve(acting).then((a) => {
      if (a !== user) {
        ctx.user = a;
        if (ctx.audit) ctx.audit.impersonatedUser = a;
      }
      return next(ctx);
    });
  };
}

const NO_REQUEST = new Request("https://localhost/");

/**
 * The authorizer asked about one impersonated value: the `impersonate` verb on
 * users, groups, serviceaccounts, userextras/<key> or uids named by the value.
 * A denial (or an authorizer that is not ready) is a refusal.
 */
export function impersonationAuthorizer(authorize: Authorize): ImpersonationAuthorize {
  return async (user, attrs) => {
    const info: RequestInfo = {
      isResourceRequest: true,
      path: "",
      verb: "impersonate",
      apiPrefix: attrs.group === "" ? "api" : "apis",
      apiGroup: attrs.group,
      apiVersion: "v1",
      namespace: attrs.namespace ?? "",
      resource: attrs.resource,
      subresource: attrs.subresource ?? "",
      name: attrs.name,
      parts: [],
    };
    try {
      await authorize(user, info, NO_REQUEST);
      return true;
    } catch {
      return false;
    }
  };
}
