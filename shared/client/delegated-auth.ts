/**
 * Authentication and authorization delegated to the API server, as the platform's
 * components serving their own HTTPS ports do it (node agent, controller manager):
 * a client certificate verified against the server's client CA names the user (CN)
 * and groups (O); a bearer token is checked with a TokenReview; otherwise the caller
 * is `system:anonymous` when anonymous requests are allowed. Decisions come from
 * SubjectAccessReviews with resource or non-resource attributes. Token answers are
 * cached for the token TTL, decisions for the authorized / unauthorized TTLs; a failed
 * review call is never cached. Review calls go through `transport()` (an API client).
 */
import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";
import type { PlatformProfile } from "../platform/index.ts";
import type { HttpsTransport } from "./transport.ts";
import { TtlCache } from "./ttl-cache.ts";

export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export interface DelegatedAuthOptions {
  profile: PlatformProfile;
  /** The API client for reviews; undefined when there is none (no token review, every decision "no"). */
  transport: () => HttpsTransport | undefined;
  anonymous: boolean;
  tokenWebhook: boolean;
  tokenCacheTtlMs: number;
  authorizationMode: "AlwaysAllow" | "Webhook";
  authorizedTtlMs: number;
  unauthorizedTtlMs: number;
}

export type AuthnResult = { ok: true; user: UserInfo } | { ok: false; error?: string };
export type AuthzResult = { allowed: boolean; reason?: string; error?: string };

/** SubjectAccessReview attributes: a resource request or a non-resource path. */
export type ReviewAttributes =
  | { resourceAttributes: { verb: string; group: string; version: string; resource: string; subresource?: string; name?: string; namespace?: string } }
  | { nonResourceAttributes: { path: string; verb: string } };

function subjectValues(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

export class DelegatedAuthenticatorAuthorizer {
  private readonly tokens = new TtlCache<AuthnResult>();
  private readonly decisions = new TtlCache<AuthzResult>();
  /** Review calls made (cache misses), for tests and metrics. */
  reviewCalls = { token: 0, access: 0 };

  constructor(protected readonly o: DelegatedAuthOptions) {}

  async authenticate(req: IncomingMessage): Promise<AuthnResult> {
    const socket = req.socket as TLSSocket;
    if (socket.authorized) {
      const peer = socket.getPeerCertificate();
      const cn = subjectValues(peer.subject?.CN)[0];
      if (cn) return { ok: true, user: { username: cn, groups: [...subjectValues(peer.subject?.O), "system:authenticated"] } };
    }
    const header = req.headers.authorization;
    const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (m && this.o.tokenWebhook) return this.reviewToken(m[1]);
    if (this.o.anonymous) return { ok: true, user: { username: "system:anonymous", groups: ["system:unauthenticated"] } };
    return { ok: false };
  }

  private async reviewToken(token: string): Promise<AuthnResult> {
    const key = createHash("sha256").update(token).digest("hex");
    const cached = this.tokens.get(key);
    if (cached) return cached;
    const transport = this.o.transport();
    if (!transport) return { ok: false, error: "no API client for token reviews" };
    this.reviewCalls.token++;
    const group = this.o.profile.group("authentication");
    let answer: { status?: { authenticated?: boolean; user?: UserInfo; error?: string } };
    try {
      answer = (await transport.json("POST", `/apis/${group}/v1/tokenreviews`, {
        contentType: "application/json",
        data: JSON.stringify({ apiVersion: `${group}/v1`, kind: "TokenReview", spec: { token } }),
      })) as typeof answer;
    } catch (err) {
      return { ok: false, error: (err as Error).message };
    }
    const s = answer.status ?? {};
    const result: AuthnResult = s.authenticated && s.user?.username ? { ok: true, user: { ...s.user, groups: s.user.groups ?? [] } } : { ok: false, error: s.error };
    this.tokens.set(key, result, this.o.tokenCacheTtlMs);
    return result;
  }

  /** The SubjectAccessReview decision for `user` on `attributes` (cached). */
  async review(user: UserInfo, attributes: ReviewAttributes): Promise<AuthzResult> {
    if (this.o.authorizationMode === "AlwaysAllow") return { allowed: true };
    const spec = { user: user.username, uid: user.uid, groups: user.groups, extra: user.extra, ...attributes };
    const key = JSON.stringify(spec);
    const cached = this.decisions.get(key);
    if (cached) return cached;
    const transport = this.o.transport();
    if (!transport) return { allowed: false, reason: "no API client for access reviews" };
    this.reviewCalls.access++;
    const group = this.o.profile.group("authorization");
    let answer: { status?: { allowed?: boolean; denied?: boolean; reason?: string; evaluationError?: string } };
    try {
      answer = (await transport.json("POST", `/apis/${group}/v1/subjectaccessreviews`, {
        contentType: "application/json",
        data: JSON.stringify({ apiVersion: `${group}/v1`, kind: "SubjectAccessReview", spec }),
      })) as typeof answer;
    } catch (err) {
      return { allowed: false, error: (err as Error).message };
    }
    const result: AuthzResult = { allowed: answer.status?.allowed === true && answer.status.denied !== true, reason: answer.status?.reason };
    this.decisions.set(key, result, result.allowed ? this.o.authorizedTtlMs : this.o.unauthorizedTtlMs);
    return result;
  }
}
