/**
 * A PUT or an apply PATCH that creates an absent object is authorized for `create` as
 * well (the platform's create-on-update check): the request passed the filter with its
 * own verb (`update`/`patch`); when the write turns out to be a create, the same
 * attributes with verb `create` must be allowed too. A refusal is 403 Forbidden in the
 * registry's form, `<resource> "<name>" is forbidden: <authorizer's reason>`.
 */
import { forbiddenMessage, forbiddenWithReason, StatusError } from "../../../shared/api/status.ts";
import type { RequestInfo } from "./request-info.ts";
import type { UserInfo } from "./scope.ts";

/** The replica's authorization check: answers (or resolves) when allowed, throws (or rejects with) its 403 otherwise. */
export type AuthorizeRequest = (user: UserInfo, info: RequestInfo, req: Request) => string | void | Promise<string | void>;

/** A check made at most once per request, when the write creates the object. */
export function createOnUpdateCheck(authorize: AuthorizeRequest | undefined, user: UserInfo, info: RequestInfo, req: Request): () => Promise<void> {
  let once: Promise<void> | undefined;
  return () => {
    if (!authorize) return Promise.resolve();
    once ??= authorizeCreate(authorize, user, info, req);
    return once;
  };
}

async function authorizeCreate(authorize: AuthorizeRequest, user: UserInfo, info: RequestInfo, req: Request): Promise<void> {
  const attrs = { ...info, verb: "create" };
  try {
    await authorize(user, attrs, req);
  } catch (err) {
    if (!(err instanceof StatusError) || err.code !== 403) throw err;
    throw forbiddenWithReason(info.resource, info.name, reasonOf(err.message, user, attrs), info.apiGroup);
  }
}

/** The authorizer's reason inside the filter's message (`...: User "u" cannot create ...[: reason]`). */
function reasonOf(message: string, user: UserInfo, info: RequestInfo): string {
  const denial = forbiddenMessage({
    user: user.username,
    verb: info.verb,
    resource: info.resource,
    subresource: info.subresource,
    group: info.apiGroup,
    namespace: info.namespace,
    name: info.name,
  });
  const at = message.indexOf(denial);
  if (at < 0) return "";
  const rest = message.slice(at + denial.length);
  return rest.startsWith(": ") ? rest.slice(2) : "";
}

/**
 * A check of another verb on the request's object, made when the handler needs it (the
 * unsafe delete's `unsafe-delete-ignore-read-errors`). A refusal is 403:
 * `<resource> "<name>" is forbidden: not permitted to do "<verb>"`.
 */
export function extraVerbCheck(authorize: AuthorizeRequest | undefined, user: UserInfo, info: RequestInfo, req: Request): (verb: string) => Promise<void> {
  return async (verb) => {
    if (!authorize) return;
    try {
      await authorize(user, { ...info, verb }, req);
    } catch (err) {
      if (!(err instanceof StatusError) || err.code !== 403) throw err;
      throw forbiddenWithReason(info.resource, info.name, `not permitted to do ${JSON.stringify(verb)}`, info.apiGroup);
    }
  };
}
