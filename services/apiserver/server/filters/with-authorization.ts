/**
 * Allows or denies the request for the acting user; a denial is a thrown 403 Status.
 * The decision and the authorizer's reason go on the request's audit event.
 */
import { authorizationReasonOf } from "../../audit/authorization-reason.ts";
import type { RequestInfo } from "../../endpoints/request-info.ts";
import type { UserInfo } from "../../endpoints/scope.ts";
import { infoOf, userOf, type Filter, type Handler, type RequestContext } from "./context.ts";
import { noteAuthorization } from "./with-audit.ts";

/**
 * Allows or denies a request; throws (or rejects with) a 403 Status to deny. An allow may
 * give the authorizer's reason. It may answer synchronously: the filter then passes the
 * request on without a promise or turn of its own (context.ts).
 */
export type Authorize = (user: UserInfo, info: RequestInfo, req: Request) => string | void | Promise<string | void>;

export function withAuthorization(authorize: Authorize): Filter {
  return (next) => (ctx) => {
    let decided: string | void | Promise<string | void>;
    try {
      decided = authorize(userOf(ctx), infoOf(ctx), ctx.request);
    } catch (err) {
      throw refused(ctx, err);
    }
    if (!(decided instanceof Promise)) return allowed(ctx, decided, next);
    return decided.then(
      (reason) => allowed(ctx, reason, next),
      (err: unknown) => {
        throw refused(ctx, err);
      },
    );
  };
}

function allowed(ctx: RequestContext, reason: string | void, next: Handler): Promise<Response> {
  noteAuthorization(ctx, "allow", reason ?? "");
  return next(ctx);
}

/** Notes the refusal on the audit event; answers the error to throw on. */
function refused(ctx: RequestContext, err: unknown): unknown {
  noteAuthorization(ctx, "forbid", authorizationReasonOf(err) ?? "");
  return err;
}
