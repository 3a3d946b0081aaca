import { describe, expect, it } from "vitest";
import { oidcFlagsToConfig } from "./build.ts";
import { AUTHENTICATION_FLAGS, parseAuthenticationOptions, parseDuration, validateAuthenticationOptions } from "./options.ts";

describe("authentication flags", () => {
  it("parses every form: =value, separate value, bare booleans, lists and repetition", () => {
    const o = parseAuthenticationOptions([
      "--profile=plat",
      "--client-ca-file=/ca.crt",
      "--token-auth-file",
      "/tokens.csv",
      "--enable-bootstrap-token-auth",
      "--service-account-key-file=/a.pub",
      "--service-account-key-file=/b.pub",
      "--service-account-signing-key-file=/sa.key",
      "--service-account-issuer=https://one",
      "--service-account-issuer=https://two",
      "--api-audiences=api,vault",
      "--service-account-lookup=false",
      "--service-account-max-token-expiration=48h",
      "--oidc-issuer-url=https://idp.test",
      "--oidc-client-id=cluster",
      "--oidc-required-claim=hd=example.com,tier=gold",
      "--oidc-required-claim=env=prod",
      "--oidc-signing-algs=RS256,ES256",
      "--authentication-token-webhook-config-file=/hook.yaml",
      "--authentication-token-webhook-cache-ttl=30s",
      "--authentication-token-webhook-version=v1",
      "--requestheader-username-headers=X-Remote-User",
      "--requestheader-group-headers=X-Remote-Group",
      "--requestheader-extra-headers-prefix=X-Remote-Extra-",
      "--requestheader-client-ca-file=/proxy.crt",
      "--requestheader-allowed-names=front-proxy,aggregator",
      "--anonymous-auth",
      "false",
      "--unrelated-flag=1",
    ]);
    expect(o.clientCaFile).toBe("/ca.crt");
    expect(o.tokenAuthFile).toBe("/tokens.csv");
    expect(o.enableBootstrapTokenAuth).toBe(true);
    expect(o.serviceAccountKeyFiles).toEqual(["/a.pub", "/b.pub"]);
    expect(o.serviceAccountIssuers).toEqual(["https://one", "https://two"]);
    expect(o.apiAudiences).toEqual(["api", "vault"]);
    expect(o.serviceAccountLookup).toBe(false);
    expect(o.serviceAccountMaxTokenExpiration).toBe(48 * 3600);
    expect(o.oidc.requiredClaims).toEqual({ hd: "example.com", tier: "gold", env: "prod" });
    expect(o.oidc.signingAlgs).toEqual(["RS256", "ES256"]);
    expect(o.webhook).toEqual({ configFile: "/hook.yaml", cacheTtlMs: 30_000, version: "v1" });
    expect(o.requestHeader.allowedNames).toEqual(["front-proxy", "aggregator"]);
    expect(o.anonymousAuth).toBe(false);
    expect(validateAuthenticationOptions(o)).toEqual([]);
  });

  it("defaults", () => {
    const o = parseAuthenticationOptions([]);
    expect(o.serviceAccountLookup).toBe(true);
    expect(o.webhook).toEqual({ cacheTtlMs: 120_000, version: "v1beta1" });
    expect(o.anonymousAuth).toBeUndefined();
  });

  it("rejects bad values", () => {
    expect(() => parseAuthenticationOptions(["--anonymous-auth=maybe"])).toThrow(/boolean/);
    expect(() => parseAuthenticationOptions(["--authentication-token-webhook-version=v2"])).toThrow(/v1 or v1beta1/);
    expect(() => parseAuthenticationOptions(["--oidc-required-claim=novalue"])).toThrow(/key=value/);
    expect(() => parseAuthenticationOptions(["--client-ca-file"])).toThrow(/needs an argument/);
  });

  it("reports refused combinations", () => {
    const check = (argv: string[]) => validateAuthenticationOptions(parseAuthenticationOptions(argv)).join("\n");
    expect(check(["--authentication-config=/a", "--oidc-issuer-url=https://x", "--oidc-client-id=c"])).toMatch(/mutually exclusive/);
    expect(check(["--oidc-issuer-url=https://x"])).toMatch(/oidc-client-id is required/);
    expect(check(["--oidc-issuer-url=http://x", "--oidc-client-id=c"])).toMatch(/https/);
    expect(check(["--requestheader-client-ca-file=/p"])).toMatch(/username-headers is required/);
    expect(check(["--requestheader-username-headers=X-User"])).toMatch(/client-ca-file is required/);
    expect(check(["--service-account-key-file=/k"])).toMatch(/service-account-issuer is required/);
    expect(check(["--service-account-issuer=https://bad host"])).toMatch(/not a valid URL/);
    expect(check(["--service-account-issuer=plat/serviceaccount"])).toBe("");
    expect(check(["--service-account-max-token-expiration=30m"])).toBe("the service-account-max-token-expiration must be between 1 hour and 2^32 seconds");
    expect(check(["--service-account-max-token-expiration=1h"])).toBe("");
  });

  it("lists the supported flags", () => {
    expect(AUTHENTICATION_FLAGS).toContain("authentication-config");
    expect(AUTHENTICATION_FLAGS).toContain("requestheader-allowed-names");
  });
});

describe("durations", () => {
  it("reads Go durations", () => {
    expect(parseDuration("2m")).toBe(120_000);
    expect(parseDuration("1h30m")).toBe(5_400_000);
    expect(parseDuration("1.5s")).toBe(1500);
    expect(parseDuration("250ms")).toBe(250);
    expect(parseDuration("0")).toBe(0);
    expect(() => parseDuration("2 minutes")).toThrow(/invalid duration/);
    expect(() => parseDuration("")).toThrow(/invalid duration/);
  });
});

describe("OIDC flags as a JWT authenticator", () => {
  it("prefixes non-email usernames with the issuer and honours '-'", () => {
    const base = { issuerUrl: "https://idp", clientId: "c", requiredClaims: {}, signingAlgs: [] };
    expect(oidcFlagsToConfig(base).claimMappings.username).toEqual({ claim: "sub", prefix: "https://idp#" });
    expect(oidcFlagsToConfig({ ...base, usernameClaim: "email" }).claimMappings.username).toEqual({ claim: "email", prefix: "" });
    expect(oidcFlagsToConfig({ ...base, usernamePrefix: "-" }).claimMappings.username).toEqual({ claim: "sub", prefix: "" });
    expect(oidcFlagsToConfig({ ...base, usernamePrefix: "corp:" }).claimMappings.username).toEqual({ claim: "sub", prefix: "corp:" });
    expect(oidcFlagsToConfig(base).signingAlgorithms).toEqual(["RS256"]);
    expect(() => oidcFlagsToConfig({ ...base, signingAlgs: ["HS256"] })).toThrow(/unsupported algorithm/);
  });
});
