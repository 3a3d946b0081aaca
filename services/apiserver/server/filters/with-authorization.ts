/** Allows or denies the request for the acting user; a denial is a thrown 403 Status. */
import type { RequestInfo } from "../../endpoints/request-info.ts";
import type { UserInfo } from "../../endpoints/scope.ts";
import { infoOf, userOf, type Filter } from "./context.ts";
import { noteAuthorization } from "./with-audit.ts";

/** Allows or denies a request; throws a 403 Status to deny. */
export type Authorize = (user: UserInfo, info: RequestInfo, req: Request) => Promise<void>;

export function withAuthorization(authorize: Authorize): Filter {
  return (next) => async (ctx) => {
    try {
      await authorize(userOf(ctx), infoOf(ctx), ctx.request);
    } catch (err) {
      noteAuthorization(ctx, "forbid");
      throw err;
    }
    noteAuthorization(ctx, "allow");
    return next(ctx);
  };
}
