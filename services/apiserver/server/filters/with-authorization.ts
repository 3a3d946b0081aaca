/**
 * Allows or denies the request for the acting user; a denial is a thrown 403 Status.
 * The decision and the authorizer's reason go on the request's audit event.
 */
import { authorizationReasonOf } from "../../audit/authorization-reason.ts";
import type { RequestInfo } from "../../endpoints/request-info.ts";
import type { UserInfo } from "../../endpoints/scope.ts";
import { infoOf, userOf, type Filter } from "./context.ts";
import { noteAuthorization } from "./with-audit.ts";

/** Allows or denies a request; throws a 403 Status to deny. An allow may resolve to the authorizer's reason. */
export type Authorize = (user: UserInfo, info: RequestInfo, req: Request) => Promise<string | void>;

export function withAuthorization(authorize: Authorize): Filter {
  return (next) => async (ctx) => {
    let reason: string | void;
    try {
      reason = await authorize(userOf(ctx), infoOf(ctx), ctx.request);
    } catch (err) {
      noteAuthorization(ctx, "forbid", authorizationReasonOf(err) ?? "");
      throw err;
    }
    noteAuthorization(ctx, "allow", reason ?? "");
    return next(ctx);
  };
}
