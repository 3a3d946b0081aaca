/**
 * Command-line flags of authentication (the run-options pattern): the flag table
 * `AUTHENTICATION_FLAG_SPECS` the server's command line is built from,
 * `authenticationOptionsFrom` completing an `AuthenticationOptions` record from the
 * parsed values, and `validateAuthenticationOptions` reporting the combinations the
 * server refuses to start with. List flags accept commas and repetition; array flags
 * (key files, issuers) only repetition.
 */
import { FlagError, parseKnownFlags, type FlagSpec, type ParsedFlags } from "../../../shared/cli/flags.ts";

export interface AuthenticationOptions {
  clientCaFile?: string;
  tokenAuthFile?: string;
  enableBootstrapTokenAuth: boolean;
  serviceAccountKeyFiles: string[];
  serviceAccountSigningKeyFile?: string;
  serviceAccountIssuers: string[];
  apiAudiences: string[];
  serviceAccountLookup: boolean;
  /** Seconds; 0 = no limit. */
  serviceAccountMaxTokenExpiration: number;
  /** Fallback verification key of service accounts. */
  tlsPrivateKeyFile?: string;
  oidc: {
    issuerUrl?: string;
    clientId?: string;
    usernameClaim?: string;
    usernamePrefix?: string;
    groupsClaim?: string;
    groupsPrefix?: string;
    requiredClaims: Record<string, string>;
    caFile?: string;
    signingAlgs: string[];
  };
  authenticationConfig?: string;
  webhook: {
    configFile?: string;
    /** Milliseconds. */
    cacheTtlMs: number;
    version: "v1" | "v1beta1";
  };
  requestHeader: {
    usernameHeaders: string[];
    uidHeaders: string[];
    groupHeaders: string[];
    extraHeadersPrefix: string[];
    clientCaFile?: string;
    allowedNames: string[];
  };
  /** Undefined when the flag is not given (then the default applies). */
  anonymousAuth?: boolean;
}

export function defaultAuthenticationOptions(): AuthenticationOptions {
  return {
    enableBootstrapTokenAuth: false,
    serviceAccountKeyFiles: [],
    serviceAccountIssuers: [],
    apiAudiences: [],
    serviceAccountLookup: true,
    serviceAccountMaxTokenExpiration: 0,
    oidc: { requiredClaims: {}, signingAlgs: [] },
    webhook: { cacheTtlMs: 2 * 60 * 1000, version: "v1beta1" },
    requestHeader: { usernameHeaders: [], uidHeaders: [], groupHeaders: [], extraHeadersPrefix: [], allowedNames: [] },
  };
}

