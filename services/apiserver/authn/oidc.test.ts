import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { writeFileSync } from "node:fs";
import { exportJWK, SignJWT, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MetricsRegistry } from "../../../shared/observability/metrics.ts";
import { buildAuthenticator } from "./build.ts";
import { RELOAD_TIMESTAMP_METRIC } from "./config-controller.ts";
import { RemoteKeySet } from "./jwks.ts";
import { defaultAuthenticationOptions, type AuthenticationOptions } from "./options.ts";
import { profile, startAuthServer, startLocalHttps, TempDir, type LocalHttps, type TestServer } from "./testing/harness.ts";

interface Provider {
  https: LocalHttps;
  url: string;
  keys: JWK[];
  discoveryHits: number;
  sign(claims: Record<string, unknown>, o?: { key?: KeyObject; kid?: string; alg?: string }): Promise<string>;
}

const rsa = () => generateKeyPairSync("rsa", { modulusLength: 2048 });
const ec = () => generateKeyPairSync("ec", { namedCurve: "P-256" });

async function startProvider(): Promise<Provider> {
  const main = rsa();
  const ecKey = ec();
  const keys: JWK[] = [
    { ...(await exportJWK(main.publicKey)), kid: "main", alg: "RS256", use: "sig" },
    { ...(await exportJWK(ecKey.publicKey)), kid: "ec", alg: "ES256", use: "sig" },
  ];
  const p: Provider = {
    https: undefined as unknown as LocalHttps,
    url: "",
    keys,
    discoveryHits: 0,
    async sign(claims, o = {}) {
      const alg = o.alg ?? "RS256";
      const key = o.key ?? (alg === "ES256" ? ecKey.privateKey : main.privateKey);
      return new SignJWT(claims).setProtectedHeader({ alg, kid: o.kid ?? (alg === "ES256" ? "ec" : "main") }).sign(key);
    },
  };
  p.https = await startLocalHttps((req, res) => {
    res.setHeader("content-type", "application/json");
    if (req.url === "/.well-known/openid-configuration") {
      p.discoveryHits++;
      res.end(JSON.stringify({ issuer: p.url, jwks_uri: `${p.url}/keys` }));
    } else if (req.url === "/keys") res.end(JSON.stringify({ keys: p.keys }));
    else {
      res.statusCode = 404;
      res.end("{}");
    }
  });
  p.url = p.https.url;
  return p;
}

const nowS = () => Math.floor(Date.now() / 1000);

describe("OIDC by command-line flags", () => {
  const dir = new TempDir();
  let provider: Provider;
  let srv: TestServer;

  beforeAll(async () => {
    provider = await startProvider();
    const o = defaultAuthenticationOptions();
    o.oidc.issuerUrl = provider.url;
    o.oidc.clientId = "cluster-client";
    o.oidc.groupsClaim = "groups";
    o.oidc.groupsPrefix = "oidc:";
    o.oidc.requiredClaims = { hd: "example.com" };
    o.oidc.caFile = dir.write("oidc-ca.crt", provider.https.ca.certPem);
    srv = await startAuthServer(o);
  });
  afterAll(async () => {
    await srv.close();
    await provider.https.close();
    dir.remove();
  });

  const good = () => ({ iss: provider.url, aud: "cluster-client", sub: "user-1", hd: "example.com", groups: ["dev"], exp: nowS() + 600, iat: nowS() });
  const as = (token: string) => srv.call({ headers: { authorization: `Bearer ${token}` } });

  it("authenticates an ID token: issuer-prefixed subject, prefixed groups", async () => {
    const r = await as(await provider.sign(good()));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ username: `${provider.url}#user-1`, groups: ["oidc:dev", "system:authenticated"] });
  });

  it("accepts an audience list that holds the client id", async () => {
    expect((await as(await provider.sign({ ...good(), aud: ["other", "cluster-client"] }))).status).toBe(200);
  });

  it.each([
    ["an expired token", { exp: nowS() - 10 }],
    ["a token for another client", { aud: "someone-else" }],
    ["a token without the required claim", { hd: undefined }],
    ["a token with a wrong required claim value", { hd: "evil.com" }],
    ["a token without exp", { exp: undefined }],
    ["a token of another issuer", { iss: "https://other-issuer.test" }],
    ["groups that are not strings", { groups: [1, 2] }],
  ])("answers 401 to %s", async (_w, patch) => {
    const claims: Record<string, unknown> = { ...good(), ...patch };
    for (const k of Object.keys(claims)) if (claims[k] === undefined) delete claims[k];
    expect((await as(await provider.sign(claims))).status).toBe(401);
  });

  it("answers 401 to a token signed by another key under a known key id", async () => {
    expect((await as(await provider.sign(good(), { key: rsa().privateKey, kid: "main" }))).status).toBe(401);
  });

  it("answers 401 to an algorithm outside --oidc-signing-algs (default RS256)", async () => {
    expect((await as(await provider.sign(good(), { alg: "ES256" }))).status).toBe(401);
  });

  it("answers 401 to a truncated token", async () => {
    const t = await provider.sign(good());
    expect((await as(t.slice(0, t.length - 20))).status).toBe(401);
  });
});

