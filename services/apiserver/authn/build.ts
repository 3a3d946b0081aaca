/**
 * Assembles the enabled methods from the parsed flags, in the platform's
 * order: authenticating proxy, client certificates, bearer tokens (static
 * file, service accounts, bootstrap tokens, JWT/OIDC, webhook), then
 * anonymous. Returns the `authenticate` function of a replica, the
 * impersonation step, the token chain (for TokenReview), the review handlers
 * and, when a signing key is configured, the service account token minter.
 */
import { readFileSync } from "node:fs";
import type { LogFn } from "../../../shared/observability/logger.ts";
import type { IncomingMessage } from "node:http";
import { isStatusError, unauthorized } from "../../../shared/api/status.ts";
import type { MetricsRegistry } from "../../../shared/observability/metrics.ts";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import { anonymousFor, type AnonymousPolicy } from "./anonymous.ts";
import { SUPPORTED_SIGNING_ALGORITHMS, type JWTAuthenticatorConfig } from "./authn-config.ts";
import { BootstrapTokenAuthenticator } from "./bootstrap-token.ts";
import { parseCertificateBundle } from "./cert-verify.ts";
import { audienceAgnostic, bearerAuthenticator, tokenWithAuthenticatedGroup, unionAuthenticator, unionTokenAuthenticator, withAuthenticatedGroup } from "./chain.ts";
import { ClientCertAuthenticator, peerCertificatesOf } from "./client-cert.ts";
import { AuthenticationConfigController, buildFromConfig } from "./config-controller.ts";
import { RequestHeaders } from "./headers.ts";
import { impersonate, type ImpersonationAuthorize } from "./impersonation.ts";
import type { KeySource } from "./jwt-authenticator.ts";
import { validateAuthenticationOptions, type AuthenticationOptions } from "./options.ts";
import { RequestHeaderAuthenticator } from "./request-header.ts";
import { selfSubjectReviewHandler, tokenReviewHandler, type ReviewHandler } from "./reviews.ts";
import { parsePublicKeys, parseSigningKey, type ServiceAccountPublicKey, type ServiceAccountSigningKey } from "./sa-keys.ts";
import { mintServiceAccountToken, ServiceAccountAuthenticator, type MintedToken, type MintOptions } from "./service-account.ts";
import { TokenFileAuthenticator } from "./token-file.ts";
import { isAuthenticated, type Authenticator, type AuthRequest, type ObjectGetter, type TokenAuthenticator, type UserInfo } from "./types.ts";
import { loadWebhookClientConfig, TokenWebhookAuthenticator } from "./webhook.ts";

