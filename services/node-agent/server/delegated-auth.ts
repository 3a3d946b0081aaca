/**
 * The agent's delegated authentication and authorization: the shared delegated
 * authenticator/authorizer (client certificate, TokenReview, SubjectAccessReview, with
 * caches) asked with the resource attributes the agent builds for its paths
 * (request-attributes.ts: `nodes/<subresource>` of this node).
 */
import { DelegatedAuthenticatorAuthorizer, type AuthzResult, type UserInfo } from "../../../shared/client/delegated-auth.ts";
import type { NodeRequestAttributes } from "./request-attributes.ts";

export type { AuthnResult, AuthzResult, DelegatedAuthOptions, UserInfo } from "../../../shared/client/delegated-auth.ts";

export class DelegatedAuth extends DelegatedAuthenticatorAuthorizer {
  authorize(user: UserInfo, a: NodeRequestAttributes): Promise<AuthzResult> {
    return this.review(user, { resourceAttributes: { verb: a.verb, group: "", version: a.apiVersion, resource: a.resource, subresource: a.subresource, name: a.name } });
  }
}
