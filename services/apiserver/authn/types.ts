/**
 * The shapes every authentication method shares. A method is an
 * `Authenticator` over the request's headers, verified-or-not peer
 * certificates and path; bearer-token methods are `TokenAuthenticator`s that a
 * bearer step puts in front of the request.
 *
 * Outcomes: `{ user }` (authenticated), `{ noOpinion: true }` (this method
 * does not apply: the next one is asked) or a thrown 401 `StatusError` (the
 * credential was meant for this method and is bad). Messages never hold a
 * credential.
 */
import type { X509Certificate } from "node:crypto";
import type { UserInfo } from "../endpoints/scope.ts";
import type { RequestHeaders } from "./headers.ts";

export type { UserInfo };

export interface AuthRequest {
  headers: RequestHeaders;
  /** The client's certificate chain as presented: leaf first. Not verified by TLS: each method verifies it. */
  peerCertificates: readonly X509Certificate[];
  /** The request path, without the query. */
  path: string;
  /** Audiences the credential must be meant for; empty means the server's API audiences. */
  audiences?: readonly string[];
}

export interface Authenticated {
  user: UserInfo;
  /** Audiences the credential is valid for (token methods that know them). */
  audiences?: string[];
  /** `Warning` texts for the client (e.g. the use of an auto-generated legacy token). */
  warnings?: string[];
}

export type AuthResult = Authenticated | { noOpinion: true };

export const NO_OPINION: AuthResult = Object.freeze({ noOpinion: true as const });

export interface Authenticator {
  /** A short name for logs and metrics (`x509`, `bootstrap`, `serviceaccount`, ...). */
  readonly name: string;
  authenticate(req: AuthRequest): Promise<AuthResult>;
}

export interface TokenAuthenticator {
  readonly name: string;
  /** `audiences` empty means the implicit audiences of the server. */
  authenticateToken(token: string, audiences: readonly string[]): Promise<AuthResult>;
}

export function isAuthenticated(r: AuthResult): r is Authenticated {
  return "user" in r;
}

const WARNINGS = new WeakMap<UserInfo, readonly string[]>();

/** The warnings of the result that authenticated `user` (the request's filter chain sends them). */
export function authenticationWarnings(user: UserInfo | undefined): readonly string[] {
  return (user && WARNINGS.get(user)) ?? [];
}

/** The user of an authenticated result, its warnings kept for `authenticationWarnings`. */
export function userWithWarnings(r: Authenticated): UserInfo {
  if (r.warnings && r.warnings.length > 0) WARNINGS.set(r.user, r.warnings);
  return r.user;
}

/** Reads an object of the API: undefined when it does not exist. */
export type ObjectGetter = (resource: "secrets" | "serviceaccounts" | "pods" | "nodes", namespace: string | undefined, name: string) => Promise<Record<string, unknown> | undefined>;

export const ANONYMOUS_USER = "system:anonymous";
export const UNAUTHENTICATED_GROUP = "system:unauthenticated";
export const AUTHENTICATED_GROUP = "system:authenticated";
