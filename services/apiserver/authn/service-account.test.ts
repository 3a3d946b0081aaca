import { generateKeyPairSync } from "node:crypto";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultAuthenticationOptions, type AuthenticationOptions } from "./options.ts";
import { parsePublicKeys, parseSigningKey, type ServiceAccountSigningKey } from "./sa-keys.ts";
import { mintLegacyServiceAccountToken, mintServiceAccountToken, parseServiceAccountUsername } from "./service-account.ts";
import { profile, startAuthServer, TempDir, type TestServer } from "./testing/harness.ts";

const ISSUER = "https://issuer.cluster.test";
const sa = profile.serviceAccount;

function ecKey() {
  return generateKeyPairSync("ec", { namedCurve: "P-256", publicKeyEncoding: { type: "spki", format: "pem" }, privateKeyEncoding: { type: "pkcs8", format: "pem" } });
}
function rsaKey() {
  return generateKeyPairSync("rsa", { modulusLength: 2048, publicKeyEncoding: { type: "spki", format: "pem" }, privateKeyEncoding: { type: "pkcs1", format: "pem" } });
}

const uidOf = (o: Record<string, unknown>) => (o.metadata as { uid: string }).uid;

describe("service account keys (pure)", () => {
  it("reads several public keys of a file and gives the key id of the private key's public half", () => {
    const a = ecKey();
    const b = rsaKey();
    const keys = parsePublicKeys(a.publicKey + b.privateKey);
    expect(keys.map((k) => k.algorithms[0])).toEqual(["ES256", "RS256"]);
    const signing = parseSigningKey(a.privateKey);
    expect(signing.alg).toBe("ES256");
    expect(signing.kid).toBe(keys[0].kid);
    expect(() => parsePublicKeys("no keys")).toThrow(/no public or private key/);
  });
  it("parses service account user names", () => {
    expect(parseServiceAccountUsername("system:serviceaccount:ns:name")).toEqual({ namespace: "ns", name: "name" });
    expect(parseServiceAccountUsername("system:serviceaccount:ns")).toBeUndefined();
    expect(parseServiceAccountUsername("jane")).toBeUndefined();
  });
});

