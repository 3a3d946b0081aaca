/** Allows or denies the request for the acting user; a denial is a thrown 403 Status. */
import type { RequestInfo } from "../../endpoints/request-info.ts";
import type { UserInfo } from "../../endpoints/scope.ts";
import { infoOf, userOf, type Filter } from "./context.ts";

/** Allows or denies a request; throws a 403 Status to deny. */
export type Authorize = (user: UserInfo, info: RequestInfo, req: Request) => Promise<void>;

export function withAuthorization(authorize: Authorize): Filter {
  return (next) => async (ctx) => {
    await authorize(userOf(ctx), infoOf(ctx), ctx.request);
    return next(ctx);
  };
}
