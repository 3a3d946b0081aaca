/**
 * One factory per authentication method, in the platform's order: authenticating
 * proxy (request headers), client certificates, then the bearer-token methods (static
 * token file, service accounts, bootstrap tokens, JWT from the authentication
 * configuration file or the `--oidc-*` flags, webhook). A factory returns undefined
 * when its flags do not enable it; file errors are start-up errors naming the flag.
 */
import { readFileSync } from "node:fs";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import { SUPPORTED_SIGNING_ALGORITHMS, type JWTAuthenticatorConfig } from "./authn-config.ts";
import { BootstrapTokenAuthenticator } from "./bootstrap-token.ts";
import { parseCertificateBundle } from "./cert-verify.ts";
import { audienceAgnostic } from "./chain.ts";
import { ClientCertAuthenticator } from "./client-cert.ts";
import { AuthenticationConfigController, buildFromConfig } from "./config-controller.ts";
import type { AuthenticatorDeps } from "./build.ts";
import type { AuthenticationOptions } from "./options.ts";
import { RequestHeaderAuthenticator } from "./request-header.ts";
import { parsePublicKeys, parseSigningKey, type ServiceAccountPublicKey, type ServiceAccountSigningKey } from "./sa-keys.ts";
import { legacyTokenMetrics, LegacyTokenUse } from "./legacy-token-use.ts";
import { ServiceAccountAuthenticator } from "./service-account.ts";
import { TokenFileAuthenticator } from "./token-file.ts";
import type { Authenticator, TokenAuthenticator } from "./types.ts";
import { loadWebhookClientConfig, TokenWebhookAuthenticator } from "./webhook.ts";

export interface MethodContext {
  options: AuthenticationOptions;
  deps: AuthenticatorDeps;
  profile: PlatformProfile;
  apiAudiences: string[];
  /** The service account keys (read once: the minter uses the signing key too). */
  serviceAccountKeys: { signingKey?: ServiceAccountSigningKey; publicKeys: ServiceAccountPublicKey[] };
  now: () => Date;
}

/** An enabled method: it authenticates whole requests or bearer tokens. */
export interface Method {
  name: string;
  request?: Authenticator;
  token?: TokenAuthenticator;
  /** The authentication configuration file's controller (its anonymous settings apply too). */
  controller?: AuthenticationConfigController;
}

export type MethodFactory = (ctx: MethodContext) => Method | undefined | Promise<Method | undefined>;

