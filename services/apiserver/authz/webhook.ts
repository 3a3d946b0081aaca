/**
 * The Webhook authorizer: POSTs a SubjectAccessReview (v1 or v1beta1) to a
 * remote HTTPS service described by a client configuration file (kubeconfig
 * format) and maps the answer: `allowed` → allow, `denied` → deny (short-circuits
 * the chain), neither → no opinion. Answers are cached by request: allowed ones
 * for `authorizedTTL` (5m), others for `unauthorizedTTL` (30s). A call that fails,
 * times out (at most 30s) or returns a malformed review is handled by the
 * failure policy (`NoOpinion` or `Deny`), as are match-condition errors.
 */
import { readFileSync } from "node:fs";
import { request as httpsRequest } from "node:https";
import { dirname, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import type { CompiledMatchConditions } from "./match-conditions.ts";
import { DENY, NO_OPINION, ALLOW, type Attributes, type Authorizer, type Decision } from "./types.ts";

export const DEFAULT_AUTHORIZED_TTL_MS = 5 * 60 * 1000;
export const DEFAULT_UNAUTHORIZED_TTL_MS = 30 * 1000;
export const MAX_TIMEOUT_MS = 30 * 1000;

export interface WebhookClientConfig {
  url: string;
  ca?: string;
  cert?: string;
  key?: string;
  token?: string;
  insecureSkipTLSVerify?: boolean;
}

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});
const asStr = (v: unknown): string => (typeof v === "string" ? v : "");

function named(list: unknown, name: string, field: string): Obj {
  const items = Array.isArray(list) ? list.map(asObj) : [];
  const hit = name ? items.find((x) => x.name === name) : items[0];
  return asObj(hit?.[field]);
}

/** Checks a webhook address: https, a host, no query or fragment, no user information. */
export function validateServerURL(server: string): void {
  let u: URL;
  try {
    u = new URL(server);
  } catch {
    throw new Error(`invalid webhook server address ${JSON.stringify(server)}`);
  }
  if (u.protocol !== "https:") throw new Error(`webhook server address must use https: ${JSON.stringify(server)}`);
  if (!u.hostname) throw new Error(`webhook server address has no host: ${JSON.stringify(server)}`);
  if (u.search || u.hash) throw new Error(`webhook server address may not carry query parameters or a fragment: ${JSON.stringify(server)}`);
  if (u.username || u.password) throw new Error(`webhook server address may not carry user information`);
}

/** Reads a client configuration file (kubeconfig format: current context, or the first cluster and user). */
export function loadWebhookClientConfig(path: string): WebhookClientConfig {
  const text = readFileSync(path, "utf8");
  const doc = asObj(parseYaml(text));
  const base = dirname(path);
  const contextName = asStr(doc["current-context"]);
  const context = named(doc.contexts, contextName, "context");
  const cluster = named(doc.clusters, asStr(context.cluster), "cluster");
  const user = named(doc.users, asStr(context.user), "user");
  const server = asStr(cluster.server);
  if (!server) throw new Error(`${path}: no cluster server address`);
  validateServerURL(server);
  const fileOrData = (o: Obj, fileKey: string, dataKey: string): string | undefined => {
    const data = asStr(o[dataKey]);
    if (data) return Buffer.from(data, "base64").toString("utf8");
    const file = asStr(o[fileKey]);
    return file ? readFileSync(resolve(base, file), "utf8") : undefined;
  };
  const cfg: WebhookClientConfig = { url: server };
  const ca = fileOrData(cluster, "certificate-authority", "certificate-authority-data");
  if (ca) cfg.ca = ca;
  if (cluster["insecure-skip-tls-verify"] === true) cfg.insecureSkipTLSVerify = true;
  const cert = fileOrData(user, "client-certificate", "client-certificate-data");
  const key = fileOrData(user, "client-key", "client-key-data");
  if (cert) cfg.cert = cert;
  if (key) cfg.key = key;
  const token = asStr(user.token) || (user.tokenFile ? readFileSync(resolve(base, asStr(user.tokenFile)), "utf8").trim() : "");
  if (token) cfg.token = token;
  return cfg;
}

export interface WebhookOptions {
  name: string;
  profile: PlatformProfile;
  client: WebhookClientConfig;
  /** Version of the review sent (`v1beta1` in command-line mode). */
  version: "v1" | "v1beta1";
  authorizedTTLMs?: number;
  unauthorizedTTLMs?: number;
  timeoutMs?: number;
  failurePolicy?: "NoOpinion" | "Deny";
  matchConditions?: CompiledMatchConditions;
  now?: () => number;
}

/** The v1 SubjectAccessReview spec of a request (what match conditions see as `request`). */
export function reviewSpec(attrs: Attributes): Record<string, unknown> {
  const spec: Record<string, unknown> = { user: attrs.user.username, groups: [...attrs.user.groups] };
  if (attrs.user.uid) spec.uid = attrs.user.uid;
  if (attrs.user.extra && Object.keys(attrs.user.extra).length > 0) spec.extra = structuredClone(attrs.user.extra);
  if (attrs.isResourceRequest) {
    const ra: Record<string, unknown> = {
      namespace: attrs.namespace,
      verb: attrs.verb,
      group: attrs.apiGroup,
      version: attrs.apiVersion,
      resource: attrs.resource,
      subresource: attrs.subresource,
      name: attrs.name,
    };
    if (attrs.fieldSelector && !attrs.fieldSelector.error && attrs.fieldSelector.requirements.length > 0) {
      ra.fieldSelector = { requirements: structuredClone(attrs.fieldSelector.requirements) };
    }
    if (attrs.labelSelector && !attrs.labelSelector.error && attrs.labelSelector.requirements.length > 0) {
      ra.labelSelector = { requirements: structuredClone(attrs.labelSelector.requirements) };
    }
    spec.resourceAttributes = ra;
  } else {
    spec.nonResourceAttributes = { path: attrs.path, verb: attrs.verb };
  }
  return spec;
}

