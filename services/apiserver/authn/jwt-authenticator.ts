/**
 * One JWT (OIDC) authenticator: tokens whose `iss` is the configured issuer
 * URL are verified against the provider's keys (discovered, with the issuer's
 * CA), must carry `exp` and be meant for one of the configured audiences; then
 * claim validation rules run, claims map to the user (by claim and prefix or
 * by CEL expression), and user validation rules run. A token of another issuer
 * is not this authenticator's; any failure of a token of this issuer is 401.
 */
import { decodeJwt, decodeProtectedHeader, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from "jose";
import { unauthorized } from "../../../shared/api/status.ts";
import { SUPPORTED_SIGNING_ALGORITHMS, type JWTAuthenticatorConfig } from "./authn-config.ts";
import { celErrorText, compileExpression, stringOrList, type CompiledExpression } from "./cel.ts";
import { RemoteKeySet } from "./jwks.ts";
import { NO_OPINION, type AuthResult, type TokenAuthenticator, type UserInfo } from "./types.ts";

/** Supplies the key resolver for a token's key id. */
export interface KeySource {
  resolver(kid: string | undefined): Promise<JWTVerifyGetKey>;
}

export interface JwtAuthenticatorOptions {
  keys?: KeySource;
  now?: () => Date;
}

interface Mapping {
  claim?: string;
  prefix: string;
  expression?: CompiledExpression;
}

function compileMapping(m: { claim?: string; prefix?: string; expression?: string } | undefined): Mapping | undefined {
  if (!m || (!m.claim && !m.expression)) return undefined;
  if (m.expression) return { prefix: "", expression: compileExpression(m.expression, "claims") };
  return { claim: m.claim, prefix: m.prefix ?? "" };
}

function fail(message: string): never {
  throw unauthorized(message);
}

export class JwtAuthenticator implements TokenAuthenticator {
  readonly name: string;
  readonly issuer: string;
  private readonly keys: KeySource;
  private readonly now: () => Date;
  private readonly algorithms: string[];
  private readonly username: Mapping;
  private readonly groups?: Mapping;
  private readonly uid?: Mapping;
  private readonly extra: Array<{ key: string; expression: CompiledExpression }>;
  private readonly claimRules: Array<{ claim?: string; requiredValue?: string; expression?: CompiledExpression; message?: string }>;
  private readonly userRules: Array<{ expression: CompiledExpression; message?: string }>;

  constructor(private readonly cfg: JWTAuthenticatorConfig, opts: JwtAuthenticatorOptions = {}) {
    this.issuer = cfg.issuer.url;
    this.name = `jwt:${cfg.issuer.url}`;
    this.keys = opts.keys ?? new RemoteKeySet({ issuer: cfg.issuer.url, discoveryURL: cfg.issuer.discoveryURL, ca: cfg.issuer.certificateAuthority });
    this.now = opts.now ?? (() => new Date());
    this.algorithms = cfg.signingAlgorithms && cfg.signingAlgorithms.length > 0 ? [...cfg.signingAlgorithms] : [...SUPPORTED_SIGNING_ALGORITHMS];
    const username = compileMapping(cfg.claimMappings.username);
    if (!username) throw new Error(`jwt authenticator ${cfg.issuer.url}: claimMappings.username is required`);
    this.username = username;
    this.groups = compileMapping(cfg.claimMappings.groups);
    this.uid = compileMapping(cfg.claimMappings.uid);
    this.extra = (cfg.claimMappings.extra ?? []).map((e) => ({ key: e.key, expression: compileExpression(e.valueExpression, "claims") }));
    this.claimRules = (cfg.claimValidationRules ?? []).map((r) => ({
      claim: r.claim || undefined,
      requiredValue: r.requiredValue,
      expression: r.expression ? compileExpression(r.expression, "claims") : undefined,
      message: r.message,
    }));
    this.userRules = (cfg.userValidationRules ?? []).map((r) => ({ expression: compileExpression(r.expression, "user"), message: r.message }));
  }

  async authenticateToken(token: string): Promise<AuthResult> {
    let iss: unknown;
    let kid: string | undefined;
    try {
      iss = decodeJwt(token).iss;
      kid = decodeProtectedHeader(token).kid;
    } catch {
      return NO_OPINION;
    }
    if (iss !== this.issuer) return NO_OPINION;
    const claims = await this.verify(token, kid);
    this.checkAudience(claims);
    this.validateClaims(claims);
    const user = this.mapUser(claims);
    this.validateUser(user);
    return { user };
  }

  private async verify(token: string, kid: string | undefined): Promise<JWTPayload> {
    let getKey: JWTVerifyGetKey;
    try {
      getKey = await this.keys.resolver(kid);
    } catch {
      fail(`oidc: authenticator for issuer ${JSON.stringify(this.issuer)} is not initialized`);
    }
    try {
      const { payload } = await jwtVerify(token, getKey, { issuer: this.issuer, algorithms: this.algorithms, currentDate: this.now(), requiredClaims: ["exp"] });
      return payload;
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === "ERR_JWT_EXPIRED") fail("oidc: verify token: token is expired");
      if (code === "ERR_JWT_CLAIM_VALIDATION_FAILED") fail("oidc: verify token: token claims are invalid");
      if (code === "ERR_JOSE_ALG_NOT_ALLOWED") fail("oidc: verify token: signing algorithm is not accepted");
      fail("oidc: verify token: failed to verify signature");
    }
  }

  private checkAudience(claims: JWTPayload): void {
    const aud = typeof claims.aud === "string" ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud : [];
    if (!this.cfg.issuer.audiences.some((a) => aud.includes(a))) fail(`oidc: expected audience in ${JSON.stringify(this.cfg.issuer.audiences)} got ${JSON.stringify(aud)}`);
  }

  private evaluate(expr: CompiledExpression, claims: JWTPayload, what: string): unknown {
    try {
      return expr.evaluate({ ...claims });
    } catch (err) {
      fail(`oidc: error evaluating ${what} expression: ${celErrorText(err)}`);
    }
  }

  private validateClaims(claims: JWTPayload): void {
    for (const r of this.claimRules) {
      if (r.claim !== undefined) {
        const v = claims[r.claim];
        if (v === undefined) fail(`oidc: required claim ${r.claim} not present in ID token`);
        if (typeof v !== "string") fail(`oidc: required claim ${r.claim} is not a string`);
        if (v !== (r.requiredValue ?? "")) fail(`oidc: required claim ${r.claim} value does not match`);
      } else if (r.expression) {
        const ok = this.evaluate(r.expression, claims, "claim validation");
        if (typeof ok !== "boolean") fail("oidc: claim validation expression must return a boolean");
        if (!ok) fail(`oidc: error evaluating claim validation expression: ${r.message || `expression '${r.expression.source}' resulted in error`}`);
      }
    }
  }

  private claimString(claims: JWTPayload, claim: string, what: string): string | undefined {
    const v = claims[claim];
    if (v === undefined) return undefined;
    if (typeof v !== "string") fail(`oidc: parse ${what} claim ${JSON.stringify(claim)}: not a string`);
    return v;
  }

  private mapUser(claims: JWTPayload): UserInfo {
    let username: string;
    const u = this.username;
    if (u.expression) {
      const v = this.evaluate(u.expression, claims, "username");
      if (typeof v !== "string") fail("oidc: error evaluating username expression: expression must return a string");
      username = v;
    } else {
      const claim = u.claim ?? "sub";
      const v = this.claimString(claims, claim, "username");
      if (v === undefined) fail(`oidc: parse username claims ${JSON.stringify(claim)}: claim not present`);
      if (claim === "email" && claims.email_verified !== undefined) {
        if (typeof claims.email_verified !== "boolean") fail("oidc: parse 'email_verified' claim: not a boolean");
        if (!claims.email_verified) fail("oidc: email not verified");
      }
      username = v === "" ? "" : u.prefix + v;
    }
    if (username === "") fail("oidc: empty username is not allowed");

    let groups: string[] = [];
    const g = this.groups;
    if (g?.expression) {
      try {
        groups = stringOrList(this.evaluate(g.expression, claims, "groups"), "groups");
      } catch (err) {
        fail(`oidc: error evaluating group claim expression: ${(err as Error).message}`);
      }
    } else if (g?.claim) {
      const v = claims[g.claim];
      if (v !== undefined && v !== null) {
        if (typeof v === "string") groups = [v];
        else if (Array.isArray(v) && v.every((x) => typeof x === "string")) groups = v as string[];
        else fail(`oidc: parse groups claim ${JSON.stringify(g.claim)}: not a string or an array of strings`);
      }
      groups = groups.map((x) => g.prefix + x);
    }

    const user: UserInfo = { username, groups };
    const uid = this.uid;
    if (uid?.expression) {
      const v = this.evaluate(uid.expression, claims, "uid");
      if (typeof v !== "string") fail("oidc: error evaluating uid claim expression: expression must return a string");
      user.uid = v;
    } else if (uid?.claim) {
      const v = this.claimString(claims, uid.claim, "uid");
      if (v === undefined) fail(`oidc: parse uid claim ${JSON.stringify(uid.claim)}: claim not present`);
      user.uid = v;
    }
    if (this.extra.length > 0) {
      const extra: Record<string, string[]> = {};
      for (const e of this.extra) {
        let values: string[];
        try {
          values = stringOrList(this.evaluate(e.expression, claims, "extra"), `extra ${e.key}`);
        } catch (err) {
          fail(`oidc: error evaluating extra claim expression: ${(err as Error).message}`);
        }
        const nonEmpty = values.filter((x) => x !== "");
        if (nonEmpty.length > 0) extra[e.key] = nonEmpty;
      }
      if (Object.keys(extra).length > 0) user.extra = extra;
    }
    return user;
  }

  private validateUser(user: UserInfo): void {
    if (this.userRules.length === 0) return;
    const input = { username: user.username, uid: user.uid ?? "", groups: user.groups, extra: user.extra ?? {} };
    for (const r of this.userRules) {
      let ok: unknown;
      try {
        ok = r.expression.evaluate(input);
      } catch (err) {
        fail(`oidc: error evaluating user info validation rule: ${celErrorText(err)}`);
      }
      if (ok !== true) fail(`oidc: error evaluating user info validation rule: ${r.message || `validation expression '${r.expression.source}' failed`}`);
    }
  }
}