/** The authentication flags, with the help and defaults of the platform's API server. */
export const AUTHENTICATION_FLAG_SPECS: Record<string, FlagSpec> = {
  "client-ca-file": { kind: "string", help: "If set, any request presenting a client certificate signed by one of the authorities in the client-ca-file is authenticated with an identity corresponding to the CommonName of the client certificate." },
  "token-auth-file": { kind: "string", help: "If set, the file that will be used to secure the secure port of the API server via token authentication." },
  "enable-bootstrap-token-auth": { kind: "boolean", default: false, help: "Enable to allow bootstrap token secrets (type bootstrap.<domain>/token) in the system namespace to be used for TLS bootstrapping authentication." },
  "service-account-key-file": { kind: "array", help: "File containing PEM-encoded x509 RSA or ECDSA private or public keys, used to verify ServiceAccount tokens. Repeatable." },
  "service-account-signing-key-file": { kind: "string", help: "Path to the file that contains the current private key of the service account token issuer." },
  "service-account-issuer": { kind: "array", help: "Identifier of the service account token issuer. Repeatable: the first one issues tokens, all are accepted." },
  "api-audiences": { kind: "list", help: "Identifiers of the API. The service account token authenticator will validate that tokens used against the API are bound to at least one of these audiences (default: the service account issuers)." },
  "service-account-lookup": { kind: "boolean", default: true, help: "If true, validate ServiceAccount tokens exist in storage as part of authentication." },
  "service-account-max-token-expiration": { kind: "duration", default: 0, help: "The maximum validity duration of a token created by the service account token issuer (0 means no limit)." },
  "tls-private-key-file": { kind: "string", help: "File containing the default x509 private key matching --tls-cert-file (also a service account verification key when no --service-account-key-file is given)." },
  "oidc-issuer-url": { kind: "string", help: "The URL of the OpenID issuer, only HTTPS scheme will be accepted. If set, it will be used to verify the OIDC JSON Web Token (JWT)." },
  "oidc-client-id": { kind: "string", help: "The client ID for the OpenID Connect client, must be set if oidc-issuer-url is set." },
  "oidc-username-claim": { kind: "string", default: "sub", help: "The OpenID claim to use as the user name." },
  "oidc-username-prefix": { kind: "string", help: "If provided, all usernames will be prefixed with this value ('-' disables prefixing; default: the issuer URL and '#' unless the claim is 'email')." },
  "oidc-groups-claim": { kind: "string", help: "If provided, the name of a custom OpenID Connect claim for specifying user groups." },
  "oidc-groups-prefix": { kind: "string", help: "If provided, all groups will be prefixed with this value to prevent conflicts with other authentication strategies." },
  "oidc-required-claim": { kind: "list", help: "A key=value pair that describes a required claim in the ID Token. Repeatable and comma-separated." },
  "oidc-ca-file": { kind: "string", help: "If set, the OpenID server's certificate will be verified by one of the authorities in the oidc-ca-file." },
  "oidc-signing-algs": { kind: "list", default: ["RS256"], help: "Comma-separated list of allowed JOSE asymmetric signing algorithms." },
  "authentication-config": { kind: "string", help: "File with Authentication Configuration to configure the JWT Token authenticator or the anonymous authenticator. Exclusive with the --oidc-* flags." },
  "authentication-token-webhook-config-file": { kind: "string", help: "File with webhook configuration for token authentication in kubeconfig format." },
  "authentication-token-webhook-cache-ttl": { kind: "duration", default: 2 * 60 * 1000, help: "The duration to cache responses from the webhook token authenticator." },
  "authentication-token-webhook-version": { kind: "string", default: "v1beta1", help: "The API version of the TokenReview to send to and expect from the webhook (v1 or v1beta1)." },
  "requestheader-username-headers": { kind: "list", help: "List of request headers to inspect for usernames. X-Remote-User is common." },
  "requestheader-uid-headers": { kind: "list", help: "List of request headers to inspect for UIDs. X-Remote-Uid is suggested." },
  "requestheader-group-headers": { kind: "list", help: "List of request headers to inspect for groups. X-Remote-Group is suggested." },
  "requestheader-extra-headers-prefix": { kind: "list", help: "List of request header prefixes to inspect. X-Remote-Extra- is suggested." },
  "requestheader-client-ca-file": { kind: "string", help: "Root certificate bundle to use to verify client certificates on incoming requests before trusting usernames in headers specified by --requestheader-username-headers." },
  "requestheader-allowed-names": { kind: "list", help: "List of client certificate common names to allow to provide usernames in headers specified by --requestheader-username-headers. If empty, any client certificate validated by the authorities in --requestheader-client-ca-file is allowed." },
  "anonymous-auth": { kind: "boolean", default: true, help: "Enables anonymous requests to the secure port of the API server (off by default when the only authorization mode is AlwaysAllow)." },
};

/** The authentication flags supported, without the leading dashes. */
export const AUTHENTICATION_FLAGS: readonly string[] = Object.keys(AUTHENTICATION_FLAG_SPECS);

/** Go duration text in milliseconds. */
export { parseGoDuration as parseDuration } from "../../../shared/cli/flags.ts";

/** Completes the options from parsed flag values: only flags given on the command line override the defaults. */
export function authenticationOptionsFrom({ values, changed }: ParsedFlags): AuthenticationOptions {
  const o = defaultAuthenticationOptions();
  const str = (name: string): string | undefined => (changed.has(name) ? String(values[name]) : undefined);
  const list = (name: string): string[] => (changed.has(name) ? [...((values[name] as string[] | undefined) ?? [])] : []);
  o.clientCaFile = str("client-ca-file");
  o.tokenAuthFile = str("token-auth-file");
  o.enableBootstrapTokenAuth = values["enable-bootstrap-token-auth"] === true;
  o.serviceAccountKeyFiles = list("service-account-key-file");
  o.serviceAccountSigningKeyFile = str("service-account-signing-key-file");
  o.serviceAccountIssuers = list("service-account-issuer");
  o.apiAudiences = list("api-audiences");
  o.serviceAccountLookup = values["service-account-lookup"] !== false;
  o.serviceAccountMaxTokenExpiration = Math.floor(Number(values["service-account-max-token-expiration"] ?? 0) / 1000);
  o.tlsPrivateKeyFile = str("tls-private-key-file");
  o.oidc.issuerUrl = str("oidc-issuer-url");
  o.oidc.clientId = str("oidc-client-id");
  o.oidc.usernameClaim = str("oidc-username-claim");
  o.oidc.usernamePrefix = str("oidc-username-prefix");
  o.oidc.groupsClaim = str("oidc-groups-claim");
  o.oidc.groupsPrefix = str("oidc-groups-prefix");
  for (const pair of list("oidc-required-claim")) {
    const i = pair.indexOf("=");
    if (i <= 0) throw new FlagError(`invalid value ${JSON.stringify(pair)} for --oidc-required-claim: expected key=value`);
    o.oidc.requiredClaims[pair.slice(0, i)] = pair.slice(i + 1);
  }
  o.oidc.caFile = str("oidc-ca-file");
  o.oidc.signingAlgs = list("oidc-signing-algs");
  o.authenticationConfig = str("authentication-config");
  o.webhook.configFile = str("authentication-token-webhook-config-file");
  o.webhook.cacheTtlMs = Number(values["authentication-token-webhook-cache-ttl"] ?? o.webhook.cacheTtlMs);
  const version = String(values["authentication-token-webhook-version"] ?? o.webhook.version);
  if (version !== "v1" && version !== "v1beta1") throw new FlagError(`invalid value ${JSON.stringify(version)} for --authentication-token-webhook-version: expected v1 or v1beta1`);
  o.webhook.version = version;
  o.requestHeader.usernameHeaders = list("requestheader-username-headers");
  o.requestHeader.uidHeaders = list("requestheader-uid-headers");
  o.requestHeader.groupHeaders = list("requestheader-group-headers");
  o.requestHeader.extraHeadersPrefix = list("requestheader-extra-headers-prefix");
  o.requestHeader.clientCaFile = str("requestheader-client-ca-file");
  o.requestHeader.allowedNames = list("requestheader-allowed-names");
  if (changed.has("anonymous-auth")) o.anonymousAuth = values["anonymous-auth"] === true;
  return o;
}

