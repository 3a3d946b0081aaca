/**
 * Service account tokens: JWTs signed by the server's signing key.
 *
 * Claims of a bound token (as the platform writes them):
 *   iss, sub = `system:serviceaccount:<ns>:<name>`, aud[], exp, iat, nbf, jti,
 *   <privateClaim>: { namespace, serviceaccount: {name, uid},
 *                     pod?: {name, uid}, secret?: {name, uid}, node?: {name, uid},
 *                     warnafter? }
 * Legacy secret-based tokens (issuer `profile.serviceAccount.legacyIssuer`)
 * carry `<privateClaim>/serviceaccount/namespace`, `.../secret.name`,
 * `.../service-account.name`, `.../service-account.uid` and no audience.
 *
 * The verifier accepts tokens of its issuers signed by one of its keys, with a
 * 60 s leeway on exp/nbf, meant for one of the requested audiences (the API
 * audiences by default). With lookup on, the service account (and a bound pod,
 * secret or node) must still exist with the same uid; a legacy token must
 * still be the one in its secret, and its use is tracked (legacy-token-use.ts): a
 * secret marked invalid by the legacy token cleaner refuses it.
 */
import { randomUUID } from "node:crypto";
import { decodeJwt, decodeProtectedHeader, jwtVerify, SignJWT, type JWTPayload } from "jose";
import { accountListsSecret } from "../../../shared/api/secret-references.ts";
import { unauthorized } from "../../../shared/api/status.ts";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import { secretData } from "./bootstrap-token.ts";
import { intersectAudiences } from "./chain.ts";
import { AUTO_GENERATED_TOKEN_WARNING, type LegacyTokenUse } from "./legacy-token-use.ts";
import type { ServiceAccountPublicKey, ServiceAccountSigningKey } from "./sa-keys.ts";
import { NO_OPINION, type AuthResult, type ObjectGetter, type TokenAuthenticator, type UserInfo } from "./types.ts";

export const SA_USER_PREFIX = "system:serviceaccount:";
export const SA_GROUP = "system:serviceaccounts";
/** Leeway on exp and nbf, and on deletion times of bound objects. */
export const SA_LEEWAY_SECONDS = 60;
const SA_ALGORITHMS = ["RS256", "RS384", "RS512", "ES256", "ES384", "ES512", "PS256", "PS384", "PS512"];

export function serviceAccountUsername(namespace: string, name: string): string {
  return `${SA_USER_PREFIX}${namespace}:${name}`;
}

export function serviceAccountGroups(namespace: string): string[] {
  return [SA_GROUP, `${SA_GROUP}:${namespace}`];
}

/** `{namespace, name}` of a service account user name, or undefined. */
export function parseServiceAccountUsername(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SA_USER_PREFIX)) return undefined;
  const parts = username.slice(SA_USER_PREFIX.length).split(":");
  if (parts.length !== 2 || parts[0] === "" || parts[1] === "") return undefined;
  return { namespace: parts[0], name: parts[1] };
}

export interface ObjectRef {
  name: string;
  uid: string;
}

interface PrivateClaims {
  namespace: string;
  serviceaccount: ObjectRef;
  pod?: ObjectRef;
  secret?: ObjectRef;
  node?: ObjectRef;
  warnafter?: number;
}

// ---------------------------------------------------------------------------
// Minting (TokenRequest)

export interface MintOptions {
  profile: PlatformProfile;
  signingKey: ServiceAccountSigningKey;
  /** The first `--service-account-issuer`. */
  issuer: string;
  serviceAccount: { namespace: string; name: string; uid: string };
  audiences: readonly string[];
  expirationSeconds: number;
  /** Upper bound on the lifetime (`--service-account-max-token-expiration`); 0 or absent: none. */
  maxExpirationSeconds?: number;
  /** At most one of pod and secret; node alone binds to a node, with a pod it records the pod's node. */
  pod?: ObjectRef;
  secret?: ObjectRef;
  node?: ObjectRef;
  now?: Date;
}

