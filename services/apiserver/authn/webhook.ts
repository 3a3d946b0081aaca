/**
 * Token webhook (`--authentication-token-webhook-config-file`): a
 * client-configuration file names the remote service (`clusters[].cluster.server`,
 * https only, with `certificate-authority[-data]`) and the client credentials
 * (`users[].user.client-certificate[-data]`/`client-key[-data]` or `token`),
 * chosen by `current-context`. The server POSTs a `TokenReview` of the chosen
 * version (`v1beta1` default, or `v1`) and expects the same `apiVersion` back.
 * Answers are cached per SHA-256 of the token and the audiences for the cache
 * TTL (default 2 minutes); failures to reach the service are not cached.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import { parse as parseYaml } from "yaml";
import { unauthorized } from "../../../shared/api/status.ts";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import { intersectAudiences } from "./chain.ts";
import { httpsRequest } from "./https-client.ts";
import { NO_OPINION, type AuthResult, type TokenAuthenticator, type UserInfo } from "./types.ts";

export const DEFAULT_WEBHOOK_CACHE_TTL_MS = 2 * 60 * 1000;
export type WebhookVersion = "v1" | "v1beta1";

export interface WebhookClientConfig {
  server: string;
  ca?: string;
  cert?: string;
  key?: string;
  bearerToken?: string;
}

type Obj = Record<string, unknown>;

function named(list: unknown, name: unknown, what: string): Obj {
  if (!Array.isArray(list)) throw new Error(`no ${what}s in the webhook configuration`);
  const found = list.find((e) => (e as Obj | null)?.name === name) as Obj | undefined;
  if (!found) throw new Error(`${what} ${JSON.stringify(name)} not found in the webhook configuration`);
  return found;
}

/** Reads a client-configuration file (YAML or JSON); relative file paths are relative to its directory. */
export function loadWebhookClientConfig(path: string): WebhookClientConfig {
  const text = readFileSync(path, "utf8");
  return parseWebhookClientConfig(text, dirname(path));
}

export function parseWebhookClientConfig(text: string, baseDir: string): WebhookClientConfig {
  const doc = parseYaml(text) as Obj | null;
  if (!doc || typeof doc !== "object") throw new Error("webhook configuration is not an object");
  const clusters = doc.clusters as unknown[] | undefined;
  const users = doc.users as unknown[] | undefined;
  let clusterName: unknown;
  let userName: unknown;
  if (typeof doc["current-context"] === "string" && doc["current-context"] !== "") {
    const ctx = named(doc.contexts, doc["current-context"], "context").context as Obj | undefined;
    clusterName = ctx?.cluster;
    userName = ctx?.user;
  } else {
    // Without a context the first cluster and user are used.
    clusterName = (clusters?.[0] as Obj | undefined)?.name;
    userName = (users?.[0] as Obj | undefined)?.name;
  }
  const cluster = named(clusters, clusterName, "cluster").cluster as Obj | undefined;
  if (!cluster || typeof cluster.server !== "string") throw new Error("webhook configuration: cluster has no server");
  const server = cluster.server;
  let u: URL;
  try {
    u = new URL(server);
  } catch {
    throw new Error("webhook configuration: server is not a valid URL");
  }
  if (u.protocol !== "https:") throw new Error(`webhook configuration: server must use https, not ${u.protocol.replace(/:$/, "")}`);
  if (u.search || u.hash || u.username || u.password) throw new Error("webhook configuration: server URL must not carry a query, a fragment or user information");
  const file = (p: unknown): string => readFileSync(isAbsolute(String(p)) ? String(p) : join(baseDir, String(p)), "utf8");
  const b64 = (v: unknown): string => Buffer.from(String(v), "base64").toString("utf8");
  const out: WebhookClientConfig = { server };
  if (cluster["certificate-authority-data"]) out.ca = b64(cluster["certificate-authority-data"]);
  else if (cluster["certificate-authority"]) out.ca = file(cluster["certificate-authority"]);
  if (userName !== undefined && users) {
    const user = named(users, userName, "user").user as Obj | undefined;
    if (user) {
      if (user["client-certificate-data"]) out.cert = b64(user["client-certificate-data"]);
      else if (user["client-certificate"]) out.cert = file(user["client-certificate"]);
      if (user["client-key-data"]) out.key = b64(user["client-key-data"]);
      else if (user["client-key"]) out.key = file(user["client-key"]);
      if (typeof user.token === "string" && user.token !== "") out.bearerToken = user.token;
      else if (user.tokenFile) out.bearerToken = file(user.tokenFile).trim();
    }
  }
  if ((out.cert === undefined) !== (out.key === undefined)) throw new Error("webhook configuration: client certificate and key must be given together");
  return out;
}