describe("OIDC email claim", () => {
  it("requires email_verified to be true when present", async () => {
    const dir = new TempDir();
    const provider = await startProvider();
    const o = defaultAuthenticationOptions();
    o.oidc.issuerUrl = provider.url;
    o.oidc.clientId = "c";
    o.oidc.usernameClaim = "email";
    o.oidc.caFile = dir.write("ca.crt", provider.https.ca.certPem);
    const srv = await startAuthServer(o);
    try {
      const base = { iss: provider.url, aud: "c", sub: "x", email: "jane@example.com", exp: nowS() + 600 };
      const ok = await srv.call({ headers: { authorization: `Bearer ${await provider.sign({ ...base, email_verified: true })}` } });
      expect(ok.body.username).toBe("jane@example.com");
      const absent = await srv.call({ headers: { authorization: `Bearer ${await provider.sign(base)}` } });
      expect(absent.status).toBe(200);
      const unverified = await srv.call({ headers: { authorization: `Bearer ${await provider.sign({ ...base, email_verified: false })}` } });
      expect(unverified.status).toBe(401);
    } finally {
      await srv.close();
      await provider.https.close();
      dir.remove();
    }
  });
});

describe("OIDC provider problems", () => {
  it("refuses a provider whose certificate is not signed by the configured CA", async () => {
    const dir = new TempDir();
    const provider = await startProvider();
    const unrelated = await startProvider();
    const o = defaultAuthenticationOptions();
    o.oidc.issuerUrl = provider.url;
    o.oidc.clientId = "c";
    o.oidc.caFile = dir.write("ca.crt", unrelated.https.ca.certPem);
    const srv = await startAuthServer(o);
    try {
      const t = await provider.sign({ iss: provider.url, aud: "c", sub: "x", exp: nowS() + 600 });
      expect((await srv.call({ headers: { authorization: `Bearer ${t}` } })).status).toBe(401);
    } finally {
      await srv.close();
      await provider.https.close();
      await unrelated.https.close();
      dir.remove();
    }
  });

  it("refuses keys when the discovered issuer differs from the configured one", async () => {
    const provider = await startProvider();
    try {
      const ks = new RemoteKeySet({ issuer: `${provider.url}/tenant`, discoveryURL: `${provider.url}/.well-known/openid-configuration`, ca: provider.https.ca.certPem });
      await expect(ks.resolver("main")).rejects.toThrow(/issuer did not match/);
    } finally {
      await provider.https.close();
    }
  });

  it("refetches the key set for an unknown key id after the cool-down", async () => {
    const provider = await startProvider();
    try {
      let now = 1_000_000;
      const ks = new RemoteKeySet({ issuer: provider.url, ca: provider.https.ca.certPem, cooldownMs: 1000, now: () => now });
      await ks.resolver("main");
      expect(provider.discoveryHits).toBe(1);
      await ks.resolver("rotated");
      expect(provider.discoveryHits).toBe(1); // within the cool-down
      now += 2000;
      await ks.resolver("rotated");
      expect(provider.discoveryHits).toBe(2);
      await ks.resolver("main");
      expect(provider.discoveryHits).toBe(2); // known id: cached
    } finally {
      await provider.https.close();
    }
  });
});

function configDoc(provider: Provider, usernamePrefix: string, anonymous = true): string {
  return JSON.stringify({
    apiVersion: `${profile.group("apiserverConfig")}/v1`,
    kind: "AuthenticationConfiguration",
    jwt: [
      {
        issuer: { url: provider.url, certificateAuthority: provider.https.ca.certPem, audiences: ["cluster-a", "cluster-b"], audienceMatchPolicy: "MatchAny" },
        claimValidationRules: [{ expression: 'claims.hd == "example.com"', message: "the hosted domain must be example.com" }],
        claimMappings: {
          username: { expression: `"${usernamePrefix}" + claims.sub` },
          groups: { expression: 'claims.roles.map(r, "role:" + r)' },
          uid: { claim: "uid" },
          extra: [{ key: "example.com/tenant", valueExpression: "claims.tenant" }],
        },
        userValidationRules: [{ expression: '!user.username.endsWith(":root")', message: "root may not log in" }],
      },
    ],
    ...(anonymous ? { anonymous: { enabled: true, conditions: [{ path: "/livez" }] } } : {}),
  });
}

