/**
 * Decides who sent the request: the authenticator returns a user, `undefined`
 * (anonymous) or throws a 401 Status, which ends the request here. An
 * `Authorization: Bearer  <token>` header (extra space) is ignored as the platform
 * ignores it, with the platform's warning. Warnings of the method that authenticated
 * the request (authn/types.ts `authenticationWarnings`) are sent too. A refusal is
 * handed to `failed` first (failed-authentication-audit.ts), then passed on.
 */
import type { IncomingMessage } from "node:http";
import { authorizationHeaderWarning } from "../../authn/headers.ts";
import { authenticationWarnings } from "../../authn/types.ts";
import { warningHeader, type UserInfo } from "../../endpoints/scope.ts";
import type { Filter, Handler, RequestContext } from "./context.ts";

/**
 * Decides who sent a request: a user, `undefined` (no opinion: anonymous), or a thrown
 * (or rejected) 401 Status; synchronously when it can, the filter then passing the
 * request on without a promise or turn of its own. `url` is the request's, parsed once.
 */
export type Authenticate = (req: Request, incoming: IncomingMessage | undefined, url?: URL) => UserInfo | undefined | Promise<UserInfo | undefined>;

export const ANONYMOUS: Readonly<UserInfo> = Object.freeze({ username: "system:anonymous", groups: ["system:unauthenticated"] });

/** Told of a refused authentication before the refusal goes on (the failed authentication's audit event). */
export type AuthenticationFailed = (ctx: RequestContext, err: unknown) => void;

export function withAuthentication(authenticate: Authenticate, failed?: AuthenticationFailed): Filter {
  return (next) => (ctx) => {
    const warning = authorizationHeaderWarning(ctx.request.headers.get("authorization") ?? undefined);
    if (warning) ctx.warnings.push(warningHeader(warning));
    let user: UserInfo | undefined | Promise<UserInfo | undefined>;
    try {
      user = authenticate(ctx.request, ctx.incoming, ctx.url);
    } catch (err) {
      failed?.(ctx, err);
      throw err;
    }
    if (!(user instanceof Promise)) return authenticated(ctx, user, next);
    return user.then(
      (u) => authenticated(ctx, u, next),
      (err: unknown) => {
        failed?.(ctx, err);
        throw err;
      },
    );
  };
}

function authenticated(ctx: RequestContext, user: UserInfo | undefined, next: Handler): Promise<Response> {
  for (const text of authenticationWarnings(user)) ctx.warnings.push(warningHeader(text));
  ctx.user = user ?? { ...ANONYMOUS, groups: [...ANONYMOUS.groups] };
  return next(ctx);
}