interface CacheEntry {
  decision: Decision;
  expires: number;
}

const MAX_CACHE_ENTRIES = 10_000;

export class WebhookAuthorizer implements Authorizer {
  readonly name: string;
  private readonly cache = new Map<string, CacheEntry>();
  private readonly now: () => number;
  private readonly authorizedTTL: number;
  private readonly unauthorizedTTL: number;
  private readonly timeoutMs: number;
  /** Calls made to the remote service (observability and tests). */
  calls = 0;

  constructor(readonly opts: WebhookOptions) {
    this.name = opts.name;
    this.now = opts.now ?? Date.now;
    this.authorizedTTL = opts.authorizedTTLMs ?? DEFAULT_AUTHORIZED_TTL_MS;
    this.unauthorizedTTL = opts.unauthorizedTTLMs ?? DEFAULT_UNAUTHORIZED_TTL_MS;
    this.timeoutMs = Math.min(opts.timeoutMs ?? MAX_TIMEOUT_MS, MAX_TIMEOUT_MS);
    validateServerURL(opts.client.url);
  }

  private failure(why: string): Decision {
    const reason = `webhook authorizer ${JSON.stringify(this.name)} failed: ${why}`;
    return this.opts.failurePolicy === "Deny" ? { ...DENY(reason), error: why } : NO_OPINION("", reason);
  }

  async authorize(attrs: Attributes): Promise<Decision> {
    const spec = reviewSpec(attrs);
    if (this.opts.matchConditions && this.opts.matchConditions.count > 0) {
      const m = this.opts.matchConditions.evaluate(spec);
      if (m.result === "skip") return NO_OPINION();
      if (m.result === "error") return this.failure(`match condition evaluation: ${m.error}`);
    }
    const body = this.review(spec);
    const key = JSON.stringify(body.spec);
    const hit = this.cache.get(key);
    const now = this.now();
    if (hit && hit.expires > now) return hit.decision;
    if (hit) this.cache.delete(key);
    let status: Record<string, unknown>;
    try {
      status = await this.call(body);
    } catch (err) {
      return this.failure(err instanceof Error ? err.message : String(err));
    }
    if (typeof status.allowed !== "boolean") return this.failure("malformed response: status.allowed is not a boolean");
    const reason = typeof status.reason === "string" ? status.reason : "";
    let decision: Decision;
    if (status.allowed) decision = ALLOW(reason);
    else if (status.denied === true) decision = DENY(reason);
    else decision = NO_OPINION(reason, typeof status.evaluationError === "string" && status.evaluationError ? status.evaluationError : undefined);
    if (this.cache.size >= MAX_CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(key, { decision, expires: now + (status.allowed ? this.authorizedTTL : this.unauthorizedTTL) });
    return decision;
  }

  /** The review object sent, in the configured version (`group` instead of `groups` in v1beta1). */
  review(spec: Record<string, unknown>): { apiVersion: string; kind: string; spec: Record<string, unknown> } {
    const out = structuredClone(spec);
    if (this.opts.version === "v1beta1") {
      out.group = out.groups;
      delete out.groups;
    }
    return { apiVersion: this.opts.profile.apiVersion("authorization", this.opts.version), kind: "SubjectAccessReview", spec: out };
  }

  private call(body: unknown): Promise<Record<string, unknown>> {
    const { client } = this.opts;
    const payload = Buffer.from(JSON.stringify(body));
    this.calls++;
    return new Promise((resolvePromise, reject) => {
      const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json", "content-length": String(payload.length) };
      if (client.token) headers.authorization = `Bearer ${client.token}`;
      const req = httpsRequest(client.url, {
        method: "POST",
        headers,
        ca: client.ca,
        cert: client.cert,
        key: client.key,
        rejectUnauthorized: !client.insecureSkipTLSVerify,
      });
      const timer = setTimeout(() => req.destroy(new Error(`timed out after ${this.timeoutMs}ms`)), this.timeoutMs);
      req.on("error", (err) => {
        clearTimeout(timer);
        reject(err);
      });
      req.on("response", (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", (err) => {
          clearTimeout(timer);
          reject(err);
        });
        res.on("end", () => {
          clearTimeout(timer);
          if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) {
            reject(new Error(`the server responded with status ${res.statusCode}`));
            return;
          }
          try {
            const parsed = JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
            const status = asObj(asObj(parsed).status);
            resolvePromise(status);
          } catch {
            reject(new Error("malformed response: not JSON"));
          }
        });
      });
      req.end(payload);
    });
  }

  /** Drops cached answers (configuration reloads). */
  clearCache(): void {
    this.cache.clear();
  }
}
