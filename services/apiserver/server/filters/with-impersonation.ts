/**
 * Impersonation: with `Impersonate-*` headers the request continues as the
 * impersonated identity once the authorizer allowed each value (400/403 Status
 * otherwise); without them the authenticated user continues unchanged.
 */
import type { IncomingMessage } from "node:http";
import type { UserInfo } from "../../endpoints/scope.ts";
import { userOf, type Filter } from "./context.ts";

/** The identity to act as for `user`; throws 400 or 403 Status on a bad or refused impersonation. */
export type Impersonate = (user: UserInfo, req: Request, incoming: IncomingMessage | undefined) => Promise<UserInfo>;

export function withImpersonation(impersonate: Impersonate | undefined): Filter {
  if (!impersonate) return (next) => next;
  return (next) => async (ctx) => {
    const user = userOf(ctx);
    const acting = await impersonate(user, ctx.request, ctx.incoming);
    if (acting !== user) {
      ctx.user = acting;
      if (ctx.audit) ctx.audit.impersonatedUser = acting;
    }
    return next(ctx);
  };
}