export interface MintedToken {
  token: string;
  /** RFC 3339, second precision (TokenRequest `status.expirationTimestamp`). */
  expirationTimestamp: string;
  jti: string;
}

export async function mintServiceAccountToken(o: MintOptions): Promise<MintedToken> {
  if (o.pod && o.secret) throw new Error("a token binds to a pod or a secret, not both");
  if (o.audiences.length === 0) throw new Error("a token needs at least one audience");
  const now = Math.floor((o.now ?? new Date()).getTime() / 1000);
  let lifetime = Math.floor(o.expirationSeconds);
  if (o.maxExpirationSeconds && lifetime > o.maxExpirationSeconds) lifetime = o.maxExpirationSeconds;
  const exp = now + lifetime;
  const jti = randomUUID();
  const sa = o.serviceAccount;
  const priv: PrivateClaims = { namespace: sa.namespace, serviceaccount: { name: sa.name, uid: sa.uid } };
  if (o.pod) priv.pod = { ...o.pod };
  if (o.secret) priv.secret = { ...o.secret };
  if (o.node) priv.node = { ...o.node };
  const token = await new SignJWT({ [o.profile.serviceAccount.privateClaim]: priv })
    .setProtectedHeader({ alg: o.signingKey.alg, kid: o.signingKey.kid })
    .setIssuer(o.issuer)
    .setSubject(serviceAccountUsername(sa.namespace, sa.name))
    .setAudience([...o.audiences])
    .setIssuedAt(now)
    .setNotBefore(now)
    .setExpirationTime(exp)
    .setJti(jti)
    .sign(o.signingKey.key);
  return { token, expirationTimestamp: new Date(exp * 1000).toISOString().replace(/\.\d{3}Z$/, "Z"), jti };
}

/** A legacy (secret-based, non-expiring) token, as the token controller used to write into secrets. */
export async function mintLegacyServiceAccountToken(
  profile: PlatformProfile,
  signingKey: ServiceAccountSigningKey,
  sa: { namespace: string; name: string; uid: string },
  secretName: string,
): Promise<string> {
  const p = `${profile.serviceAccount.privateClaim}/serviceaccount`;
  return new SignJWT({
    [`${p}/namespace`]: sa.namespace,
    [`${p}/secret.name`]: secretName,
    [`${p}/service-account.name`]: sa.name,
    [`${p}/service-account.uid`]: sa.uid,
  })
    .setProtectedHeader({ alg: signingKey.alg, kid: signingKey.kid })
    .setIssuer(profile.serviceAccount.legacyIssuer)
    .setSubject(serviceAccountUsername(sa.namespace, sa.name))
    .sign(signingKey.key);
}

// ---------------------------------------------------------------------------
// Verification

export interface ServiceAccountAuthOptions {
  profile: PlatformProfile;
  keys: readonly ServiceAccountPublicKey[];
  /** `--service-account-issuer` values; every one is accepted. */
  issuers: readonly string[];
  /** `--api-audiences`: the implicit audiences of a request. */
  apiAudiences: readonly string[];
  /** `--service-account-lookup`. */
  lookup: boolean;
  getObject?: ObjectGetter;
  /** Records legacy token use and refuses tokens of secrets marked invalid (with lookup). */
  legacyTokenUse?: LegacyTokenUse;
  now?: () => Date;
}

function ref(v: unknown): ObjectRef | undefined {
  if (!v || typeof v !== "object") return undefined;
  const r = v as Record<string, unknown>;
  return typeof r.name === "string" && typeof r.uid === "string" ? { name: r.name, uid: r.uid } : undefined;
}

function parsePrivate(v: unknown): PrivateClaims | undefined {
  if (!v || typeof v !== "object") return undefined;
  const p = v as Record<string, unknown>;
  const sa = ref(p.serviceaccount);
  if (typeof p.namespace !== "string" || p.namespace === "" || !sa || sa.name === "") return undefined;
  return { namespace: p.namespace, serviceaccount: sa, pod: ref(p.pod), secret: ref(p.secret), node: ref(p.node) };
}

