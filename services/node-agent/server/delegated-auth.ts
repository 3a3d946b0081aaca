/**
 * Authentication and authorization delegated to the API server, as the platform's
 * agent does it: a client certificate verified against `--client-ca-file` names the
 * user (CN) and groups (O); a bearer token is checked with a TokenReview; decisions
 * come from SubjectAccessReviews. Both answers are cached (tokens for the token TTL,
 * decisions for the authorized / unauthorized TTLs); a failed review call is not cached.
 */
import { createHash } from "node:crypto";
import type { TLSSocket } from "node:tls";
import type { IncomingMessage } from "node:http";
import type { HttpsTransport } from "../../../shared/client/transport.ts";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import type { NodeRequestAttributes } from "./request-attributes.ts";
import { TtlCache } from "./ttl-cache.ts";

export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export interface DelegatedAuthOptions {
  profile: PlatformProfile;
  transport: () => HttpsTransport;
  anonymous: boolean;
  tokenWebhook: boolean;
  tokenCacheTtlMs: number;
  authorizationMode: "AlwaysAllow" | "Webhook";
  authorizedTtlMs: number;
  unauthorizedTtlMs: number;
}

export type AuthnResult = { ok: true; user: UserInfo } | { ok: false; error?: string };
export type AuthzResult = { allowed: boolean; reason?: string; error?: string };

function subjectValues(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

export class DelegatedAuth {
  private readonly tokens = new TtlCache<AuthnResult>();
  private readonly decisions = new TtlCache<AuthzResult>();
  /** Review calls made (cache misses), for tests and metrics. */
  reviewCalls = { token: 0, access: 0 };

  constructor(private readonly o: DelegatedAuthOptions) {}

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
    this.reviewCalls.token++;
    const group = this.o.profile.group("authentication");
    let answer: { status?: { authenticated?: boolean; user?: UserInfo; error?: string } };
    try {
      answer = (await this.o.transport().json("POST", `/apis/${group}/v1/tokenreviews`, {
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

  async authorize(user: UserInfo, a: NodeRequestAttributes): Promise<AuthzResult> {
    if (this.o.authorizationMode === "AlwaysAllow") return { allowed: true };
    const spec = {
      user: user.username,
      uid: user.uid,
      groups: user.groups,
      extra: user.extra,
      resourceAttributes: { verb: a.verb, group: "", version: a.apiVersion, resource: a.resource, subresource: a.subresource, name: a.name },
    };
    const key = JSON.stringify(spec);
    const cached = this.decisions.get(key);
    if (cached) return cached;
    this.reviewCalls.access++;
    const group = this.o.profile.group("authorization");
    let answer: { status?: { allowed?: boolean; denied?: boolean; reason?: string; evaluationError?: string } };
    try {
      answer = (await this.o.transport().json("POST", `/apis/${group}/v1/subjectaccessreviews`, {
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
