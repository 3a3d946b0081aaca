/**
 * Assembles the enabled methods from the parsed flags (one factory each, in
 * the platform's order: methods.ts), then anonymous. Returns the `authenticate` function of a replica, the
 * impersonation step, the token chain (for TokenReview), the review handlers
 * and, when a signing key is configured, the service account token minter.
 */
import type { LogFn } from "../../../shared/observability/logger.ts";
import type { IncomingMessage } from "node:http";
import { isStatusError, unauthorized } from "../../../shared/api/status.ts";
import type { MetricsRegistry } from "../../../shared/observability/metrics.ts";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import { anonymousFor, type AnonymousPolicy } from "./anonymous.ts";
import { bearerAuthenticator, tokenWithAuthenticatedGroup, unionAuthenticator, unionTokenAuthenticator, withAuthenticatedGroup } from "./chain.ts";
import { peerCertificatesOf } from "./client-cert.ts";
import type { AuthenticationConfigController } from "./config-controller.ts";
import { RequestHeaders } from "./headers.ts";
import { hasImpersonationHeaders, impersonate, type ImpersonationAuthorize } from "./impersonation.ts";
import type { KeySource } from "./jwt-authenticator.ts";
import type { SecretLabelWriter } from "./legacy-token-use.ts";
import { AUTHENTICATION_METHODS, serviceAccountKeys, type Method } from "./methods.ts";
import { validateAuthenticationOptions, type AuthenticationOptions } from "./options.ts";
import { selfSubjectReviewHandler, tokenReviewHandler, type ReviewHandler } from "./reviews.ts";
import type { ServiceAccountSigningKey } from "./sa-keys.ts";
import { mintServiceAccountToken, type MintedToken, type MintOptions } from "./service-account.ts";
import { failureAuditAnnotations, isAuthenticated, userWithNotes, withFailureAuditAnnotations, type AuthRequest, type AuthResult, type ObjectGetter, type TokenAuthenticator, type UserInfo } from "./types.ts";

export interface AuthenticatorDeps {
  profile: PlatformProfile;
  /** Reads secrets, service accounts, pods and nodes (bootstrap tokens, service account lookup). */
  getObject?: ObjectGetter;
  /** Writes the last-used label of legacy service account token secrets (absent: not tracked). */
  writeSecretLabels?: SecretLabelWriter;
  metrics?: MetricsRegistry;
  /** Identity of this replica (hashed into the reload metric's label). */
  apiserverId?: string;
  log?: LogFn;
  /** The only authorization mode is AlwaysAllow: anonymous access is then off by default. */
  authorizationAlwaysAllow?: boolean;
  /** Poll period of the authentication configuration file (default one minute). */
  configReloadIntervalMs?: number;
  /** Key sources of JWT issuers (tests); default: OIDC discovery over HTTPS. */
  jwtKeySource?: (issuer: string) => KeySource | undefined;
  now?: () => Date;
}

export interface ServiceAccountTokens {
  /** The first `--service-account-issuer`: the `iss` of minted tokens. */
  issuer: string;
  signingKey: ServiceAccountSigningKey;
  maxExpirationSeconds: number;
  /** Mints a token (TokenRequest); issuer, key and limit are filled in. */
  mint(o: Omit<MintOptions, "profile" | "signingKey" | "issuer" | "maxExpirationSeconds">): Promise<MintedToken>;
}

export interface BuiltAuthentication {
  /** For `startReplica({ authenticate })`: the user, the anonymous user, or a thrown 401. */
  /** `url`: the request's parsed URL when the caller has it (else parsed here). */
  authenticate(req: Request, incoming: IncomingMessage | undefined, url?: URL): UserInfo | Promise<UserInfo>;
  /** The chain on an already built request context (same outcome as `authenticate`). Both answer synchronously when every method asked does. */
  authenticateRequest(ctx: AuthRequest): UserInfo | Promise<UserInfo>;
  /**
   * The impersonation step: the identity to act as (400/403 on a bad or refused request);
   * `user` itself, synchronously, when the request asks for no impersonation.
   */
  impersonation(user: UserInfo, req: Request, incoming: IncomingMessage | undefined, authorize: ImpersonationAuthorize): UserInfo | Promise<UserInfo>;
  /** Every bearer-token method, users carrying `system:authenticated` (TokenReview). */
  tokenAuthenticator: TokenAuthenticator;
  apiAudiences: string[];
  serviceAccountTokens?: ServiceAccountTokens;
  reviews: { tokenReview: ReviewHandler; selfSubjectReview: ReviewHandler };
  configController?: AuthenticationConfigController;
  /** Names of the enabled methods, in order. */
  methods: string[];
  close(): void;
}

export { oidcFlagsToConfig } from "./methods.ts";

