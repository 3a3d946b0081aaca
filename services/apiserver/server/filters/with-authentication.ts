/**
 * Decides who sent the request: the authenticator returns a user, `undefined`
 * (anonymous) or throws a 401 Status, which ends the request here.
 */
import type { IncomingMessage } from "node:http";
import type { UserInfo } from "../../endpoints/scope.ts";
import type { Filter } from "./context.ts";

/** Decides who sent a request: a user, `undefined` (no opinion: anonymous), or a thrown 401 Status. */
export type Authenticate = (req: Request, incoming: IncomingMessage | undefined) => Promise<UserInfo | undefined>;

export const ANONYMOUS: Readonly<UserInfo> = Object.freeze({ username: "system:anonymous", groups: ["system:unauthenticated"] });

export function withAuthentication(authenticate: Authenticate): Filter {
  return (next) => async (ctx) => {
    const user = await authenticate(ctx.request, ctx.incoming);
    ctx.user = user ?? { ...ANONYMOUS, groups: [...ANONYMOUS.groups] };
    return next(ctx);
  };
}