export function readFlagFile(path: string, flag: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    throw new Error(`${flag} ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { cause: err });
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
    cfg.issuer.certificateAuthority = readFlagFile(o.caFile, "oidc-ca-file");
    parseCertificateBundle(cfg.issuer.certificateAuthority, "oidc-ca-file");
  }
  return cfg;
}

/** The service account signing key and every verification key the flags give. */
export function serviceAccountKeys(o: AuthenticationOptions): { signingKey?: ServiceAccountSigningKey; publicKeys: ServiceAccountPublicKey[] } {
  let signingKey: ServiceAccountSigningKey | undefined;
  if (o.serviceAccountSigningKeyFile) signingKey = parseSigningKey(readFlagFile(o.serviceAccountSigningKeyFile, "service-account-signing-key-file"), o.serviceAccountSigningKeyFile);
  const publicKeys: ServiceAccountPublicKey[] = [];
  for (const f of o.serviceAccountKeyFiles) publicKeys.push(...parsePublicKeys(readFlagFile(f, "service-account-key-file"), f));
  if (publicKeys.length === 0 && o.tlsPrivateKeyFile && o.serviceAccountIssuers.length > 0) publicKeys.push(...parsePublicKeys(readFlagFile(o.tlsPrivateKeyFile, "tls-private-key-file"), o.tlsPrivateKeyFile));
  if (signingKey) {
    const sk = signingKey;
    if (!publicKeys.some((k) => k.kid === sk.kid)) publicKeys.push(...parsePublicKeys(readFlagFile(o.serviceAccountSigningKeyFile as string, "service-account-signing-key-file")));
  }
  return { signingKey, publicKeys };
}

const requestHeader: MethodFactory = ({ options: o, now }) => {
  const rh = o.requestHeader;
  if (!rh.clientCaFile) return undefined;
  const request = new RequestHeaderAuthenticator(
    {
      clientCaPem: readFlagFile(rh.clientCaFile, "requestheader-client-ca-file"),
      allowedNames: rh.allowedNames,
      usernameHeaders: rh.usernameHeaders,
      uidHeaders: rh.uidHeaders,
      groupHeaders: rh.groupHeaders,
      extraHeaderPrefixes: rh.extraHeadersPrefix,
    },
    now,
  );
  return { name: "requestheader", request };
};

const clientCertificates: MethodFactory = ({ options: o, now }) =>
  o.clientCaFile ? { name: "x509", request: new ClientCertAuthenticator(readFlagFile(o.clientCaFile, "client-ca-file"), now) } : undefined;

const tokenFile: MethodFactory = ({ options: o, apiAudiences }) =>
  o.tokenAuthFile ? { name: "token-file", token: audienceAgnostic(apiAudiences, TokenFileAuthenticator.fromFile(o.tokenAuthFile)) } : undefined;

const serviceAccounts: MethodFactory = ({ options: o, deps, profile, apiAudiences, serviceAccountKeys: sa, now }) => {
  const keys = sa.publicKeys;
  if (keys.length === 0 || o.serviceAccountIssuers.length === 0) return undefined;
  return {
    name: "serviceaccount",
    token: new ServiceAccountAuthenticator({
      profile,
      keys,
      issuers: o.serviceAccountIssuers,
      apiAudiences,
      lookup: o.serviceAccountLookup,
      getObject: deps.getObject,
      legacyTokenUse: new LegacyTokenUse({ profile, write: deps.writeSecretLabels, now, log: deps.log, metrics: deps.metrics && legacyTokenMetrics(deps.metrics) }),
      now,
    }),
  };
};

const bootstrapTokens: MethodFactory = ({ options: o, deps, profile, apiAudiences, now }) => {
  if (!o.enableBootstrapTokenAuth) return undefined;
  if (!deps.getObject) throw new Error("bootstrap token authentication needs an object reader");
  return { name: "bootstrap", token: audienceAgnostic(apiAudiences, new BootstrapTokenAuthenticator(profile, deps.getObject, now)) };
};

const jwt: MethodFactory = async ({ options: o, deps, profile, apiAudiences, now }) => {
  if (o.authenticationConfig) {
    const controller = new AuthenticationConfigController({
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
    // The current file's authenticators, looked up per token so that a reload takes effect at once.
    return { name: "jwt", controller, token: audienceAgnostic(apiAudiences, { name: "jwt", authenticateToken: (t, a) => controller.current.tokens.authenticateToken(t, a) }) };
  }
  if (o.oidc.issuerUrl) {
    const active = buildFromConfig({ jwt: [oidcFlagsToConfig(o.oidc)] }, { keySource: deps.jwtKeySource, now });
    return { name: "oidc", token: audienceAgnostic(apiAudiences, active.tokens) };
  }
  return undefined;
};

const webhook: MethodFactory = ({ options: o, profile, apiAudiences }) =>
  o.webhook.configFile
    ? {
        name: "webhook",
        token: new TokenWebhookAuthenticator({
          profile,
          client: loadWebhookClientConfig(o.webhook.configFile),
          version: o.webhook.version,
          cacheTtlMs: o.webhook.cacheTtlMs,
          apiAudiences,
        }),
      }
    : undefined;

/** Every method, in the order the chain tries them (anonymous comes last, outside the chain). */
export const AUTHENTICATION_METHODS: readonly MethodFactory[] = [requestHeader, clientCertificates, tokenFile, serviceAccounts, bootstrapTokens, jwt, webhook];
