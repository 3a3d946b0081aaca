/**
 * An OIDC provider's keys: discovery (`<issuer>/.well-known/openid-configuration`
 * or the configured discovery URL; the document's `issuer` must be the issuer
 * URL) then the `jwks_uri` key set, fetched with the issuer's CA. Keys are
 * cached; a token signed with an unknown key id triggers a refresh, at most
 * once per cool-down period, and the set is refreshed after `maxAgeMs`.
 */
import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from "jose";
import { getJson } from "./https-client.ts";

export interface RemoteKeySetOptions {
  issuer: string;
  discoveryURL?: string;
  ca?: string;
  cooldownMs?: number;
  maxAgeMs?: number;
  now?: () => number;
}

interface Loaded {
  getKey: JWTVerifyGetKey;
  kids: Set<string>;
  at: number;
}

export class RemoteKeySet {
  private loaded?: Loaded;
  private inflight?: Promise<Loaded>;
  private lastAttempt = 0;
  private readonly now: () => number;

  constructor(private readonly o: RemoteKeySetOptions) {
    this.now = o.now ?? Date.now;
  }

  private discoveryAddress(): string {
    return this.o.discoveryURL ?? `${this.o.issuer.replace(/\/$/, "")}/.well-known/openid-configuration`;
  }

  private async fetchKeys(): Promise<Loaded> {
    this.lastAttempt = this.now();
    const doc = (await getJson(this.discoveryAddress(), this.o.ca)) as Record<string, unknown> | null;
    if (!doc || typeof doc !== "object") throw new Error("discovery document is not an object");
    if (doc.issuer !== this.o.issuer) throw new Error(`oidc: issuer did not match the issuer returned by provider, expected "${this.o.issuer}" got ${JSON.stringify(doc.issuer)}`);
    if (typeof doc.jwks_uri !== "string") throw new Error("discovery document has no jwks_uri");
    const jwks = (await getJson(doc.jwks_uri, this.o.ca)) as JSONWebKeySet | null;
    if (!jwks || !Array.isArray(jwks.keys)) throw new Error("key set has no keys");
    const kids = new Set(jwks.keys.map((k) => k.kid).filter((k): k is string => typeof k === "string"));
    return { getKey: createLocalJWKSet(jwks), kids, at: this.now() };
  }

  private refresh(): Promise<Loaded> {
    if (!this.inflight) {
      this.inflight = this.fetchKeys()
        .then((l) => {
          this.loaded = l;
          return l;
        })
        .finally(() => {
          this.inflight = undefined;
        });
    }
    return this.inflight;
  }

  /** The key resolver for a token with this key id (refreshing when the id is unknown). */
  async resolver(kid: string | undefined): Promise<JWTVerifyGetKey> {
    const cooldown = this.o.cooldownMs ?? 10_000;
    const maxAge = this.o.maxAgeMs ?? 60 * 60 * 1000;
    let l = this.loaded;
    const stale = l && this.now() - l.at > maxAge;
    const unknownKid = l && kid !== undefined && !l.kids.has(kid);
    if (!l) l = await this.refresh();
    else if ((stale || unknownKid) && this.now() - this.lastAttempt >= cooldown) {
      try {
        l = await this.refresh();
      } catch {
        // keep the keys we have
      }
    }
    return l.getKey;
  }
}