export interface AuthenticatorDeps {
  profile: PlatformProfile;
  /** Reads secrets, service accounts, pods and nodes (bootstrap tokens, service account lookup). */
  getObject?: ObjectGetter;
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
  authenticate(req: Request, incoming: IncomingMessage | undefined): Promise<UserInfo>;
  /** The chain on an already built request context (same outcome as `authenticate`). */
  authenticateRequest(ctx: AuthRequest): Promise<UserInfo>;
  /** The impersonation step: the identity to act as (400/403 on a bad or refused request). */
  impersonation(user: UserInfo, req: Request, incoming: IncomingMessage | undefined, authorize: ImpersonationAuthorize): Promise<UserInfo>;
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

function read(path: string, what: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    throw new Error(`${what} ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { cause: err });
  }
}

/** The JWT authenticator that the `--oidc-*` flags describe. */
export function oidcFlagsToConfig(o: AuthenticationOptions["oidc"]): JWTAuthenticatorConfig {
  const issuer = o.issuerUrl ?? "";
  const claim = o.usernameClaim ?? "sub";
  const prefix = o.usernamePrefix === undefined ? (claim === "email" ? "" : `${issuer}#`) : o.usernamePrefix === "-" ? "" : o.usernamePrefix;
  const algs = o.signingAlgs.length > 0 ? o.signingAlgs : ["RS256"];
  for (const a of algs) {
    if (!(SUPPORTED_SIGNING_ALGORITHMS as readonly string[]).includes(a)) throw new Error(`oidc-signing-algs: unsupported algorithm ${JSON.stringify(a)}`);
  }
  const cfg: JWTAuthenticatorConfig = {
    issuer: { url: issuer, audiences: [o.clientId ?? ""] },
    claimMappings: { username: { claim, prefix } },
    claimValidationRules: Object.entries(o.requiredClaims).map(([c, v]) => ({ claim: c, requiredValue: v })),
    signingAlgorithms: algs,
  };
  if (o.groupsClaim) cfg.claimMappings.groups = { claim: o.groupsClaim, prefix: o.groupsPrefix ?? "" };
  if (o.caFile) {
    cfg.issuer.certificateAuthority = read(o.caFile, "oidc-ca-file");
    parseCertificateBundle(cfg.issuer.certificateAuthority, "oidc-ca-file");
  }
  return cfg;
}

export async function buildAuthenticator(o: AuthenticationOptions, deps: AuthenticatorDeps): Promise<BuiltAuthentication> {
  const problems = validateAuthenticationOptions(o);
  if (problems.length > 0) throw new Error(`invalid authentication flags: ${problems.join("; ")}`);
  const profile = deps.profile;
  const now = deps.now ?? (() => new Date());
  const apiAudiences = o.apiAudiences.length > 0 ? [...o.apiAudiences] : [...o.serviceAccountIssuers];
  const requestMethods: Authenticator[] = [];
  const tokenMethods: TokenAuthenticator[] = [];
  const methods: string[] = [];

  if (o.requestHeader.clientCaFile) {
    const rh = o.requestHeader;
    requestMethods.push(
      new RequestHeaderAuthenticator(
        {
          clientCaPem: read(rh.clientCaFile as string, "requestheader-client-ca-file"),
          allowedNames: rh.allowedNames,
          usernameHeaders: rh.usernameHeaders,
          uidHeaders: rh.uidHeaders,
          groupHeaders: rh.groupHeaders,
          extraHeaderPrefixes: rh.extraHeadersPrefix,
        },
        now,
      ),
    );
    methods.push("requestheader");
  }
  if (o.clientCaFile) {
    requestMethods.push(new ClientCertAuthenticator(read(o.clientCaFile, "client-ca-file"), now));
    methods.push("x509");
  }

  if (o.tokenAuthFile) {
    tokenMethods.push(audienceAgnostic(apiAudiences, TokenFileAuthenticator.fromFile(o.tokenAuthFile)));
    methods.push("token-file");
  }

  let signingKey: ServiceAccountSigningKey | undefined;
  if (o.serviceAccountSigningKeyFile) signingKey = parseSigningKey(read(o.serviceAccountSigningKeyFile, "service-account-signing-key-file"), o.serviceAccountSigningKeyFile);
  const saKeys: ServiceAccountPublicKey[] = [];
  for (const f of o.serviceAccountKeyFiles) saKeys.push(...parsePublicKeys(read(f, "service-account-key-file"), f));
  if (saKeys.length === 0 && o.tlsPrivateKeyFile && o.serviceAccountIssuers.length > 0) saKeys.push(...parsePublicKeys(read(o.tlsPrivateKeyFile, "tls-private-key-file"), o.tlsPrivateKeyFile));
  if (signingKey) {
    const sk = signingKey;
    if (!saKeys.some((k) => k.kid === sk.kid)) saKeys.push(...parsePublicKeys(read(o.serviceAccountSigningKeyFile as string, "service-account-signing-key-file")));
  }
  if (saKeys.length > 0 && o.serviceAccountIssuers.length > 0) {
    tokenMethods.push(
      new ServiceAccountAuthenticator({ profile, keys: saKeys, issuers: o.serviceAccountIssuers, apiAudiences, lookup: o.serviceAccountLookup, getObject: deps.getObject, now }),
    );
    methods.push("serviceaccount");
  }

  if (o.enableBootstrapTokenAuth) {
    if (!deps.getObject) throw new Error("bootstrap token authentication needs an object reader");
    tokenMethods.push(audienceAgnostic(apiAudiences, new BootstrapTokenAuthenticator(profile, deps.getObject, now)));
    methods.push("bootstrap");
  }

  let controller: AuthenticationConfigController | undefined;
  if (o.authenticationConfig) {
    controller = new AuthenticationConfigController({
      path: o.authenticationConfig,
      profile,
      serviceAccountIssuers: o.serviceAccountIssuers,
      anonymousFlagSet: o.anonymousAuth !== undefined,
      intervalMs: deps.configReloadIntervalMs,
      metrics: deps.metrics,
      apiserverId: deps.apiserverId,
      log: deps.log,
      keySource: deps.jwtKeySource,
      now,
    });
    await controller.start();
    const c = controller;
    // The current file's authenticators, looked up per token so that a reload takes effect at once.
    tokenMethods.push(audienceAgnostic(apiAudiences, { name: "jwt", authenticateToken: (t, a) => c.current.tokens.authenticateToken(t, a) }));
    methods.push("jwt");
  } else if (o.oidc.issuerUrl) {
    const cfg = oidcFlagsToConfig(o.oidc);
    const active = buildFromConfig({ jwt: [cfg] }, { keySource: deps.jwtKeySource, now });
    tokenMethods.push(audienceAgnostic(apiAudiences, active.tokens));
    methods.push("oidc");
  }

  if (o.webhook.configFile) {
    tokenMethods.push(
      new TokenWebhookAuthenticator({
        profile,
        client: loadWebhookClientConfig(o.webhook.configFile),
        version: o.webhook.version,
        cacheTtlMs: o.webhook.cacheTtlMs,
        apiAudiences,
      }),
    );
    methods.push("webhook");
  }

  const tokens = tokenWithAuthenticatedGroup(unionTokenAuthenticator("tokens", tokenMethods));
  if (tokenMethods.length > 0) requestMethods.push(bearerAuthenticator(tokens));
  const chain = withAuthenticatedGroup(unionAuthenticator("authentication", requestMethods));

  const anonymousPolicy = (): AnonymousPolicy => {
    const fileAnon = controller?.current.anonymous;
    if (fileAnon) return { enabled: fileAnon.enabled, paths: fileAnon.conditions && fileAnon.conditions.length > 0 ? fileAnon.conditions.map((c) => c.path) : undefined };
    return { enabled: o.anonymousAuth ?? !deps.authorizationAlwaysAllow };
  };

  const authenticateRequest = async (ctx: AuthRequest): Promise<UserInfo> => {
    let r;
    try {
      r = await chain.authenticate(ctx);
    } catch (err) {
      const e = isStatusError(err) ? err : unauthorized();
      deps.log?.("info", "authentication failed", { path: ctx.path, reason: e.message });
      throw unauthorized();
    }
    if (isAuthenticated(r)) return r.user;
    return anonymousFor(anonymousPolicy(), ctx.path);
  };

  return {
    authenticateRequest,
    authenticate(req, incoming) {
      return authenticateRequest({ headers: RequestHeaders.from(req, incoming), peerCertificates: peerCertificatesOf(incoming), path: new URL(req.url).pathname });
    },
    impersonation(user, req, incoming, authorize) {
      return impersonate(user, RequestHeaders.from(req, incoming), authorize, profile);
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
