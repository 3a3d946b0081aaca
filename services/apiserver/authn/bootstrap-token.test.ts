import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrapExtraGroups, bootstrapTokenExpired, secretData } from "./bootstrap-token.ts";
import { defaultAuthenticationOptions } from "./options.ts";
import { profile, startAuthServer, type TestServer } from "./testing/harness.ts";

const b64 = (s: string) => Buffer.from(s).toString("base64");

function bootstrapSecret(id: string, secret: string, extra: Record<string, string> = {}): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: `bootstrap-token-${id}`, namespace: profile.systemNamespace },
    type: profile.secretTypes.bootstrapToken,
    data: Object.fromEntries(Object.entries({ "token-id": id, "token-secret": secret, "usage-bootstrap-authentication": "true", ...extra }).map(([k, v]) => [k, b64(v)])),
  };
}

describe("bootstrap token rules (pure)", () => {
  it("accepts extra groups under system:bootstrappers: only", () => {
    expect(bootstrapExtraGroups("system:bootstrappers:worker, system:bootstrappers:x-1")).toEqual(["system:bootstrappers:worker", "system:bootstrappers:x-1"]);
    expect(() => bootstrapExtraGroups("system:masters")).toThrow(/invalid/);
    expect(() => bootstrapExtraGroups("system:bootstrappers:")).toThrow(/invalid/);
  });
  it("reads expiry as RFC 3339", () => {
    const now = new Date("2030-01-01T00:00:00Z");
    expect(bootstrapTokenExpired(undefined, now)).toBe(false);
    expect(bootstrapTokenExpired("2030-01-02T00:00:00Z", now)).toBe(false);
    expect(bootstrapTokenExpired("2029-12-31T23:59:59Z", now)).toBe(true);
    expect(bootstrapTokenExpired("tomorrow", now)).toBe(true);
  });
  it("decodes data and stringData", () => {
    expect(secretData({ data: { a: b64("x") }, stringData: { b: "y" } })).toEqual({ a: "x", b: "y" });
  });
});

describe("bootstrap tokens over HTTPS", () => {
  let srv: TestServer;
  beforeAll(async () => {
    const opts = defaultAuthenticationOptions();
    opts.enableBootstrapTokenAuth = true;
    srv = await startAuthServer(opts);
    await srv.create("secrets", bootstrapSecret("abcdef", "0123456789abcdef", { "auth-extra-groups": "system:bootstrappers:worker" }));
    await srv.create("secrets", bootstrapSecret("expire", "0123456789abcdef", { expiration: "2001-01-01T00:00:00Z" }));
    await srv.create("secrets", bootstrapSecret("nouse0", "0123456789abcdef", { "usage-bootstrap-authentication": "false" }));
    await srv.create("secrets", bootstrapSecret("badgrp", "0123456789abcdef", { "auth-extra-groups": "system:masters" }));
    await srv.create("secrets", bootstrapSecret("revoke", "0123456789abcdef"));
    await srv.create("secrets", { ...bootstrapSecret("opaque", "0123456789abcdef"), type: "Opaque" });
  });
  afterAll(() => srv.close());

  const as = (token: string) => srv.call({ headers: { authorization: `Bearer ${token}` } });

  it("authenticates a usable token with its extra groups", async () => {
    const r = await as("abcdef.0123456789abcdef");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ username: "system:bootstrap:abcdef", groups: ["system:bootstrappers", "system:bootstrappers:worker", "system:authenticated"] });
  });

  it.each([
    ["a wrong secret", "abcdef.0123456789abcdee"],
    ["an expired token", "expire.0123456789abcdef"],
    ["a token not meant for authentication", "nouse0.0123456789abcdef"],
    ["invalid extra groups", "badgrp.0123456789abcdef"],
    ["an unknown id", "zzzzzz.0123456789abcdef"],
    ["a secret of another type", "opaque.0123456789abcdef"],
    ["a malformed token", "ABCDEF.0123456789abcdef"],
  ])("answers 401 to %s", async (_what, token) => {
    const r = await as(token);
    expect(r.status).toBe(401);
    expect(r.text).not.toContain("0123456789abcd");
  });

  it("stops working once the secret is deleted", async () => {
    expect((await as("revoke.0123456789abcdef")).status).toBe(200);
    await srv.remove("secrets", profile.systemNamespace, "bootstrap-token-revoke");
    expect((await as("revoke.0123456789abcdef")).status).toBe(401);
  });
});
