/**
 * Command-line flags of authentication, parsed from argv into an
 * `AuthenticationOptions` record. `--flag=value` and `--flag value` are both
 * accepted; boolean flags also as bare `--flag`. List flags accept commas and
 * repetition; array flags (key files, issuers) only repetition. Flags of other
 * components are ignored. `validateAuthenticationOptions` reports the
 * combinations the server refuses to start with.
 */
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

const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, "µs": 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A Go duration (`2m`, `1h30m`, `500ms`, `0`) in milliseconds. */
export function parseDuration(text: string): number {
  const t = text.trim();
  if (t === "0") return 0;
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let pos = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(t)) !== null) {
    total += Number(m[1]) * UNITS[m[2]];
    pos = re.lastIndex;
  }
  if (pos !== t.length || t === "") throw new Error(`invalid duration ${JSON.stringify(text)}`);
  return total;
}

function parseBool(flag: string, v: string): boolean {
  if (/^(true|1|t)$/i.test(v)) return true;
  if (/^(false|0|f)$/i.test(v)) return false;
  throw new Error(`invalid value ${JSON.stringify(v)} for ${flag}: expected a boolean`);
}

function list(v: string): string[] {
  return v.split(",").map((s) => s.trim()).filter((s) => s !== "");
}

type Kind = "string" | "bool" | "list" | "array" | "map";
type Setter = (o: AuthenticationOptions, v: string, flag: string) => void;

const FLAGS: Record<string, { kind: Kind; set: Setter }> = {
  "client-ca-file": { kind: "string", set: (o, v) => (o.clientCaFile = v) },
  "token-auth-file": { kind: "string", set: (o, v) => (o.tokenAuthFile = v) },
  "enable-bootstrap-token-auth": { kind: "bool", set: (o, v, f) => (o.enableBootstrapTokenAuth = parseBool(f, v)) },
  "service-account-key-file": { kind: "array", set: (o, v) => o.serviceAccountKeyFiles.push(v) },
  "service-account-signing-key-file": { kind: "string", set: (o, v) => (o.serviceAccountSigningKeyFile = v) },
  "service-account-issuer": { kind: "array", set: (o, v) => o.serviceAccountIssuers.push(v) },
  "api-audiences": { kind: "list", set: (o, v) => o.apiAudiences.push(...list(v)) },
  "service-account-lookup": { kind: "bool", set: (o, v, f) => (o.serviceAccountLookup = parseBool(f, v)) },
  "service-account-max-token-expiration": { kind: "string", set: (o, v) => (o.serviceAccountMaxTokenExpiration = Math.floor(parseDuration(v) / 1000)) },
  "tls-private-key-file": { kind: "string", set: (o, v) => (o.tlsPrivateKeyFile = v) },
  "oidc-issuer-url": { kind: "string", set: (o, v) => (o.oidc.issuerUrl = v) },
  "oidc-client-id": { kind: "string", set: (o, v) => (o.oidc.clientId = v) },
  "oidc-username-claim": { kind: "string", set: (o, v) => (o.oidc.usernameClaim = v) },
  "oidc-username-prefix": { kind: "string", set: (o, v) => (o.oidc.usernamePrefix = v) },
  "oidc-groups-claim": { kind: "string", set: (o, v) => (o.oidc.groupsClaim = v) },
  "oidc-groups-prefix": { kind: "string", set: (o, v) => (o.oidc.groupsPrefix = v) },
  "oidc-required-claim": {
    kind: "map",
    set: (o, v, f) => {
      for (const pair of list(v)) {
        const i = pair.indexOf("=");
        if (i <= 0) throw new Error(`invalid value ${JSON.stringify(pair)} for ${f}: expected key=value`);
        o.oidc.requiredClaims[pair.slice(0, i)] = pair.slice(i + 1);
      }
    },
  },
  "oidc-ca-file": { kind: "string", set: (o, v) => (o.oidc.caFile = v) },
  "oidc-signing-algs": { kind: "list", set: (o, v) => o.oidc.signingAlgs.push(...list(v)) },
  "authentication-config": { kind: "string", set: (o, v) => (o.authenticationConfig = v) },
  "authentication-token-webhook-config-file": { kind: "string", set: (o, v) => (o.webhook.configFile = v) },
  "authentication-token-webhook-cache-ttl": { kind: "string", set: (o, v) => (o.webhook.cacheTtlMs = parseDuration(v)) },
  "authentication-token-webhook-version": {
    kind: "string",
    set: (o, v, f) => {
      if (v !== "v1" && v !== "v1beta1") throw new Error(`invalid value ${JSON.stringify(v)} for ${f}: expected v1 or v1beta1`);
      o.webhook.version = v;
    },
  },
  "requestheader-username-headers": { kind: "list", set: (o, v) => o.requestHeader.usernameHeaders.push(...list(v)) },
  "requestheader-uid-headers": { kind: "list", set: (o, v) => o.requestHeader.uidHeaders.push(...list(v)) },
  "requestheader-group-headers": { kind: "list", set: (o, v) => o.requestHeader.groupHeaders.push(...list(v)) },
  "requestheader-extra-headers-prefix": { kind: "list", set: (o, v) => o.requestHeader.extraHeadersPrefix.push(...list(v)) },
  "requestheader-client-ca-file": { kind: "string", set: (o, v) => (o.requestHeader.clientCaFile = v) },
  "requestheader-allowed-names": { kind: "list", set: (o, v) => o.requestHeader.allowedNames.push(...list(v)) },
  "anonymous-auth": { kind: "bool", set: (o, v, f) => (o.anonymousAuth = parseBool(f, v)) },
};

/** The authentication flags supported, without the leading dashes. */
export const AUTHENTICATION_FLAGS: readonly string[] = Object.keys(FLAGS);

/** Parses argv (flags of other components are skipped); throws on a bad value. */
export function parseAuthenticationOptions(argv: readonly string[]): AuthenticationOptions {
  const o = defaultAuthenticationOptions();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith("--")) continue;
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    const spec = FLAGS[name];
    if (!spec) continue;
    let value: string;
    if (eq >= 0) value = arg.slice(eq + 1);
    else if (spec.kind === "bool") {
      const next = argv[i + 1];
      if (next !== undefined && /^(true|false)$/i.test(next)) {
        value = next;
        i++;
      } else value = "true";
    } else {
      const next = argv[i + 1];
      if (next === undefined) throw new Error(`flag needs an argument: --${name}`);
      value = next;
      i++;
    }
    spec.set(o, value, `--${name}`);
  }
  return o;
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
