/**
 * The authentication configuration file (`--authentication-config`): kind
 * `AuthenticationConfiguration` of the server-configuration group, with JWT
 * authenticators (`jwt[]`) and the `anonymous` section. `parseAuthenticationConfig`
 * decodes YAML or JSON strictly (unknown fields are errors) and validates it;
 * every problem is reported with its field path.
 */
import { parse as parseYaml } from "yaml";
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import { parseCertificateBundle } from "./cert-verify.ts";
import { compileExpression } from "./cel.ts";

export const MAX_JWT_AUTHENTICATORS = 64;
export const CONFIG_VERSIONS = ["v1", "v1beta1", "v1alpha1"] as const;
export const SUPPORTED_SIGNING_ALGORITHMS = ["RS256", "RS384", "RS512", "ES256", "ES384", "ES512", "PS256", "PS384", "PS512"] as const;

export interface PrefixedClaimOrExpression {
  claim?: string;
  /** Required with `claim` (`""` for none); undefined means not set. */
  prefix?: string;
  expression?: string;
}

export interface ClaimOrExpression {
  claim?: string;
  expression?: string;
}

export interface ExtraMapping {
  key: string;
  valueExpression: string;
}

export interface ClaimValidationRule {
  claim?: string;
  requiredValue?: string;
  expression?: string;
  message?: string;
}

export interface UserValidationRule {
  expression: string;
  message?: string;
}

export interface Issuer {
  url: string;
  discoveryURL?: string;
  certificateAuthority?: string;
  audiences: string[];
  audienceMatchPolicy?: string;
  egressSelectorType?: string;
}

export interface JWTAuthenticatorConfig {
  issuer: Issuer;
  claimValidationRules?: ClaimValidationRule[];
  claimMappings: {
    username: PrefixedClaimOrExpression;
    groups?: PrefixedClaimOrExpression;
    uid?: ClaimOrExpression;
    extra?: ExtraMapping[];
  };
  userValidationRules?: UserValidationRule[];
  /** Only from the command-line flags: accepted algorithms (the file accepts every supported one). */
  signingAlgorithms?: string[];
}

export interface AnonymousConfig {
  enabled: boolean;
  conditions?: Array<{ path: string }>;
}

export interface AuthenticationConfiguration {
  jwt: JWTAuthenticatorConfig[];
  anonymous?: AnonymousConfig;
}

// ---------------------------------------------------------------------------
// Strict decoding

type Obj = Record<string, unknown>;

class Decoder {
  readonly errors: string[] = [];

  obj(v: unknown, path: string, allowed: readonly string[]): Obj | undefined {
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "object" || Array.isArray(v)) {
      this.errors.push(`${path}: Invalid value: must be an object`);
      return undefined;
    }
    for (const k of Object.keys(v)) if (!allowed.includes(k)) this.errors.push(`${path}.${k}: unknown field`);
    return v as Obj;
  }

  str(o: Obj | undefined, key: string, path: string): string | undefined {
    const v = o?.[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "string") {
      this.errors.push(`${path}.${key}: Invalid value: must be a string`);
      return undefined;
    }
    return v;
  }

  list(o: Obj | undefined, key: string, path: string): unknown[] | undefined {
    const v = o?.[key];
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v)) {
      this.errors.push(`${path}.${key}: Invalid value: must be a list`);
      return undefined;
    }
    return v;
  }

  strings(o: Obj | undefined, key: string, path: string): string[] | undefined {
    const l = this.list(o, key, path);
    if (!l) return undefined;
    return l.map((x, i) => {
      if (typeof x !== "string") this.errors.push(`${path}.${key}[${i}]: Invalid value: must be a string`);
      return String(x);
    });
  }
}

function decodePrefixed(d: Decoder, v: unknown, path: string): PrefixedClaimOrExpression | undefined {
  const o = d.obj(v, path, ["claim", "prefix", "expression"]);
  if (!o) return undefined;
  const out: PrefixedClaimOrExpression = {};
  const claim = d.str(o, "claim", path);
  const prefix = d.str(o, "prefix", path);
  const expression = d.str(o, "expression", path);
  if (claim !== undefined) out.claim = claim;
  if (prefix !== undefined) out.prefix = prefix;
  if (expression !== undefined) out.expression = expression;
  return out;
}

