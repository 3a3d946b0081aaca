/**
 * authentication/v1: TokenReview and SelfSubjectReview (virtual review kinds:
 * create only, never stored), and TokenRequest, the body of the core
 * `serviceaccounts/token` subresource.
 *
 * Nothing here depends on the naming profile, so the module exports a constant
 * `kinds`. `tokenRequestKind` is deliberately not in `kinds`: it has no
 * resource path of its own; the core group's service account registry serves
 * it under `serviceaccounts/{name}/token` and discovery lists it there with
 * this group, version and kind.
 *
 * Protobuf field numbers are the platform's (authentication/v1 generated.proto).
 */
import { bool, int64, list, mapOf, named, obj, str, tag, time, withOpts } from "../../schema/build.ts";
import type { FieldError, KindDefinition, Schema } from "../../schema/types.ts";
import { invalid, notSupported, objField } from "../field-errors.ts";
import { objectKind } from "./meta-v1.ts";

const A = (name: string, schema: Schema) => named("authentication", "v1", name, schema);
const atomicStrings = (description: string) => list(str(), { listType: "atomic", description });

/** `map[string]ExtraValue`: extra user attributes, each a list of strings. */
export const extraValues = mapOf(list(str(), { listType: "atomic" }), { description: "Extra attributes provided by the authenticator." });

export const userInfo = A(
  "UserInfo",
  obj(
    {
      username: tag(1, str({ description: "The name that identifies the user among all active users." })),
      uid: tag(2, str({ description: "An identifier of the user that is unique across time." })),
      groups: tag(3, atomicStrings("Groups the user belongs to.")),
      extra: tag(4, extraValues),
    },
    // Part 1 marks `username` required in a review's user.
    { required: ["username"], description: "The identity an authenticator established." },
  ),
);

export const tokenReviewSpec = A(
  "TokenReviewSpec",
  obj({
    token: tag(1, str({ description: "The opaque bearer token." })),
    audiences: tag(2, atomicStrings("Identifiers the resource server presents; the token must be meant for one of them. Empty means the API server's audiences.")),
  }),
);

export const tokenReviewStatus = A(
  "TokenReviewStatus",
  obj({
    authenticated: tag(1, bool({ description: "The token belongs to a known user." })),
    user: tag(2, userInfo),
    audiences: tag(4, atomicStrings("Audiences compatible with both the review and the token.")),
    error: tag(3, str({ description: "Why the token could not be checked; ignored when authenticated." })),
  }),
);

export const tokenReviewSchema = objectKind(
  {
    spec: tag(2, tokenReviewSpec),
    status: tag(3, withOpts(tokenReviewStatus, { readOnly: true })),
  },
  { required: ["spec"] },
);

export const selfSubjectReviewStatus = A(
  "SelfSubjectReviewStatus",
  obj({ userInfo: tag(1, withOpts(userInfo, { description: "The requesting user as the server sees it." })) }),
);

export const selfSubjectReviewSchema = objectKind({
  status: tag(2, withOpts(selfSubjectReviewStatus, { readOnly: true })),
});

// ---- TokenRequest (serviceaccounts/token) ------------------------------------

/** Kinds a token may be bound to. */
export const BOUND_OBJECT_KINDS = ["Pod", "Secret", "Node"] as const;
/** Shortest and longest token lifetimes a request may ask for. */
export const MIN_TOKEN_SECONDS = 600;
export const MAX_TOKEN_SECONDS = 2 ** 32;

export const boundObjectReference = A(
  "BoundObjectReference",
  obj({
    kind: tag(1, str({ description: "Pod, Secret or Node." })),
    apiVersion: tag(2, str()),
    name: tag(3, str()),
    uid: tag(4, str()),
  }),
);

export const tokenRequestSpec = A(
  "TokenRequestSpec",
  obj(
    {
      audiences: tag(1, atomicStrings("Intended audiences of the token; a recipient must identify with one of them.")),
      expirationSeconds: tag(4, int64({ default: 3600, description: "Requested lifetime in seconds; the issuer may shorten it." })),
      boundObjectRef: tag(3, withOpts(boundObjectReference, { description: "The token is valid only while this object exists." })),
    },
    { required: ["audiences"] },
  ),
);

export const tokenRequestStatus = A(
  "TokenRequestStatus",
  obj(
    {
      token: tag(1, str({ description: "The opaque bearer token." })),
      expirationTimestamp: tag(2, time({ description: "When the token expires." })),
    },
    { required: ["token", "expirationTimestamp"] },
  ),
);

export const tokenRequestSchema = objectKind(
  {
    spec: tag(2, tokenRequestSpec),
    status: tag(3, withOpts(tokenRequestStatus, { readOnly: true })),
  },
  { required: ["spec"] },
);

function validateTokenRequest(obj: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const spec = objField(obj, "spec");
  const seconds = spec?.expirationSeconds;
  if (typeof seconds === "number") {
    if (seconds < MIN_TOKEN_SECONDS) {
      errs.push(invalid("spec.expirationSeconds", seconds, "may not specify a duration less than 10 minutes"));
    } else if (seconds > MAX_TOKEN_SECONDS) {
      errs.push(invalid("spec.expirationSeconds", seconds, "may not specify a duration larger than 2^32 seconds"));
    }
  }
  const ref = objField(spec, "boundObjectRef");
  if (ref && typeof ref.kind === "string" && !(BOUND_OBJECT_KINDS as readonly string[]).includes(ref.kind)) {
    errs.push(notSupported("spec.boundObjectRef.kind", ref.kind, BOUND_OBJECT_KINDS));
  }
  return errs;
}

const review = { group: "authentication" as const, version: "v1", namespaced: false, virtual: true, verbs: ["create"], protobuf: true };

export const kinds: KindDefinition[] = [
  { ...review, kind: "TokenReview", plural: "tokenreviews", singular: "tokenreview", schema: tokenReviewSchema },
  { ...review, kind: "SelfSubjectReview", plural: "selfsubjectreviews", singular: "selfsubjectreview", schema: selfSubjectReviewSchema },
];

/** The body of `serviceaccounts/{name}/token` (namespaced, create only); see the module comment. */
export const tokenRequestKind: KindDefinition = {
  group: "authentication",
  version: "v1",
  kind: "TokenRequest",
  plural: "tokenrequests",
  singular: "tokenrequest",
  namespaced: true,
  virtual: true,
  verbs: ["create"],
  protobuf: true,
  schema: tokenRequestSchema,
  validateKind: validateTokenRequest,
};
