/**
 * Decides who sent the request: the authenticator returns a user, `undefined`
 * (anonymous) or throws a 401 Status, which ends the request here. An
 * `Authorization: Bearer  <token>` header (extra space) is ignored as the platform
 * ignores it, with the platform's warning. Warnings of the method that authenticated
 * the request (authn/types.ts `authenticationWarnings`) are sent too.
 */
import type { IncomingMessage } from "node:http";
import { authorizationHeaderWarning } from "../../authn/headers.ts";
import { authenticationWarnings } from "../../authn/types.ts";
import { warningHeader, type UserInfo } from "../../endpoints/scope.ts";
import type { Filter } from "./context.ts";

/** Decides who sent a request: a user, `undefined` (no opinion: anonymous), or a thrown 401 Status. */
export type Authenticate = (req: Request, incoming: IncomingMessage | undefined) => Promise<UserInfo | undefined>;

export const ANONYMOUS: Readonly<UserInfo> = Object.freeze({ username: "system:anonymous", groups: ["system:unauthenticated"] });

export function withAuthentication(authenticate: Authenticate): Filter {
  return (next) => async (ctx) => {
    const warning = authorizationHeaderWarning(ctx.request.headers.get("authorization") ?? undefined);
    if (warning) ctx.warnings.push(warningHeader(warning));
    const user = await authenticate(ctx.request, ctx.incoming);
    for (const text of authenticationWarnings(user)) ctx.warnings.push(warningHeader(text));
    ctx.user = user ?? { ...ANONYMOUS, groups: [...ANONYMOUS.groups] };
    return next(ctx);
  };
}
