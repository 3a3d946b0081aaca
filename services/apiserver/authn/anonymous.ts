/**
 * Anonymous requests: a request that no method authenticated and none
 * rejected is `system:anonymous` in `system:unauthenticated`, when anonymous
 * access is on (`--anonymous-auth`, or the `anonymous` section of the
 * authentication file, whose `conditions[].path` limit it to those paths).
 */
import { unauthorized } from "../../../shared/api/status.ts";
import { ANONYMOUS_USER, UNAUTHENTICATED_GROUP, type UserInfo } from "./types.ts";

export interface AnonymousPolicy {
  enabled: boolean;
  /** When set, only these exact paths may be served anonymously. */
  paths?: readonly string[];
}

export function anonymousUser(): UserInfo {
  return { username: ANONYMOUS_USER, groups: [UNAUTHENTICATED_GROUP] };
}

/** The anonymous user for this path, or a 401. */
export function anonymousFor(policy: AnonymousPolicy, path: string): UserInfo {
  if (!policy.enabled) throw unauthorized();
  if (policy.paths && !policy.paths.includes(path)) throw unauthorized();
  return anonymousUser();
}
