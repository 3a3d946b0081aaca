/**
 * Bootstrap token Secrets and detached JWS signatures, pure: which Secrets are
 * well-formed bootstrap tokens (type from the profile, name `bootstrap-token-<id>`,
 * `token-id` [a-z0-9]{6}, `token-secret` [a-z0-9]{16}), when one expires
 * (`expiration`, RFC 3339), whether it may sign (`usage-bootstrap-signing: "true"`),
 * and the detached HS256 signature (`<header>..<signature>`, header
 * `{"alg":"HS256","kid":"<token-id>"}`) of the cluster-info kubeconfig with the token
 * secret as key, as the platform's bootstrap signer writes it.
 */
import { createHmac } from "node:crypto";
import type { ApiObject } from "../../../shared/client/object-client.ts";

export const CLUSTER_INFO = "cluster-info";
export const KUBECONFIG_KEY = "kubeconfig";
export const JWS_PREFIX = "jws-kubeconfig-";
export const TOKEN_SECRET_PREFIX = "bootstrap-token-";

export interface BootstrapToken {
  id: string;
  secret: string;
  /** ms since the epoch; undefined when the token does not expire. */
  expiresAtMs?: number;
  signing: boolean;
}

function field(secret: ApiObject, key: string): string | undefined {
  const data = (secret.data ?? {}) as Record<string, string>;
  const v = data[key];
  if (typeof v === "string") return Buffer.from(v, "base64").toString("utf8");
  const s = ((secret.stringData ?? {}) as Record<string, string>)[key];
  return typeof s === "string" ? s : undefined;
}

/** The token a Secret holds, or undefined when it is not a well-formed bootstrap token of type `tokenType`. */
export function parseTokenSecret(secret: ApiObject, tokenType: string): BootstrapToken | undefined {
  if (secret.type !== tokenType) return undefined;
  const id = field(secret, "token-id");
  const value = field(secret, "token-secret");
  if (!id || !/^[a-z0-9]{6}$/.test(id) || !value || !/^[a-z0-9]{16}$/.test(value)) return undefined;
  if (secret.metadata.name !== `${TOKEN_SECRET_PREFIX}${id}`) return undefined;
  const exp = field(secret, "expiration");
  let expiresAtMs: number | undefined;
  if (exp) {
    expiresAtMs = Date.parse(exp);
    if (Number.isNaN(expiresAtMs)) expiresAtMs = 0; // an unreadable expiration counts as expired
  }
  return { id, secret: value, expiresAtMs, signing: field(secret, "usage-bootstrap-signing") === "true" };
}

export function isExpired(token: BootstrapToken, nowMs: number): boolean {
  return token.expiresAtMs !== undefined && token.expiresAtMs <= nowMs;
}

const b64url = (b: Buffer | string): string => Buffer.from(b).toString("base64url");

/** The detached compact JWS (`<header>..<signature>`) of `content` with HS256 and key `tokenSecret`. */
export function detachedSignature(content: string, tokenId: string, tokenSecret: string): string {
  const header = b64url(JSON.stringify({ alg: "HS256", kid: tokenId }));
  const signature = createHmac("sha256", tokenSecret).update(`${header}.${b64url(content)}`).digest("base64url");
  return `${header}..${signature}`;
}

/** The cluster-info data the signer wants: the other keys unchanged, one signature per valid signing token. */
export function signedClusterInfoData(data: Record<string, string>, tokens: readonly BootstrapToken[], nowMs: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(data)) if (!k.startsWith(JWS_PREFIX)) out[k] = v;
  const content = data[KUBECONFIG_KEY];
  if (content === undefined) return data;
  for (const t of tokens) if (t.signing && !isExpired(t, nowMs)) out[`${JWS_PREFIX}${t.id}`] = detachedSignature(content, t.id, t.secret);
  return out;
}
