/**
 * The authentication group's review calls, as functions of the request body
 * and the requesting user (routing of the virtual kinds is the caller's):
 * - `TokenReview` (v1, v1beta1): authenticates `spec.token` with the server's
 *   token methods for `spec.audiences` (default: the API audiences) and
 *   answers in the version it was asked in. The token is never echoed in errors.
 * - `SelfSubjectReview` (v1, v1beta1, v1alpha1): the caller's own identity.
 */
import { badRequest } from "../../../shared/api/status.ts";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import { intersectAudiences } from "./chain.ts";
import { isAuthenticated, type TokenAuthenticator, type UserInfo } from "./types.ts";

type Obj = Record<string, unknown>;

export const TOKEN_REVIEW_VERSIONS = ["v1", "v1beta1"] as const;
export const SELF_SUBJECT_REVIEW_VERSIONS = ["v1", "v1beta1", "v1alpha1"] as const;

function versionOf(profile: PlatformProfile, body: Obj, allowed: readonly string[], kind: string): string {
  const group = profile.group("authentication");
  const av = body.apiVersion;
  if (av === undefined || av === "") return `${group}/v1`;
  if (typeof av === "string" && allowed.some((v) => av === `${group}/${v}`)) return av;
  throw badRequest(`${kind} apiVersion ${JSON.stringify(av)} is not supported`);
}

function userInfoOut(u: UserInfo): Obj {
  const out: Obj = { username: u.username };
  if (u.uid) out.uid = u.uid;
  out.groups = [...u.groups];
  if (u.extra && Object.keys(u.extra).length > 0) out.extra = u.extra;
  return out;
}

export interface TokenReviewDeps {
  profile: PlatformProfile;
  tokens: TokenAuthenticator;
  apiAudiences: readonly string[];
}

export type ReviewHandler = (body: unknown, user: UserInfo) => Promise<Obj>;

export function tokenReviewHandler(d: TokenReviewDeps): ReviewHandler {
  return async (bodyIn) => {
    const body = (bodyIn && typeof bodyIn === "object" ? bodyIn : {}) as Obj;
    const apiVersion = versionOf(d.profile, body, TOKEN_REVIEW_VERSIONS, "TokenReview");
    if (body.kind !== undefined && body.kind !== "TokenReview") throw badRequest(`expected kind TokenReview, got ${JSON.stringify(body.kind)}`);
    const spec = (body.spec && typeof body.spec === "object" ? body.spec : {}) as Obj;
    const token = spec.token;
    if (typeof token !== "string" || token === "") throw badRequest("token is required for TokenReview in authentication");
    const requested = Array.isArray(spec.audiences) ? spec.audiences.filter((a): a is string => typeof a === "string") : [];
    const wanted = requested.length > 0 ? requested : [...d.apiAudiences];
    const status: Obj = { authenticated: false };
    try {
      const r = await d.tokens.authenticateToken(token, requested);
      if (isAuthenticated(r)) {
        const got = r.audiences ?? wanted;
        if (wanted.length > 0 && intersectAudiences(wanted, got).length === 0) {
          status.error = "token audiences are not valid for the requested audiences";
        } else {
          status.authenticated = true;
          status.user = userInfoOut(r.user);
          status.audiences = wanted.length > 0 ? intersectAudiences(wanted, got) : got;
        }
      } else {
        status.error = "invalid bearer token";
      }
    } catch (err) {
      status.error = err instanceof Error ? err.message : "Unauthorized";
    }
    const out: Obj = { kind: "TokenReview", apiVersion, metadata: { ...((body.metadata as Obj | undefined) ?? {}), creationTimestamp: null }, spec: { ...spec }, status };
    return out;
  };
}

export function selfSubjectReviewHandler(profile: PlatformProfile): ReviewHandler {
  return async (bodyIn, user) => {
    const body = (bodyIn && typeof bodyIn === "object" ? bodyIn : {}) as Obj;
    const apiVersion = versionOf(profile, body, SELF_SUBJECT_REVIEW_VERSIONS, "SelfSubjectReview");
    if (body.kind !== undefined && body.kind !== "SelfSubjectReview") throw badRequest(`expected kind SelfSubjectReview, got ${JSON.stringify(body.kind)}`);
    return { kind: "SelfSubjectReview", apiVersion, metadata: { creationTimestamp: null }, status: { userInfo: userInfoOut(user) } };
  };
}
