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
  /** Annotations for the request's audit event (e.g. which legacy token Secret was used). */
  auditAnnotations?: Record<string, string>;
}

export type AuthResult = Authenticated | { noOpinion: true };

export const NO_OPINION: AuthResult = Object.freeze({ noOpinion: true as const });

export interface Authenticator {
  /** A short name for logs and metrics (`x509`, `bootstrap`, `serviceaccount`, ...). */
  readonly name: string;
  /** May answer synchronously (and throw a 401 synchronously): callers handle both forms. */
  authenticate(req: AuthRequest): AuthResult | Promise<AuthResult>;
}

export interface TokenAuthenticator {
  readonly name: string;
  /** `audiences` empty means the implicit audiences of the server. */
  authenticateToken(token: string, audiences: readonly string[]): Promise<AuthResult>;
}

export function isAuthenticated(r: AuthResult): r is Authenticated {
  return "user" in r;
}

interface AuthenticationNotes {
  warnings: readonly string[];
  auditAnnotations: Readonly<Record<string, string>>;
}

const NO_NOTES: AuthenticationNotes = Object.freeze({ warnings: [], auditAnnotations: Object.freeze({}) });
const NOTES = new WeakMap<UserInfo, AuthenticationNotes>();

/** The warnings of the result that authenticated `user` (the request's filter chain sends them). */
export function authenticationWarnings(user: UserInfo | undefined): readonly string[] {
  return ((user && NOTES.get(user)) ?? NO_NOTES).warnings;
}

/** The audit annotations of the result that authenticated `user` (the audit filter records them). */
export function authenticationAuditAnnotations(user: UserInfo | undefined): Readonly<Record<string, string>> {
  return ((user && NOTES.get(user)) ?? NO_NOTES).auditAnnotations;
}

/** The user of an authenticated result, its warnings and audit annotations kept for the filters. */
export function userWithNotes(r: Authenticated): UserInfo {
  if (r.warnings?.length || r.auditAnnotations) NOTES.set(r.user, { warnings: r.warnings ?? [], auditAnnotations: r.auditAnnotations ?? {} });
  return r.user;
}

const FAILURE_NOTES = new WeakMap<object, Readonly<Record<string, string>>>();

/** `err` (a refusal) carrying annotations for the refused request's audit event; returns `err`. */
export function withFailureAuditAnnotations<E extends object>(err: E, annotations: Readonly<Record<string, string>>): E {
  if (Object.keys(annotations).length > 0) FAILURE_NOTES.set(err, annotations);
  return err;
}

/** The audit annotations a refusal carries (the failed authentication's audit event records them). */
export function failureAuditAnnotations(err: unknown): Readonly<Record<string, string>> {
  return (typeof err === "object" && err !== null && FAILURE_NOTES.get(err)) || NO_NOTES.auditAnnotations;
}

/** Reads an object of the API: undefined when it does not exist. */
export type ObjectGetter = (resource: "secrets" | "serviceaccounts" | "pods" | "nodes", namespace: string | undefined, name: string) => Promise<Record<string, unknown> | undefined>;

export const ANONYMOUS_USER = "system:anonymous";
export const UNAUTHENTICATED_GROUP = "system:unauthenticated";
export const AUTHENTICATED_GROUP = "system:authenticated";