function uidOf(obj: Record<string, unknown>): string | undefined {
  const m = obj.metadata as Record<string, unknown> | undefined;
  return typeof m?.uid === "string" ? m.uid : undefined;
}

export class ServiceAccountAuthenticator implements TokenAuthenticator {
  readonly name = "serviceaccount";
  private readonly now: () => Date;

  constructor(private readonly o: ServiceAccountAuthOptions) {
    this.now = o.now ?? (() => new Date());
  }

  /** The issuers whose tokens are this method's (the configured ones and the legacy one). */
  private owns(iss: unknown): boolean {
    return typeof iss === "string" && (this.o.issuers.includes(iss) || iss === this.o.profile.serviceAccount.legacyIssuer);
  }

  async authenticateToken(token: string, audiences: readonly string[]): Promise<AuthResult> {
    let unverified: JWTPayload;
    let kid: string | undefined;
    try {
      unverified = decodeJwt(token);
      kid = decodeProtectedHeader(token).kid;
    } catch {
      return NO_OPINION; // not a JWT: another method's
    }
    if (!this.owns(unverified.iss)) return NO_OPINION;
    const legacy = unverified.iss === this.o.profile.serviceAccount.legacyIssuer;
    const payload = await this.verify(token, kid, legacy);
    const wanted = audiences.length > 0 ? audiences : this.o.apiAudiences;
    if (legacy) return this.legacyUser(token, payload, [...wanted]);

    const aud = typeof payload.aud === "string" ? [payload.aud] : (payload.aud ?? []);
    const valid = intersectAudiences(wanted, aud);
    if (valid.length === 0) throw unauthorized(`token audiences ${JSON.stringify(aud)} is invalid for the target audiences ${JSON.stringify(wanted)}`);
    const priv = parsePrivate(payload[this.o.profile.serviceAccount.privateClaim]);
    if (!priv) throw unauthorized("service account token has invalid claims");
    if (payload.sub !== undefined && payload.sub !== serviceAccountUsername(priv.namespace, priv.serviceaccount.name)) {
      throw unauthorized("service account token has invalid claims");
    }
    if (this.o.lookup) await this.checkBound(priv);

    const extra: Record<string, string[]> = {};
    const names = this.o.profile.serviceAccount;
    if (priv.pod) {
      extra[names.extraPodName] = [priv.pod.name];
      extra[names.extraPodUid] = [priv.pod.uid];
    }
    if (priv.node) {
      extra[names.extraNodeName] = [priv.node.name];
      if (priv.node.uid) extra[names.extraNodeUid] = [priv.node.uid];
    }
    if (typeof payload.jti === "string" && payload.jti !== "") extra[names.extraCredentialId] = [`JTI=${payload.jti}`];
    const user: UserInfo = {
      username: serviceAccountUsername(priv.namespace, priv.serviceaccount.name),
      uid: priv.serviceaccount.uid,
      groups: serviceAccountGroups(priv.namespace),
    };
    if (Object.keys(extra).length > 0) user.extra = extra;
    return { user, audiences: valid };
  }

