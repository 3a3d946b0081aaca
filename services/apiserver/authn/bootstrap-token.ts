/**
 * Bootstrap tokens (`--enable-bootstrap-token-auth`): `<id>.<secret>` backed
 * by the secret `bootstrap-token-<id>` of the bootstrap token type in the
 * system namespace. The token authenticates as `system:bootstrap:<id>` with
 * the group `system:bootstrappers` plus the secret's `auth-extra-groups`,
 * while the secret allows authentication and has not expired. The secret part
 * is compared in constant time. A token of another shape, or without a secret,
 * is not this method's (no opinion); a known id with a wrong secret, an
 * expired or unusable token is rejected.
 */
import { timingSafeEqual } from "node:crypto";
import { unauthorized } from "../../../shared/api/status.ts";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import { NO_OPINION, type AuthResult, type ObjectGetter, type TokenAuthenticator } from "./types.ts";

export const BOOTSTRAP_TOKEN_PATTERN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
export const BOOTSTRAP_USER_PREFIX = "system:bootstrap:";
export const BOOTSTRAP_GROUP = "system:bootstrappers";
/** Extra groups must be `system:bootstrappers:<something>`. */
export const BOOTSTRAP_EXTRA_GROUP_PATTERN = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;
export const BOOTSTRAP_SECRET_PREFIX = "bootstrap-token-";

/** The secret's data as text: `data` is base64; `stringData` (not yet folded) is plain. */
export function secretData(secret: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  const data = secret.data;
  if (data && typeof data === "object") {
    for (const [k, v] of Object.entries(data as Record<string, unknown>)) if (typeof v === "string") out[k] = Buffer.from(v, "base64").toString("utf8");
  }
  const sd = secret.stringData;
  if (sd && typeof sd === "object") {
    for (const [k, v] of Object.entries(sd as Record<string, unknown>)) if (typeof v === "string") out[k] = v;
  }
  return out;
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a, "utf8");
  const y = Buffer.from(b, "utf8");
  // Compare equal-length buffers so that the time does not depend on where they differ.
  if (x.length !== y.length) {
    timingSafeEqual(x, x);
    return false;
  }
  return timingSafeEqual(x, y);
}

/** Parses the comma-separated extra groups; throws on a name outside `system:bootstrappers:`. */
export function bootstrapExtraGroups(value: string | undefined): string[] {
  if (!value) return [];
  const groups = value.split(",").map((g) => g.trim()).filter((g) => g !== "");
  for (const g of groups) {
    if (!BOOTSTRAP_EXTRA_GROUP_PATTERN.test(g)) throw new Error(`bootstrap group ${JSON.stringify(g)} is invalid (must match ${BOOTSTRAP_EXTRA_GROUP_PATTERN.source})`);
  }
  return groups;
}

/** True when an RFC 3339 `expiration` lies in the past (an unparsable value counts as expired). */
export function bootstrapTokenExpired(expiration: string | undefined, now: Date): boolean {
  if (expiration === undefined || expiration === "") return false;
  const t = Date.parse(expiration);
  if (Number.isNaN(t) || !/^\d{4}-\d{2}-\d{2}T/.test(expiration)) return true;
  return t <= now.getTime();
}

export class BootstrapTokenAuthenticator implements TokenAuthenticator {
  readonly name = "bootstrap";

  constructor(
    private readonly profile: PlatformProfile,
    private readonly getObject: ObjectGetter,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async authenticateToken(token: string): Promise<AuthResult> {
    const m = BOOTSTRAP_TOKEN_PATTERN.exec(token);
    if (!m) return NO_OPINION;
    const [, id, secretPart] = m;
    const secret = await this.getObject("secrets", this.profile.systemNamespace, `${BOOTSTRAP_SECRET_PREFIX}${id}`);
    if (!secret) return NO_OPINION;
    const md = (secret.metadata ?? {}) as Record<string, unknown>;
    if (md.deletionTimestamp) throw unauthorized("bootstrap token is being deleted");
    if (secret.type !== this.profile.secretTypes.bootstrapToken) return NO_OPINION;
    const data = secretData(secret);
    if (data["token-id"] !== id) return NO_OPINION;
    if (!sameSecret(data["token-secret"] ?? "", secretPart)) throw unauthorized("invalid bootstrap token");
    if (bootstrapTokenExpired(data.expiration, this.now())) throw unauthorized("bootstrap token has expired");
    if (data["usage-bootstrap-authentication"] !== "true") throw unauthorized("bootstrap token is not usable for authentication");
    let extra: string[];
    try {
      extra = bootstrapExtraGroups(data["auth-extra-groups"]);
    } catch {
      throw unauthorized("bootstrap token has invalid extra groups");
    }
    return { user: { username: `${BOOTSTRAP_USER_PREFIX}${id}`, groups: [BOOTSTRAP_GROUP, ...extra] } };
  }
}