/** Parses the authentication flags out of a command line (flags of other components are skipped); throws on a bad value. */
export function parseAuthenticationOptions(argv: readonly string[]): AuthenticationOptions {
  return authenticationOptionsFrom(parseKnownFlags(argv, AUTHENTICATION_FLAG_SPECS));
}

function oidcFlagsUsed(o: AuthenticationOptions): string[] {
  const used: string[] = [];
  const x = o.oidc;
  if (x.issuerUrl !== undefined) used.push("--oidc-issuer-url");
  if (x.clientId !== undefined) used.push("--oidc-client-id");
  if (x.usernameClaim !== undefined) used.push("--oidc-username-claim");
  if (x.usernamePrefix !== undefined) used.push("--oidc-username-prefix");
  if (x.groupsClaim !== undefined) used.push("--oidc-groups-claim");
  if (x.groupsPrefix !== undefined) used.push("--oidc-groups-prefix");
  if (Object.keys(x.requiredClaims).length > 0) used.push("--oidc-required-claim");
  if (x.caFile !== undefined) used.push("--oidc-ca-file");
  if (x.signingAlgs.length > 0) used.push("--oidc-signing-algs");
  return used;
}

/** Start-up errors of a flag combination (empty when it is fine). */
export function validateAuthenticationOptions(o: AuthenticationOptions): string[] {
  const errs: string[] = [];
  const oidc = oidcFlagsUsed(o);
  if (o.authenticationConfig !== undefined && oidc.length > 0) {
    errs.push(`authentication-config file and oidc-* flags are mutually exclusive (${oidc.join(", ")} given)`);
  }
  if (o.authenticationConfig === undefined && oidc.length > 0) {
    if (!o.oidc.issuerUrl) errs.push("oidc-issuer-url is required when oidc-* flags are used");
    if (!o.oidc.clientId) errs.push("oidc-client-id is required when oidc-* flags are used");
    if (o.oidc.issuerUrl && !o.oidc.issuerUrl.startsWith("https://")) errs.push("oidc-issuer-url must use the https scheme");
    if (o.oidc.issuerUrl && o.serviceAccountIssuers.includes(o.oidc.issuerUrl)) errs.push("oidc-issuer-url must not be a service account issuer");
  }
  const rh = o.requestHeader;
  if (rh.clientCaFile !== undefined && rh.usernameHeaders.length === 0) errs.push("requestheader-username-headers is required with requestheader-client-ca-file");
  if (rh.clientCaFile === undefined && (rh.usernameHeaders.length > 0 || rh.allowedNames.length > 0)) errs.push("requestheader-client-ca-file is required with requestheader-* flags");
  if (o.serviceAccountKeyFiles.length > 0 || o.serviceAccountSigningKeyFile) {
    if (o.serviceAccountIssuers.length === 0) errs.push("service-account-issuer is required when service account keys are given");
  }
  const maxExp = o.serviceAccountMaxTokenExpiration;
  if (maxExp !== 0 && (maxExp < 3600 || maxExp > 2 ** 32)) errs.push("the service-account-max-token-expiration must be between 1 hour and 2^32 seconds");
  for (const iss of o.serviceAccountIssuers) {
    if (iss === "") errs.push("service-account-issuer must not be empty");
    else if (iss.includes(":")) {
      try {
        const u = new URL(iss);
        if (u.search || u.hash) errs.push(`service-account-issuer ${JSON.stringify(iss)} must not carry a query or fragment`);
      } catch {
        errs.push(`service-account-issuer ${JSON.stringify(iss)} is not a valid URL`);
      }
    }
  }
  return [...new Set(errs)];
}