export interface WebhookOptions {
  profile: PlatformProfile;
  client: WebhookClientConfig;
  version?: WebhookVersion;
  cacheTtlMs?: number;
  /** The server's API audiences: the implicit audiences sent when a request names none. */
  apiAudiences?: readonly string[];
  timeoutMs?: number;
  now?: () => number;
  /** Largest number of cached answers. */
  maxCacheEntries?: number;
}

/** An answer of the service: a result, or a refusal with the service's error text. */
type Answer = AuthResult | { refused: string };

interface CacheEntry {
  answer: Answer;
  expires: number;
}

function settle(a: Answer): AuthResult {
  if ("refused" in a) throw unauthorized(a.refused);
  return a;
}

function asStrings(v: unknown): string[] | undefined {
  return Array.isArray(v) && v.every((x) => typeof x === "string") ? (v as string[]) : undefined;
}

export class TokenWebhookAuthenticator implements TokenAuthenticator {
  readonly name = "webhook";
  private readonly cache = new Map<string, CacheEntry>();
  private readonly now: () => number;
  private readonly apiVersion: string;

  constructor(private readonly o: WebhookOptions) {
    this.now = o.now ?? Date.now;
    this.apiVersion = `${o.profile.group("authentication")}/${o.version ?? "v1beta1"}`;
  }

  /** Number of cached answers (for tests and metrics). */
  get cacheSize(): number {
    return this.cache.size;
  }

  async authenticateToken(token: string, audiences: readonly string[]): Promise<AuthResult> {
    const wanted = audiences.length > 0 ? [...audiences] : [...(this.o.apiAudiences ?? [])];
    const key = createHash("sha256").update(token).update("\0").update(wanted.join("\0")).digest("hex");
    const hit = this.cache.get(key);
    const now = this.now();
    if (hit && hit.expires > now) return settle(hit.answer);
    if (hit) this.cache.delete(key);
    const answer = await this.call(token, wanted);
    const ttl = this.o.cacheTtlMs ?? DEFAULT_WEBHOOK_CACHE_TTL_MS;
    if (ttl > 0) {
      if (this.cache.size >= (this.o.maxCacheEntries ?? 10_000)) {
        const oldest = this.cache.keys().next().value;
        if (oldest !== undefined) this.cache.delete(oldest);
      }
      this.cache.set(key, { answer, expires: now + ttl });
    }
    return settle(answer);
  }

  private async call(token: string, audiences: string[]): Promise<Answer> {
    const review = { apiVersion: this.apiVersion, kind: "TokenReview", spec: { token, ...(audiences.length > 0 ? { audiences } : {}) } };
    const c = this.o.client;
    let res;
    try {
      res = await httpsRequest({
        url: c.server,
        method: "POST",
        headers: { "content-type": "application/json", ...(c.bearerToken ? { authorization: `Bearer ${c.bearerToken}` } : {}) },
        body: JSON.stringify(review),
        ca: c.ca,
        cert: c.cert,
        key: c.key,
        timeoutMs: this.o.timeoutMs ?? 10_000,
      });
    } catch {
      throw unauthorized("token webhook could not be reached");
    }
    if (res.status < 200 || res.status > 299) throw unauthorized(`token webhook answered with status ${res.status}`);
    let body: Obj;
    try {
      body = JSON.parse(res.body.toString("utf8")) as Obj;
    } catch {
      throw unauthorized("token webhook answer is not JSON");
    }
    if (body?.apiVersion !== this.apiVersion || body.kind !== "TokenReview") throw unauthorized("token webhook answered with an unexpected apiVersion or kind");
    const status = (body.status ?? {}) as Obj;
    if (status.authenticated !== true) {
      // The service's error text is passed on; a failure without one reads as a plain Unauthorized.
      if (typeof status.error === "string" && status.error !== "") return { refused: status.error };
      return NO_OPINION;
    }
    const u = (status.user ?? {}) as Obj;
    if (typeof u.username !== "string" || u.username === "") throw unauthorized("token webhook answered without a username");
    const user: UserInfo = { username: u.username, groups: asStrings(u.groups) ?? [] };
    if (typeof u.uid === "string" && u.uid !== "") user.uid = u.uid;
    if (u.extra && typeof u.extra === "object") {
      const extra: Record<string, string[]> = {};
      for (const [k, v] of Object.entries(u.extra as Obj)) {
        const values = asStrings(v);
        if (values) extra[k] = values;
      }
      if (Object.keys(extra).length > 0) user.extra = extra;
    }
    const got = asStrings(status.audiences);
    if (audiences.length > 0 && got && got.length > 0) {
      const valid = intersectAudiences(audiences, got);
      if (valid.length === 0) return { refused: `token audiences ${JSON.stringify(got)} is invalid for the target audiences ${JSON.stringify(audiences)}` };
      return { user, audiences: valid };
    }
    return { user, audiences };
  }
}
