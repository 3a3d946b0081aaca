/**
 * The spec of a TokenRequest as the platform reads and validates it: a missing
 * `expirationSeconds` defaults to 3600; a value that is not a 64-bit integer is a
 * 400 (the platform fails to decode it); below 10 minutes or above 2^32 seconds is
 * 422 Invalid; `--service-account-max-token-expiration` (when set) then caps it,
 * with the platform's warning.
 */
import { badRequest, invalid } from "../../../shared/api/status.ts";
import type { FieldError } from "../../../shared/schema/types.ts";
import { fieldErrors } from "../../../shared/schema/field-errors.ts";
import type { PlatformProfile } from "../../../shared/platform/index.ts";

export const DEFAULT_TOKEN_EXPIRATION_SECONDS = 3600;
export const MIN_TOKEN_EXPIRATION_SECONDS = 10 * 60;
export const MAX_TOKEN_EXPIRATION_SECONDS = 2 ** 32;
const INT64_LIMIT = 2 ** 63;

export interface TokenRequestSpec {
  audiences?: string[];
  expirationSeconds: number;
  boundObjectRef?: { kind?: string; name?: string; uid?: string; apiVersion?: string };
}

function goType(v: unknown): string {
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "bool";
  if (Array.isArray(v)) return "array";
  if (typeof v === "object") return "object";
  return "number";
}

/**
 * The validated spec of `body` with `expirationSeconds` set (defaulted, then capped
 * to `maxExpirationSeconds` when that is > 0, telling `warn`).
 */
export function tokenRequestSpec(profile: PlatformProfile, body: Record<string, unknown>, maxExpirationSeconds = 0, warn: (text: string) => void = () => {}): TokenRequestSpec {
  const raw = (typeof body.spec === "object" && body.spec !== null && !Array.isArray(body.spec) ? body.spec : {}) as Record<string, unknown>;
  const requested = raw.expirationSeconds ?? DEFAULT_TOKEN_EXPIRATION_SECONDS;
  if (typeof requested !== "number" || !Number.isInteger(requested) || Math.abs(requested) >= INT64_LIMIT) {
    throw badRequest(`json: cannot unmarshal ${goType(requested)} into Go struct field TokenRequestSpec.spec.expirationSeconds of type int64`);
  }
  const errors: FieldError[] = [];
  if (requested < MIN_TOKEN_EXPIRATION_SECONDS) {
    errors.push(fieldErrors.invalid("spec.expirationSeconds", requested, "may not specify a duration less than 10 minutes"));
  }
  if (requested > MAX_TOKEN_EXPIRATION_SECONDS) {
    errors.push(fieldErrors.invalid("spec.expirationSeconds", requested, "may not specify a duration larger than 2^32 seconds"));
  }
  if (errors.length > 0) throw invalid("TokenRequest", "", errors, profile.group("authentication"));
  const shortened = maxExpirationSeconds > 0 && requested > maxExpirationSeconds;
  if (shortened) warn(`requested expiration of ${requested} seconds shortened to ${maxExpirationSeconds} seconds`);
  const expirationSeconds = shortened ? maxExpirationSeconds : requested;
  return { ...(raw as Omit<TokenRequestSpec, "expirationSeconds">), expirationSeconds };
}