export async function buildAuthenticator(o: AuthenticationOptions, deps: AuthenticatorDeps): Promise<BuiltAuthentication> {
  const problems = validateAuthenticationOptions(o);
  if (problems.length > 0) throw new Error(`invalid authentication flags: ${problems.join("; ")}`);
  const profile = deps.profile;
  const now = deps.now ?? (() => new Date());
  const apiAudiences = o.apiAudiences.length > 0 ? [...o.apiAudiences] : [...o.serviceAccountIssuers];
  const keys = serviceAccountKeys(o);
  const signingKey = keys.signingKey;
  const enabled: Method[] = [];
  try {
    for (const factory of AUTHENTICATION_METHODS) {
      const m = await factory({ options: o, deps, profile, apiAudiences, serviceAccountKeys: keys, now });
      if (m) enabled.push(m);
    }
  } catch (err) {
    for (const m of enabled) m.controller?.stop();
    throw err;
  }
  const requestMethods = enabled.flatMap((m) => (m.request ? [m.request] : []));
  const tokenMethods = enabled.flatMap((m) => (m.token ? [m.token] : []));
  const methods = enabled.map((m) => m.name);
  const controller = enabled.find((m) => m.controller)?.controller;

  const tokens = tokenWithAuthenticatedGroup(unionTokenAuthenticator("tokens", tokenMethods));
  if (tokenMethods.length > 0) requestMethods.push(bearerAuthenticator(tokens));
  const chain = withAuthenticatedGroup(unionAuthenticator("authentication", requestMethods));

  const anonymousPolicy = (): AnonymousPolicy => {
    const fileAnon = controller?.current.anonymous;
    if (fileAnon) return { enabled: fileAnon.enabled, paths: fileAnon.conditions && fileAnon.conditions.length > 0 ? fileAnon.conditions.map((c) => c.path) : undefined };
    return { enabled: o.anonymousAuth ?? !deps.authorizationAlwaysAllow };
  };

  /** The 401 a refused authentication answers (logged; the refusing method's audit annotations attached). */
  const refusal = (ctx: AuthRequest, err: unknown): Error => {
    const e = isStatusError(err) ? err : unauthorized();
    deps.log?.("info", "authentication failed", { path: ctx.path, reason: e.message });
    return withFailureAuditAnnotations(unauthorized(), failureAuditAnnotations(err));
  };
  const userOf = (ctx: AuthRequest, r: AuthResult): UserInfo => (isAuthenticated(r) ? userWithNotes(r) : anonymousFor(anonymousPolicy(), ctx.path));
  const authenticateRequest = (ctx: AuthRequest): UserInfo | Promise<UserInfo> => {
    let r: AuthResult | Promise<AuthResult>;
    try {
      r = chain.authenticate(ctx);
    } catch (err) {
      throw refusal(ctx, err);
    }
    if (!(r instanceof Promise)) return userOf(ctx, r);
    return r.then(
      (v) => userOf(ctx, v),
      (err: unknown) => {
        throw refusal(ctx, err);
      },
    );
  };

  return {
    authenticateRequest,
    authenticate(req, incoming, url) {
      return authenticateRequest({ headers: RequestHeaders.from(req, incoming), peerCertificates: peerCertificatesOf(incoming), path: (url ?? new URL(req.url)).pathname });
    },
    impersonation(user, req, incoming, authorize) {
      const headers = RequestHeaders.from(req, incoming);
      return hasImpersonationHeaders(headers) ? impersonate(user, headers, authorize, profile) : user;
    },
    tokenAuthenticator: tokens,
    apiAudiences,
    serviceAccountTokens: signingKey
      ? {
          issuer: o.serviceAccountIssuers[0],
          signingKey,
          maxExpirationSeconds: o.serviceAccountMaxTokenExpiration,
          mint: (m) => mintServiceAccountToken({ ...m, profile, signingKey: signingKey as ServiceAccountSigningKey, issuer: o.serviceAccountIssuers[0], maxExpirationSeconds: o.serviceAccountMaxTokenExpiration }),
        }
      : undefined,
    reviews: { tokenReview: tokenReviewHandler({ profile, tokens, apiAudiences }), selfSubjectReview: selfSubjectReviewHandler(profile) },
    configController: controller,
    methods,
    close() {
      controller?.stop();
    },
  };
}

/** An `ObjectGetter` over a replica's catalog (looked up lazily: the catalog exists once the replica has started). */
export function catalogObjectGetter(catalog: () => { lookup(group: string, version: string, resource: string): { registry: { get(ns: string | undefined, name: string): Promise<Record<string, unknown>> } } | undefined } | undefined): ObjectGetter {
  return async (resource, namespace, name) => {
    const entry = catalog()?.lookup("", "v1", resource);
    if (!entry) return undefined;
    try {
      return await entry.registry.get(namespace, name);
    } catch (err) {
      if (isStatusError(err, "NotFound")) return undefined;
      throw err;
    }
  };
}