describe("OIDC by authentication configuration file", () => {
  const dir = new TempDir();
  let provider: Provider;
  let srv: TestServer;
  let path: string;
  const metrics = new MetricsRegistry({ currentVersion: "1.35" });

  beforeAll(async () => {
    provider = await startProvider();
    path = dir.write("authn.json", configDoc(provider, "oidc:"));
    const o = defaultAuthenticationOptions();
    o.authenticationConfig = path;
    srv = await startAuthServer(o, { deps: { metrics, configReloadIntervalMs: 100, apiserverId: "replica-1" } });
  });
  afterAll(async () => {
    await srv.close();
    await provider.https.close();
    dir.remove();
  });

  const claims = (extra: Record<string, unknown> = {}) => ({ iss: provider.url, aud: ["cluster-b"], sub: "jane", uid: "u-7", hd: "example.com", roles: ["dev", "ops"], tenant: "t1", exp: nowS() + 600, ...extra });
  const as = async (c: Record<string, unknown>) => srv.call({ headers: { authorization: `Bearer ${await provider.sign(c)}` } });

  it("maps claims with CEL expressions and claims", async () => {
    const r = await as(claims());
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ username: "oidc:jane", uid: "u-7", groups: ["role:dev", "role:ops", "system:authenticated"], extra: { "example.com/tenant": ["t1"] } });
  });

  it("answers 401 when a claim validation rule fails", async () => {
    expect((await as(claims({ hd: "evil.com" }))).status).toBe(401);
  });

  it("answers 401 when a user validation rule fails", async () => {
    expect((await as(claims({ sub: "x:root" }))).status).toBe(401);
  });

  it("answers 401 when an expression cannot be evaluated (missing claim)", async () => {
    const c = claims();
    delete (c as Record<string, unknown>).roles;
    expect((await as(c)).status).toBe(401);
  });

  it("answers 401 to a token for none of the audiences", async () => {
    expect((await as(claims({ aud: "cluster-c" }))).status).toBe(401);
  });

  it("allows anonymous requests only on the listed paths", async () => {
    expect((await srv.call({ path: "/livez" })).status).toBe(200);
    expect((await srv.call({ path: "/whoami" })).status).toBe(401);
  });

  it("reloads the file when it changes, keeps the last good one when the new one is invalid, and records both", async () => {
    writeFileSync(path, configDoc(provider, "sso:", false));
    const deadline = Date.now() + 10_000;
    let r = await as(claims());
    while (r.body.username !== "sso:jane" && Date.now() < deadline) {
      await new Promise((res) => setTimeout(res, 50));
      r = await as(claims());
    }
    expect(r.body.username).toBe("sso:jane");
    // anonymous section removed: the flag default (on) applies again
    expect((await srv.call({ path: "/whoami" })).status).toBe(200);
    let text = await metrics.text();
    expect(text).toMatch(new RegExp(`${RELOAD_TIMESTAMP_METRIC}\\{status="success",apiserver_id_hash="sha256:[0-9a-f]{64}"\\} \\d`));

    writeFileSync(path, "kind: AuthenticationConfiguration\njwt: {}\n");
    const until = Date.now() + 10_000;
    while (!(await metrics.text()).includes('status="failure"') && Date.now() < until) await new Promise((res) => setTimeout(res, 50));
    text = await metrics.text();
    expect(text).toContain(`${RELOAD_TIMESTAMP_METRIC}{status="failure"`);
    expect((await as(claims())).body.username).toBe("sso:jane");
  });
});

describe("start-up checks", () => {
  it("refuses both --authentication-config and --oidc-* flags", async () => {
    const o: AuthenticationOptions = defaultAuthenticationOptions();
    o.authenticationConfig = "/nonexistent";
    o.oidc.issuerUrl = "https://issuer.test";
    o.oidc.clientId = "c";
    await expect(buildAuthenticator(o, { profile })).rejects.toThrow(/mutually exclusive/);
  });

  it("refuses an invalid configuration file at start", async () => {
    const dir = new TempDir();
    try {
      const o = defaultAuthenticationOptions();
      o.authenticationConfig = dir.write("bad.yaml", `apiVersion: ${profile.group("apiserverConfig")}/v1\nkind: AuthenticationConfiguration\njwt:\n- issuer: {url: "http://x"}\n`);
      await expect(buildAuthenticator(o, { profile })).rejects.toThrow(/URL scheme must be https/);
    } finally {
      dir.remove();
    }
  });

  it("refuses anonymous in the file when --anonymous-auth is given", async () => {
    const dir = new TempDir();
    try {
      const o = defaultAuthenticationOptions();
      o.anonymousAuth = true;
      o.authenticationConfig = dir.write("anon.yaml", `apiVersion: ${profile.group("apiserverConfig")}/v1\nkind: AuthenticationConfiguration\nanonymous: {enabled: true}\n`);
      await expect(buildAuthenticator(o, { profile })).rejects.toThrow(/anonymous-auth/);
    } finally {
      dir.remove();
    }
  });
});