describe("service account tokens over HTTPS", () => {
  const dir = new TempDir();
  const signing = ecKey();
  const rsa = rsaKey();
  const stranger = ecKey();
  let strangerKey: ServiceAccountSigningKey;
  let rsaSigning: ServiceAccountSigningKey;
  let srv: TestServer;
  let builder: Record<string, unknown>;

  function options(): AuthenticationOptions {
    const o = defaultAuthenticationOptions();
    o.serviceAccountSigningKeyFile = dir.write("sa.key", signing.privateKey);
    o.serviceAccountKeyFiles = [dir.write("sa.pub", signing.publicKey), dir.write("rsa.pub", rsa.publicKey)];
    o.serviceAccountIssuers = [ISSUER];
    return o;
  }

  beforeAll(async () => {
    strangerKey = parseSigningKey(stranger.privateKey);
    rsaSigning = parseSigningKey(rsa.privateKey);
    srv = await startAuthServer(options());
    builder = await srv.create("serviceaccounts", { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "builder", namespace: "default" } });
  });
  afterAll(async () => {
    await srv.close();
    dir.remove();
  });

  const as = (token: string) => srv.call({ headers: { authorization: `Bearer ${token}` } });
  const mint = (extra: Partial<Parameters<typeof mintServiceAccountToken>[0]> = {}) =>
    mintServiceAccountToken({
      profile,
      signingKey: parseSigningKey(signing.privateKey),
      issuer: ISSUER,
      serviceAccount: { namespace: "default", name: "builder", uid: uidOf(builder) },
      audiences: [ISSUER],
      expirationSeconds: 3600,
      ...extra,
    });

  it("authenticates a minted token with the claim layout of the platform", async () => {
    const t = await srv.auth.serviceAccountTokens!.mint({ serviceAccount: { namespace: "default", name: "builder", uid: uidOf(builder) }, audiences: [ISSUER], expirationSeconds: 3600 });
    const payload = JSON.parse(Buffer.from(t.token.split(".")[1], "base64url").toString()) as Record<string, unknown>;
    expect(Object.keys(payload).sort()).toEqual(["aud", "exp", "iat", "iss", "jti", "nbf", sa.privateClaim, "sub"].sort());
    expect(payload.sub).toBe("system:serviceaccount:default:builder");
    expect(payload[sa.privateClaim]).toEqual({ namespace: "default", serviceaccount: { name: "builder", uid: uidOf(builder) } });
    expect(t.expirationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const r = await as(t.token);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      username: "system:serviceaccount:default:builder",
      uid: uidOf(builder),
      groups: ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"],
      extra: { [sa.extraCredentialId]: [`JTI=${t.jti}`] },
    });
  });

  it("accepts a token signed by an RSA verification key", async () => {
    const t = await mint({ signingKey: rsaSigning });
    expect((await as(t.token)).status).toBe(200);
  });

  it("binds a token to a pod: extras, then revoked when the pod is gone", async () => {
    const pod = await srv.create("pods", { apiVersion: "v1", kind: "Pod", metadata: { name: "p1", namespace: "default" }, spec: { serviceAccountName: "builder", containers: [{ name: "c", image: "busybox" }] } });
    const t = await mint({ pod: { name: "p1", uid: uidOf(pod) }, node: { name: "n1", uid: "node-uid" } });
    const r = await as(t.token);
    expect(r.status).toBe(200);
    const extra = r.body.extra as Record<string, string[]>;
    expect(extra[sa.extraPodName]).toEqual(["p1"]);
    expect(extra[sa.extraPodUid]).toEqual([uidOf(pod)]);
    expect(extra[sa.extraNodeName]).toEqual(["n1"]);
    await srv.remove("pods", "default", "p1");
    expect((await as(t.token)).status).toBe(401);
  });

  it("binds a token to a secret and revokes it when the secret is replaced", async () => {
    const s = await srv.create("secrets", { apiVersion: "v1", kind: "Secret", metadata: { name: "bound", namespace: "default" } });
    const t = await mint({ secret: { name: "bound", uid: uidOf(s) } });
    expect((await as(t.token)).status).toBe(200);
    await srv.remove("secrets", "default", "bound");
    await srv.create("secrets", { apiVersion: "v1", kind: "Secret", metadata: { name: "bound", namespace: "default" } });
    expect((await as(t.token)).status).toBe(401);
  });

  it("answers 401 to an expired token", async () => {
    const t = await mint({ now: new Date(Date.now() - 2 * 3600_000), expirationSeconds: 600 });
    expect((await as(t.token)).status).toBe(401);
  });

  it("answers 401 to a token not yet valid", async () => {
    const t = await mint({ now: new Date(Date.now() + 3600_000) });
    expect((await as(t.token)).status).toBe(401);
  });

  it("answers 401 to a token signed by an unknown key (even with a known key id)", async () => {
    const t = await mint({ signingKey: { ...strangerKey, kid: parseSigningKey(signing.privateKey).kid } });
    expect((await as(t.token)).status).toBe(401);
  });

  it("answers 401 to a token for another audience", async () => {
    const t = await mint({ audiences: ["vault"] });
    expect((await as(t.token)).status).toBe(401);
  });

  it("answers 401 to a token of another issuer", async () => {
    const t = await mint({ issuer: "https://elsewhere.test" });
    expect((await as(t.token)).status).toBe(401);
  });

  it("answers 401 to malformed tokens", async () => {
    const t = (await mint()).token;
    const [h, p, s] = t.split(".");
    expect((await as(t.slice(0, -12))).status).toBe(401); // truncated signature
    expect((await as(`${h}.${p}`)).status).toBe(401); // missing part
    expect((await as(`${h}.${p.slice(0, 10)}*${p.slice(11)}.${s}`)).status).toBe(401); // bad base64
    const bigHeader = Buffer.from(JSON.stringify({ alg: "ES256", kid: "k".repeat(8000) })).toString("base64url");
    expect((await as(`${bigHeader}.${p}.${s}`)).status).toBe(401); // oversized JOSE header
  });

  it("refuses a header larger than the server accepts", async () => {
    const r = await srv.call({ headers: { authorization: `Bearer ${"a".repeat(20_000)}` } });
    expect(r.status).toBe(431);
  });

  it("revokes tokens of a deleted service account, and of one recreated with a new uid", async () => {
    const acct = await srv.create("serviceaccounts", { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "temp", namespace: "default" } });
    const t = await mint({ serviceAccount: { namespace: "default", name: "temp", uid: uidOf(acct) } });
    expect((await as(t.token)).status).toBe(200);
    await srv.remove("serviceaccounts", "default", "temp");
    expect((await as(t.token)).status).toBe(401);
    await srv.create("serviceaccounts", { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "temp", namespace: "default" } });
    expect((await as(t.token)).status).toBe(401);
  });

  it("honours a legacy secret-based token while its secret holds it", async () => {
    const token = await mintLegacyServiceAccountToken(profile, parseSigningKey(signing.privateKey), { namespace: "default", name: "builder", uid: uidOf(builder) }, "builder-token");
    await srv.create("secrets", {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "builder-token", namespace: "default", annotations: { [profile.annotations.serviceAccountName]: "builder", [profile.annotations.serviceAccountUid]: uidOf(builder) } },
      type: profile.secretTypes.serviceAccountToken,
      data: { token: Buffer.from(token).toString("base64") },
    });
    const r = await as(token);
    expect(r.status).toBe(200);
    expect(r.body.username).toBe("system:serviceaccount:default:builder");
    await srv.remove("secrets", "default", "builder-token");
    expect((await as(token)).status).toBe(401);
  });

  it("refuses a JWT with alg none", async () => {
    const t = (await mint()).token;
    const none = `${Buffer.from(JSON.stringify({ alg: "none" })).toString("base64url")}.${t.split(".")[1]}.`;
    expect((await as(none)).status).toBe(401);
  });

  it("refuses an HMAC token keyed with the public key", async () => {
    const forged = await new SignJWT({ [sa.privateClaim]: { namespace: "default", serviceaccount: { name: "builder", uid: uidOf(builder) } } })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer(ISSUER)
      .setAudience(ISSUER)
      .setExpirationTime("1h")
      .sign(Buffer.from(signing.publicKey));
    expect((await as(forged)).status).toBe(401);
  });

  it("without lookup, accepts a token of a deleted account", async () => {
    const o = options();
    o.serviceAccountLookup = false;
    const other = await startAuthServer(o);
    try {
      const t = await mint({ serviceAccount: { namespace: "default", name: "gone", uid: "uid-gone" } });
      const r = await other.call({ headers: { authorization: `Bearer ${t.token}` } });
      expect(r.status).toBe(200);
      expect(r.body.username).toBe("system:serviceaccount:default:gone");
    } finally {
      await other.close();
    }
  });

  it("clamps the lifetime to the maximum", async () => {
    const t = await mintServiceAccountToken({
      profile,
      signingKey: parseSigningKey(signing.privateKey),
      issuer: ISSUER,
      serviceAccount: { namespace: "default", name: "builder", uid: uidOf(builder) },
      audiences: [ISSUER],
      expirationSeconds: 100_000,
      maxExpirationSeconds: 3600,
      now: new Date("2030-01-01T00:00:00Z"),
    });
    expect(t.expirationTimestamp).toBe("2030-01-01T01:00:00Z");
  });
});