  private async verify(token: string, kid: string | undefined, legacy: boolean): Promise<JWTPayload> {
    const byKid = kid ? this.o.keys.filter((k) => k.kid === kid) : [];
    const candidates = byKid.length > 0 ? byKid : this.o.keys;
    for (const k of candidates) {
      try {
        const { payload } = await jwtVerify(token, k.key, {
          algorithms: SA_ALGORITHMS.filter((a) => k.algorithms.includes(a)),
          clockTolerance: SA_LEEWAY_SECONDS,
          currentDate: this.now(),
          requiredClaims: legacy ? [] : ["exp"],
        });
        return payload;
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code === "ERR_JWT_EXPIRED") throw unauthorized("service account token has expired");
        if (code === "ERR_JWT_CLAIM_VALIDATION_FAILED") throw unauthorized("service account token is not valid yet or lacks required claims");
        // wrong key or malformed: try the next key
      }
    }
    throw unauthorized("invalid bearer token");
  }

  private deletedLongAgo(obj: Record<string, unknown>): boolean {
    const ts = (obj.metadata as Record<string, unknown> | undefined)?.deletionTimestamp;
    if (typeof ts !== "string") return false;
    return Date.parse(ts) < this.now().getTime() - SA_LEEWAY_SECONDS * 1000;
  }

  private async checkBound(p: PrivateClaims): Promise<void> {
    const get = this.o.getObject;
    if (!get) throw unauthorized("service account token cannot be checked");
    const sa = await get("serviceaccounts", p.namespace, p.serviceaccount.name);
    if (!sa || this.deletedLongAgo(sa)) throw unauthorized(`service account ${p.namespace}/${p.serviceaccount.name} has been deleted`);
    if (uidOf(sa) !== p.serviceaccount.uid) throw unauthorized(`service account UID (${uidOf(sa) ?? ""}) does not match claim (${p.serviceaccount.uid})`);
    if (p.secret) {
      const s = await get("secrets", p.namespace, p.secret.name);
      if (!s || this.deletedLongAgo(s) || uidOf(s) !== p.secret.uid) throw unauthorized("service account token has been invalidated");
    }
    if (p.pod) {
      const pod = await get("pods", p.namespace, p.pod.name);
      if (!pod || this.deletedLongAgo(pod) || uidOf(pod) !== p.pod.uid) throw unauthorized("service account token has been invalidated");
    } else if (p.node) {
      const node = await get("nodes", undefined, p.node.name);
      if (!node || this.deletedLongAgo(node) || (p.node.uid && uidOf(node) !== p.node.uid)) throw unauthorized("service account token has been invalidated");
    }
  }

  private async legacyUser(token: string, payload: JWTPayload, audiences: string[]): Promise<AuthResult> {
    const p = `${this.o.profile.serviceAccount.privateClaim}/serviceaccount`;
    const ns = payload[`${p}/namespace`];
    const secretName = payload[`${p}/secret.name`];
    const name = payload[`${p}/service-account.name`];
    const uid = payload[`${p}/service-account.uid`];
    if (typeof ns !== "string" || typeof secretName !== "string" || typeof name !== "string" || typeof uid !== "string" || ns === "" || name === "") {
      throw unauthorized("service account token has invalid claims");
    }
    const user: UserInfo = { username: serviceAccountUsername(ns, name), uid, groups: serviceAccountGroups(ns) };
    if (this.o.lookup) {
      const get = this.o.getObject;
      if (!get) throw unauthorized("service account token cannot be checked");
      const sa = await get("serviceaccounts", ns, name);
      if (!sa || uidOf(sa) !== uid) throw unauthorized("service account token has been invalidated");
      const secret = await get("secrets", ns, secretName);
      if (!secret || (secret.metadata as Record<string, unknown> | undefined)?.deletionTimestamp) throw unauthorized("service account token has been invalidated");
      if (secretData(secret).token !== token) throw unauthorized("service account token has been invalidated");
      const listedByAccount = accountListsSecret(sa, secretName);
      const refused = this.o.legacyTokenUse?.use(secret, { name, listedByAccount });
      if (refused) throw refused;
      // The platform's audit annotation names the Secret; a client of an auto-generated token is warned.
      const annotationKey = `${this.o.profile.group("authentication")}/legacy-token-${listedByAccount ? "autogenerated" : "manual"}-secret`;
      return { user, audiences, auditAnnotations: { [annotationKey]: secretName }, ...(listedByAccount ? { warnings: [AUTO_GENERATED_TOKEN_WARNING] } : {}) };
    }
    return { user, audiences };
  }
}