function decodeJwt(d: Decoder, v: unknown, path: string): JWTAuthenticatorConfig {
  const o = d.obj(v, path, ["issuer", "claimValidationRules", "claimMappings", "userValidationRules"]) ?? {};
  const io = d.obj(o.issuer, `${path}.issuer`, ["url", "discoveryURL", "certificateAuthority", "audiences", "audienceMatchPolicy", "egressSelectorType"]);
  const issuer: Issuer = {
    url: d.str(io, "url", `${path}.issuer`) ?? "",
    audiences: d.strings(io, "audiences", `${path}.issuer`) ?? [],
  };
  const discoveryURL = d.str(io, "discoveryURL", `${path}.issuer`);
  if (discoveryURL !== undefined && discoveryURL !== "") issuer.discoveryURL = discoveryURL;
  const ca = d.str(io, "certificateAuthority", `${path}.issuer`);
  if (ca !== undefined && ca !== "") issuer.certificateAuthority = ca;
  const amp = d.str(io, "audienceMatchPolicy", `${path}.issuer`);
  if (amp !== undefined) issuer.audienceMatchPolicy = amp;
  const egress = d.str(io, "egressSelectorType", `${path}.issuer`);
  if (egress !== undefined) issuer.egressSelectorType = egress;

  const mo = d.obj(o.claimMappings, `${path}.claimMappings`, ["username", "groups", "uid", "extra"]);
  const mappings: JWTAuthenticatorConfig["claimMappings"] = { username: decodePrefixed(d, mo?.username, `${path}.claimMappings.username`) ?? {} };
  const groups = decodePrefixed(d, mo?.groups, `${path}.claimMappings.groups`);
  if (groups) mappings.groups = groups;
  const uo = d.obj(mo?.uid, `${path}.claimMappings.uid`, ["claim", "expression"]);
  if (uo) {
    mappings.uid = {};
    const c = d.str(uo, "claim", `${path}.claimMappings.uid`);
    const e = d.str(uo, "expression", `${path}.claimMappings.uid`);
    if (c !== undefined) mappings.uid.claim = c;
    if (e !== undefined) mappings.uid.expression = e;
  }
  const extra = d.list(mo, "extra", `${path}.claimMappings`);
  if (extra) {
    mappings.extra = extra.map((x, i) => {
      const p = `${path}.claimMappings.extra[${i}]`;
      const eo = d.obj(x, p, ["key", "valueExpression"]);
      return { key: d.str(eo, "key", p) ?? "", valueExpression: d.str(eo, "valueExpression", p) ?? "" };
    });
  }
  const out: JWTAuthenticatorConfig = { issuer, claimMappings: mappings };
  const cvr = d.list(o, "claimValidationRules", path);
  if (cvr) {
    out.claimValidationRules = cvr.map((x, i) => {
      const p = `${path}.claimValidationRules[${i}]`;
      const ro = d.obj(x, p, ["claim", "requiredValue", "expression", "message"]);
      const r: ClaimValidationRule = {};
      for (const k of ["claim", "requiredValue", "expression", "message"] as const) {
        const s = d.str(ro, k, p);
        if (s !== undefined) r[k] = s;
      }
      return r;
    });
  }
  const uvr = d.list(o, "userValidationRules", path);
  if (uvr) {
    out.userValidationRules = uvr.map((x, i) => {
      const p = `${path}.userValidationRules[${i}]`;
      const ro = d.obj(x, p, ["expression", "message"]);
      const r: UserValidationRule = { expression: d.str(ro, "expression", p) ?? "" };
      const m = d.str(ro, "message", p);
      if (m !== undefined) r.message = m;
      return r;
    });
  }
  return out;
}

function decodeAnonymous(d: Decoder, v: unknown): AnonymousConfig | undefined {
  const o = d.obj(v, "anonymous", ["enabled", "conditions"]);
  if (!o) return undefined;
  if (o.enabled !== undefined && typeof o.enabled !== "boolean") d.errors.push("anonymous.enabled: Invalid value: must be a boolean");
  const out: AnonymousConfig = { enabled: o.enabled === true };
  const conds = d.list(o, "conditions", "anonymous");
  if (conds) {
    out.conditions = conds.map((c, i) => {
      const co = d.obj(c, `anonymous.conditions[${i}]`, ["path"]);
      return { path: d.str(co, "path", `anonymous.conditions[${i}]`) ?? "" };
    });
  }
  return out;
}

