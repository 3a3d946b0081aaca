import { describe, expect, it } from "vitest";
import { parseAuthenticationConfig, validateAuthenticationConfig, type AuthenticationConfiguration, type JWTAuthenticatorConfig } from "./authn-config.ts";
import { compileExpression, toCel } from "./cel.ts";
import { profile } from "./testing/harness.ts";

const ctx = { profile, serviceAccountIssuers: ["https://sa.issuer"] };
const apiVersion = `${profile.group("apiserverConfig")}/v1`;

function jwt(over: Partial<JWTAuthenticatorConfig> = {}, issuer: Partial<JWTAuthenticatorConfig["issuer"]> = {}): JWTAuthenticatorConfig {
  return { issuer: { url: "https://idp.test", audiences: ["a"], ...issuer }, claimMappings: { username: { claim: "sub", prefix: "" } }, ...over };
}

function problems(c: AuthenticationConfiguration): string {
  return validateAuthenticationConfig(c, ctx).join("\n");
}

describe("authentication configuration validation", () => {
  it("accepts a minimal authenticator", () => {
    expect(problems({ jwt: [jwt()] })).toBe("");
  });

  it("limits the number of authenticators to 64 and wants unique issuers and discovery URLs", () => {
    const many = Array.from({ length: 65 }, (_, i) => jwt({}, { url: `https://idp${i}.test` }));
    expect(problems({ jwt: many })).toMatch(/Too many: 65: must have at most 64 items/);
    expect(problems({ jwt: [jwt(), jwt()] })).toMatch(/jwt\[1\]\.issuer\.url: Duplicate value/);
    expect(problems({ jwt: [jwt({}, { discoveryURL: "https://d.test/x" }), jwt({}, { url: "https://o.test", discoveryURL: "https://d.test/x" })] })).toMatch(/discoveryURL: Duplicate value/);
  });

  it("checks issuer URLs", () => {
    expect(problems({ jwt: [jwt({}, { url: "http://idp.test" })] })).toMatch(/https/);
    expect(problems({ jwt: [jwt({}, { url: "https://sa.issuer" })] })).toMatch(/service account issuer/);
    expect(problems({ jwt: [jwt({}, { discoveryURL: "https://idp.test" })] })).toMatch(/different from URL/);
    expect(problems({ jwt: [jwt({}, { certificateAuthority: "garbage" })] })).toMatch(/certificateAuthority/);
  });

  it("checks audiences and the match policy", () => {
    expect(problems({ jwt: [jwt({}, { audiences: [] })] })).toMatch(/at least one issuer.audiences/);
    expect(problems({ jwt: [jwt({}, { audiences: ["a", "b"] })] })).toMatch(/must be MatchAny/);
    expect(problems({ jwt: [jwt({}, { audiences: ["a", "b"], audienceMatchPolicy: "MatchAny" })] })).toBe("");
    expect(problems({ jwt: [jwt({}, { audiences: ["a", "a"], audienceMatchPolicy: "MatchAny" })] })).toMatch(/Duplicate value: "a"/);
    expect(problems({ jwt: [jwt({}, { egressSelectorType: "nowhere" })] })).toMatch(/egressSelectorType/);
  });

  it("checks claim mappings", () => {
    expect(problems({ jwt: [jwt({ claimMappings: { username: { claim: "sub" } } })] })).toMatch(/prefix is required when claim is set/);
    expect(problems({ jwt: [jwt({ claimMappings: { username: {} } })] })).toMatch(/claim or expression is required/);
    expect(problems({ jwt: [jwt({ claimMappings: { username: { claim: "sub", prefix: "", expression: "claims.sub" } } })] })).toMatch(/can't both be set/);
    expect(problems({ jwt: [jwt({ claimMappings: { username: { expression: "claims.sub +" } } })] })).toMatch(/username\.expression: Invalid value/);
    expect(problems({ jwt: [jwt({ claimMappings: { username: { claim: "sub", prefix: "" }, groups: { claim: "groups" } } })] })).toMatch(/groups\.prefix: Required/);
  });

  it("needs email_verified when the username expression uses claims.email", () => {
    expect(problems({ jwt: [jwt({ claimMappings: { username: { expression: "claims.email" } } })] })).toMatch(/claims.email_verified must be used/);
    expect(problems({ jwt: [jwt({ claimMappings: { username: { expression: "claims.email" } }, claimValidationRules: [{ expression: "claims.email_verified == true" }] })] })).toBe("");
    expect(problems({ jwt: [jwt({ claimMappings: { username: { expression: "claims.?email_verified.orValue(false) ? claims.email : ''" } } })] })).toBe("");
  });

  it("checks extra keys", () => {
    const extra = (key: string) => problems({ jwt: [jwt({ claimMappings: { username: { claim: "sub", prefix: "" }, extra: [{ key, valueExpression: "claims.sub" }] } })] });
    expect(extra("example.com/team")).toBe("");
    expect(extra("Example.com/team")).toMatch(/lowercase/);
    expect(extra("team")).toMatch(/domain-prefixed path/);
    expect(extra(`${profile.reservedDomains[0]}/x`)).toMatch(/reserved/);
    expect(extra(`sub.${profile.reservedDomains[0]}/x`)).toMatch(/reserved/);
  });

  it("checks validation rules", () => {
    expect(problems({ jwt: [jwt({ claimValidationRules: [{ claim: "hd", expression: "true" }] })] })).toMatch(/can't both be set/);
    expect(problems({ jwt: [jwt({ claimValidationRules: [{ claim: "hd", message: "m" }] })] })).toMatch(/message can't be set/);
    expect(problems({ jwt: [jwt({ claimValidationRules: [{ claim: "hd" }, { claim: "hd" }] })] })).toMatch(/Duplicate value: "hd"/);
    expect(problems({ jwt: [jwt({ userValidationRules: [{ expression: "" }] })] })).toMatch(/expression is required/);
    expect(problems({ jwt: [jwt({ userValidationRules: [{ expression: "user.username !=" }] })] })).toMatch(/userValidationRules\[0\]\.expression: Invalid value/);
  });

  it("checks the anonymous section", () => {
    expect(problems({ jwt: [], anonymous: { enabled: false, conditions: [{ path: "/livez" }] } })).toMatch(/enabled should be set to true/);
    expect(problems({ jwt: [], anonymous: { enabled: true, conditions: [{ path: "/livez" }, { path: "/livez" }] } })).toMatch(/Duplicate value/);
  });
});

describe("authentication configuration decoding", () => {
  it("decodes YAML strictly", () => {
    const text = `apiVersion: ${apiVersion}\nkind: AuthenticationConfiguration\njwt:\n- issuer:\n    url: https://idp.test\n    audiences: [a]\n  claimMappings:\n    username: {claim: sub, prefix: ""}\n`;
    expect(parseAuthenticationConfig(text, ctx).jwt[0].claimMappings.username).toEqual({ claim: "sub", prefix: "" });
    expect(() => parseAuthenticationConfig(text.replace("audiences", "audience"), ctx)).toThrow(/issuer\.audience: unknown field/);
    expect(() => parseAuthenticationConfig(text.replace(apiVersion, "v1"), ctx)).toThrow(/apiVersion: Unsupported value/);
    expect(() => parseAuthenticationConfig(text + "jwt: []\n", ctx)).toThrow(/authentication configuration/);
  });
});

describe("CEL helpers", () => {
  it("turns JSON integers into BigInt for the evaluator", () => {
    expect(toCel({ a: 1, b: [2, 1.5], c: { d: 3 } })).toEqual({ a: 1n, b: [2n, 1.5], c: { d: 3n } });
    expect(compileExpression("claims.exp > 5 && claims.n == 1.5", "claims").evaluate({ exp: 10, n: 1.5 })).toBe(true);
  });
  it("refuses expressions that do not type check", () => {
    expect(() => compileExpression('1 + "a"', "claims")).toThrow(/compilation failed/);
    expect(() => compileExpression("  ", "claims")).toThrow(/empty/);
  });
});
