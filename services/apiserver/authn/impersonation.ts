/**
 * Impersonation: `Impersonate-User`, `Impersonate-Group` (repeatable),
 * `Impersonate-Extra-<key>` (key lowercased then percent-decoded; values
 * repeatable) and `Impersonate-Uid`. The caller needs the `impersonate` verb on
 * each value: `users` or `serviceaccounts` (core group; namespace and name
 * from `system:serviceaccount:<ns>:<name>`), `groups`, `userextras/<key>` and
 * `uids` (authentication group); the values are the resource names. A group,
 * extra or uid without a user is a bad request. The new identity has only the
 * impersonated groups, extra and uid, plus `system:authenticated` (or
 * `system:unauthenticated` for `system:anonymous`) and, for a service account
 * without explicit groups, its service account groups.
 */
import { badRequest, forbidden } from "../../../shared/api/status.ts";
import { getProfile, type PlatformProfile } from "../../../shared/platform/index.ts";
import type { RequestHeaders } from "./headers.ts";
import { unescapeExtraKey } from "./request-header.ts";
import { parseServiceAccountUsername, serviceAccountGroups } from "./service-account.ts";
import { ANONYMOUS_USER, AUTHENTICATED_GROUP, UNAUTHENTICATED_GROUP, type UserInfo } from "./types.ts";

export const IMPERSONATE_USER = "Impersonate-User";
export const IMPERSONATE_GROUP = "Impersonate-Group";
export const IMPERSONATE_UID = "Impersonate-Uid";
export const IMPERSONATE_EXTRA_PREFIX = "Impersonate-Extra-";

/** What the authorizer is asked for one impersonated value. */
export interface ImpersonationAttributes {
  verb: "impersonate";
  /** Wire group: "" for users/groups/serviceaccounts, the authentication group for userextras and uids. */
  group: string;
  resource: "users" | "groups" | "serviceaccounts" | "userextras" | "uids";
  subresource?: string;
  namespace?: string;
  name: string;
}

/** True when `user` may do it. */
export type ImpersonationAuthorize = (user: UserInfo, attrs: ImpersonationAttributes) => Promise<boolean>;

/** True when the request carries any impersonation header. */
export function hasImpersonationHeaders(headers: RequestHeaders): boolean {
  return headers.someNameWithPrefix(IMPERSONATE_PREFIX, isImpersonationHeader);
}

const EXTRA_PREFIX = IMPERSONATE_EXTRA_PREFIX.toLowerCase();
const IMPERSONATE_PREFIX = "impersonate-";

/** A lowercased header name that asks for impersonation. */
function isImpersonationHeader(n: string): boolean {
  return n.startsWith(IMPERSONATE_PREFIX) && (n === "impersonate-user" || n === "impersonate-group" || n === "impersonate-uid" || n.startsWith(EXTRA_PREFIX));
}

/** The lowercased names of the impersonation headers of a request (to strip them before the handler). */
export function impersonationHeaderNames(headers: RequestHeaders): string[] {
  const extra = IMPERSONATE_EXTRA_PREFIX.toLowerCase();
  return headers.names().filter((n) => n === "impersonate-user" || n === "impersonate-group" || n === "impersonate-uid" || n.startsWith(extra));
}

/**
 * The identity to act as: `user` itself without impersonation headers,
 * otherwise the impersonated user once every value is allowed.
 * Throws 400 (group/extra/uid without user) or 403 (not allowed).
 */
export async function impersonate(user: UserInfo, headers: RequestHeaders, authorize: ImpersonationAuthorize, profile?: PlatformProfile): Promise<UserInfo> {
  if (!hasImpersonationHeaders(headers)) return user;
  const authGroup = (profile ?? getProfile()).group("authentication");
  const username = headers.get(IMPERSONATE_USER);
  const groups = headers.values(IMPERSONATE_GROUP);
  const uid = headers.get(IMPERSONATE_UID);
  const extraPrefix = IMPERSONATE_EXTRA_PREFIX.toLowerCase();
  const extra: Record<string, string[]> = {};
  for (const name of headers.names()) {
    if (!name.startsWith(extraPrefix)) continue;
    const key = unescapeExtraKey(name.slice(extraPrefix.length));
    if (key === "") continue;
    (extra[key] ??= []).push(...headers.values(name));
  }
  if (username === undefined || username === "") {
    const asked: string[] = [];
    for (const g of groups) asked.push(`{Group ${JSON.stringify(g)}}`);
    for (const [k, vs] of Object.entries(extra)) for (const v of vs) asked.push(`{UserExtra ${JSON.stringify(k)}=${JSON.stringify(v)}}`);
    if (uid !== undefined) asked.push(`{UID ${JSON.stringify(uid)}}`);
    throw badRequest(`requested [${asked.join(" ")}] without impersonating a user`);
  }

  const checks: ImpersonationAttributes[] = [];
  const sa = parseServiceAccountUsername(username);
  if (sa) checks.push({ verb: "impersonate", group: "", resource: "serviceaccounts", namespace: sa.namespace, name: sa.name });
  else checks.push({ verb: "impersonate", group: "", resource: "users", name: username });
  for (const g of groups) checks.push({ verb: "impersonate", group: "", resource: "groups", name: g });
  for (const [k, vs] of Object.entries(extra)) for (const v of vs) checks.push({ verb: "impersonate", group: authGroup, resource: "userextras", subresource: k, name: v });
  if (uid !== undefined) checks.push({ verb: "impersonate", group: authGroup, resource: "uids", name: uid });

  for (const a of checks) {
    if (!(await authorize(user, a))) {
      throw forbidden({
        user: user.username,
        verb: a.verb,
        resource: a.resource,
        subresource: a.subresource,
        group: a.group,
        namespace: a.namespace,
        name: a.name,
      });
    }
  }

  let newGroups = [...groups];
  if (sa && groups.length === 0) newGroups = serviceAccountGroups(sa.namespace);
  const marker = username === ANONYMOUS_USER ? UNAUTHENTICATED_GROUP : AUTHENTICATED_GROUP;
  if (!newGroups.includes(marker)) newGroups.push(marker);
  const out: UserInfo = { username, groups: newGroups };
  if (uid !== undefined) out.uid = uid;
  if (Object.keys(extra).length > 0) out.extra = extra;
  return out;
}