export interface ValidationContext {
  profile: PlatformProfile;
  /** `--service-account-issuer` values: no JWT authenticator may use one. */
  serviceAccountIssuers: readonly string[];
  /** `--anonymous-auth` was given: the file may then not configure anonymous access. */
  anonymousFlagSet?: boolean;
}

/** Decodes and validates the file's text; throws one Error listing every problem. */
export function parseAuthenticationConfig(text: string, ctx: ValidationContext, source = "authentication configuration"): AuthenticationConfiguration {
  let doc: unknown;
  try {
    doc = parseYaml(text, { uniqueKeys: true, maxAliasCount: 100 });
  } catch (err) {
    throw new Error(`${source}: ${(err as Error).message.split("\n")[0]}`, { cause: err });
  }
  const d = new Decoder();
  const top = d.obj(doc, "", ["apiVersion", "kind", "jwt", "anonymous"]);
  if (!top) throw new Error(`${source}: not an object`);
  const group = ctx.profile.group("apiserverConfig");
  const apiVersion = top.apiVersion;
  if (typeof apiVersion !== "string" || !CONFIG_VERSIONS.some((v) => apiVersion === `${group}/${v}`)) {
    d.errors.push(`apiVersion: Unsupported value: ${JSON.stringify(apiVersion ?? "")}: supported values: ${CONFIG_VERSIONS.map((v) => `"${group}/${v}"`).join(", ")}`);
  }
  if (top.kind !== "AuthenticationConfiguration") d.errors.push(`kind: Unsupported value: ${JSON.stringify(top.kind ?? "")}: supported values: "AuthenticationConfiguration"`);
  const jwt = (d.list(top, "jwt", "") ?? []).map((j, i) => decodeJwt(d, j, `jwt[${i}]`));
  const config: AuthenticationConfiguration = { jwt };
  const anonymous = decodeAnonymous(d, top.anonymous);
  if (anonymous) config.anonymous = anonymous;
  const errors = [...d.errors.map((e) => e.replace(/^\./, "")), ...validateAuthenticationConfig(config, ctx)];
  if (errors.length > 0) throw new Error(`${source} is invalid: ${errors.join("; ")}`);
  return config;
}

// ---------------------------------------------------------------------------
// Validation

/** Problems of an https URL (none when valid). */
export function httpsUrlProblems(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return "must be a valid URL";
  }
  if (u.protocol !== "https:") return "URL scheme must be https";
  if (u.username || u.password) return "URL must not contain a username or password";
  if (u.search) return "URL must not contain a query";
  if (u.hash) return "URL must not contain a fragment";
  return undefined;
}

const EXTRA_KEY = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/[^\s]+$/;

function usesEmail(expr: string | undefined): boolean {
  return !!expr && /claims\s*\.\s*\??\s*email(?![A-Za-z0-9_])|claims\s*\[\s*\??\s*["']email["']\s*\]/.test(expr);
}

function usesEmailVerified(expr: string | undefined): boolean {
  return !!expr && /email_verified/.test(expr);
}

function compiles(errors: string[], path: string, source: string, variable: "claims" | "user"): void {
  try {
    compileExpression(source, variable);
  } catch (err) {
    errors.push(`${path}: Invalid value: ${JSON.stringify(source)}: ${(err as Error).message.split("\n")[0]}`);
  }
}

function validateJwt(j: JWTAuthenticatorConfig, p: string, ctx: ValidationContext): string[] {
  const errs: string[] = [];
  const iss = j.issuer;
  if (!iss.url) errs.push(`${p}.issuer.url: Required value: URL is required`);
  else {
    const bad = httpsUrlProblems(iss.url);
    if (bad) errs.push(`${p}.issuer.url: Invalid value: ${JSON.stringify(iss.url)}: ${bad}`);
    if (ctx.serviceAccountIssuers.includes(iss.url)) errs.push(`${p}.issuer.url: Invalid value: ${JSON.stringify(iss.url)}: URL must not overlap with the service account issuer`);
  }
  if (iss.discoveryURL !== undefined) {
    const bad = httpsUrlProblems(iss.discoveryURL);
    if (bad) errs.push(`${p}.issuer.discoveryURL: Invalid value: ${JSON.stringify(iss.discoveryURL)}: ${bad}`);
    if (iss.discoveryURL.replace(/\/$/, "") === iss.url.replace(/\/$/, "")) errs.push(`${p}.issuer.discoveryURL: Invalid value: ${JSON.stringify(iss.discoveryURL)}: discoveryURL must be different from URL`);
  }
  if (iss.certificateAuthority !== undefined) {
    try {
      parseCertificateBundle(iss.certificateAuthority, "certificateAuthority");
    } catch (err) {
      errs.push(`${p}.issuer.certificateAuthority: Invalid value: ${(err as Error).message}`);
    }
  }
  if (iss.audiences.length === 0) errs.push(`${p}.issuer.audiences: Required value: at least one issuer.audiences is required`);
  const seenAud = new Set<string>();
  iss.audiences.forEach((a, i) => {
    if (a === "") errs.push(`${p}.issuer.audiences[${i}]: Required value: audience can't be empty`);
    if (seenAud.has(a)) errs.push(`${p}.issuer.audiences[${i}]: Duplicate value: ${JSON.stringify(a)}`);
    seenAud.add(a);
  });
  const amp = iss.audienceMatchPolicy ?? "";
  if (iss.audiences.length > 1 && amp !== "MatchAny") errs.push(`${p}.issuer.audienceMatchPolicy: Invalid value: ${JSON.stringify(amp)}: audienceMatchPolicy must be MatchAny for multiple audiences`);
  if (amp !== "" && amp !== "MatchAny") errs.push(`${p}.issuer.audienceMatchPolicy: Unsupported value: ${JSON.stringify(amp)}: supported values: "MatchAny"`);
  const egress = iss.egressSelectorType ?? "";
  if (egress !== "" && egress !== "controlplane" && egress !== "cluster") errs.push(`${p}.issuer.egressSelectorType: Unsupported value: ${JSON.stringify(egress)}: supported values: "cluster", "controlplane"`);

  const claims = new Set<string>();
  (j.claimValidationRules ?? []).forEach((r, i) => {
    const rp = `${p}.claimValidationRules[${i}]`;
    if (r.claim !== undefined && r.claim !== "" && r.expression !== undefined && r.expression !== "") errs.push(`${rp}: Invalid value: claim and expression can't both be set`);
    else if (!r.claim && !r.expression) errs.push(`${rp}: Required value: claim or expression is required`);
    if (r.claim) {
      if (claims.has(r.claim)) errs.push(`${rp}.claim: Duplicate value: ${JSON.stringify(r.claim)}`);
      claims.add(r.claim);
      if (r.message !== undefined && r.message !== "") errs.push(`${rp}.message: Invalid value: message can't be set when claim is set`);
    }
    if (r.expression) {
      if (r.requiredValue !== undefined && r.requiredValue !== "") errs.push(`${rp}.requiredValue: Invalid value: requiredValue can't be set when expression is set`);
      compiles(errs, `${rp}.expression`, r.expression, "claims");
    }
  });

  const m = j.claimMappings;
  const u = m.username;
  const up = `${p}.claimMappings.username`;
  if (u.claim && u.expression) errs.push(`${up}: Invalid value: claim and expression can't both be set`);
  else if (!u.claim && !u.expression) errs.push(`${up}: Required value: claim or expression is required`);
  if (u.claim && u.prefix === undefined) errs.push(`${up}.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing`);
  if (u.expression) {
    if (u.prefix !== undefined && u.prefix !== "") errs.push(`${up}.prefix: Invalid value: prefix can't be set when expression is set`);
    compiles(errs, `${up}.expression`, u.expression, "claims");
  }
  const g = m.groups;
  if (g) {
    const gp = `${p}.claimMappings.groups`;
    if (g.claim && g.expression) errs.push(`${gp}: Invalid value: claim and expression can't both be set`);
    if (g.claim && g.prefix === undefined) errs.push(`${gp}.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing`);
    if (g.expression) {
      if (g.prefix !== undefined && g.prefix !== "") errs.push(`${gp}.prefix: Invalid value: prefix can't be set when expression is set`);
      compiles(errs, `${gp}.expression`, g.expression, "claims");
    }
    if (!g.claim && !g.expression && g.prefix) errs.push(`${gp}.prefix: Invalid value: prefix can't be set when claim is not set`);
  }
  if (m.uid) {
    if (m.uid.claim && m.uid.expression) errs.push(`${p}.claimMappings.uid: Invalid value: claim and expression can't both be set`);
    if (m.uid.expression) compiles(errs, `${p}.claimMappings.uid.expression`, m.uid.expression, "claims");
  }
  const keys = new Set<string>();
  (m.extra ?? []).forEach((e, i) => {
    const ep = `${p}.claimMappings.extra[${i}]`;
    if (!e.key) errs.push(`${ep}.key: Required value`);
    else {
      if (e.key !== e.key.toLowerCase()) errs.push(`${ep}.key: Invalid value: ${JSON.stringify(e.key)}: key must be lowercase`);
      if (!EXTRA_KEY.test(e.key)) errs.push(`${ep}.key: Invalid value: ${JSON.stringify(e.key)}: must be a domain-prefixed path (such as "acme.io/foo")`);
      const domain = e.key.split("/")[0];
      if (ctx.profile.reservedDomains.some((r) => domain === r || domain.endsWith(`.${r}`))) errs.push(`${ep}.key: Invalid value: ${JSON.stringify(e.key)}: domain ${JSON.stringify(domain)} is reserved for the platform`);
      if (keys.has(e.key)) errs.push(`${ep}.key: Duplicate value: ${JSON.stringify(e.key)}`);
      keys.add(e.key);
    }
    if (!e.valueExpression) errs.push(`${ep}.valueExpression: Required value: valueExpression is required`);
    else compiles(errs, `${ep}.valueExpression`, e.valueExpression, "claims");
  });
  if (usesEmail(u.expression)) {
    const verified = usesEmailVerified(u.expression) || (m.extra ?? []).some((e) => usesEmailVerified(e.valueExpression)) || (j.claimValidationRules ?? []).some((r) => usesEmailVerified(r.expression));
    if (!verified) {
      errs.push(`${up}.expression: Invalid value: ${JSON.stringify(u.expression)}: claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression`);
    }
  }
  (j.userValidationRules ?? []).forEach((r, i) => {
    const rp = `${p}.userValidationRules[${i}]`;
    if (!r.expression) errs.push(`${rp}.expression: Required value: expression is required`);
    else compiles(errs, `${rp}.expression`, r.expression, "user");
  });
  return errs;
}

export function validateAuthenticationConfig(c: AuthenticationConfiguration, ctx: ValidationContext): string[] {
  const errs: string[] = [];
  if (c.jwt.length > MAX_JWT_AUTHENTICATORS) errs.push(`jwt: Too many: ${c.jwt.length}: must have at most ${MAX_JWT_AUTHENTICATORS} items`);
  const urls = new Set<string>();
  const discovery = new Set<string>();
  c.jwt.forEach((j, i) => {
    const p = `jwt[${i}]`;
    if (j.issuer.url) {
      if (urls.has(j.issuer.url)) errs.push(`${p}.issuer.url: Duplicate value: ${JSON.stringify(j.issuer.url)}`);
      urls.add(j.issuer.url);
    }
    if (j.issuer.discoveryURL) {
      if (discovery.has(j.issuer.discoveryURL)) errs.push(`${p}.issuer.discoveryURL: Duplicate value: ${JSON.stringify(j.issuer.discoveryURL)}`);
      discovery.add(j.issuer.discoveryURL);
    }
    errs.push(...validateJwt(j, p, ctx));
  });
  if (c.anonymous && ctx.anonymousFlagSet) errs.push("anonymous: Forbidden: anonymous is not supported when the --anonymous-auth flag is set");
  if (c.anonymous) {
    const conds = c.anonymous.conditions ?? [];
    if (!c.anonymous.enabled && conds.length > 0) errs.push("anonymous.conditions: Invalid value: enabled should be set to true when conditions are defined");
    const seen = new Set<string>();
    conds.forEach((cond, i) => {
      if (!cond.path) errs.push(`anonymous.conditions[${i}].path: Required value`);
      if (seen.has(cond.path)) errs.push(`anonymous.conditions[${i}].path: Duplicate value: ${JSON.stringify(cond.path)}`);
      seen.add(cond.path);
    });
  }
  return errs;
}
