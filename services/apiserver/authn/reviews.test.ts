import { generateKeyPairSync } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClientCert } from "../server/certs.ts";
import { defaultAuthenticationOptions } from "./options.ts";
import { parseSigningKey } from "./sa-keys.ts";
import { mintServiceAccountToken } from "./service-account.ts";
import { clusterPki, profile, startAuthServer, TempDir, type TestServer } from "./testing/harness.ts";

const group = profile.group("authentication");
const ISSUER = "https://issuer.review.test";

describe("TokenReview and SelfSubjectReview", () => {
  const dir = new TempDir();
  const key = generateKeyPairSync("ec", { namedCurve: "P-256", publicKeyEncoding: { type: "spki", format: "pem" }, privateKeyEncoding: { type: "pkcs8", format: "pem" } });
  let srv: TestServer;
  let uid: string;

  beforeAll(async () => {
    const o = defaultAuthenticationOptions();
    o.clientCaFile = dir.write("ca.crt", (await clusterPki()).ca.certPem);
    o.tokenAuthFile = dir.write("tokens.csv", "static-token-1234,alice,1,dev\n");
    o.serviceAccountSigningKeyFile = dir.write("sa.key", key.privateKey);
    o.serviceAccountIssuers = [ISSUER];
    o.apiAudiences = ["api"];
    srv = await startAuthServer(o);
    const acct = await srv.create("serviceaccounts", { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "reviewer", namespace: "default" } });
    uid = (acct.metadata as { uid: string }).uid;
  });
  afterAll(async () => {
    await srv.close();
    dir.remove();
  });

  const review = (spec: Record<string, unknown>, version = "v1") => srv.call({ path: "/tokenreview", body: { apiVersion: `${group}/${version}`, kind: "TokenReview", spec } });
  const mint = (audiences: string[]) =>
    mintServiceAccountToken({ profile, signingKey: parseSigningKey(key.privateKey), issuer: ISSUER, serviceAccount: { namespace: "default", name: "reviewer", uid }, audiences, expirationSeconds: 3600 });

  it("reviews a static token for the API audiences", async () => {
    const r = await review({ token: "static-token-1234" });
    expect(r.status).toBe(201);
    expect(r.body.apiVersion).toBe(`${group}/v1`);
    expect(r.body.status).toEqual({ authenticated: true, user: { username: "alice", uid: "1", groups: ["dev", "system:authenticated"] }, audiences: ["api"] });
  });

  it("answers in v1beta1 when asked in v1beta1", async () => {
    const r = await review({ token: "static-token-1234" }, "v1beta1");
    expect(r.body.apiVersion).toBe(`${group}/v1beta1`);
  });

  it("honours the requested audiences for service account tokens", async () => {
    const t = (await mint(["vault"])).token;
    const forVault = await review({ token: t, audiences: ["vault", "other"] });
    expect(forVault.body.status).toMatchObject({ authenticated: true, audiences: ["vault"], user: { username: "system:serviceaccount:default:reviewer" } });
    const forApi = await review({ token: t });
    expect((forApi.body.status as { authenticated: boolean }).authenticated).toBe(false);
  });

  it("does not accept audience-agnostic tokens for foreign audiences", async () => {
    const r = await review({ token: "static-token-1234", audiences: ["vault"] });
    expect((r.body.status as { authenticated: boolean }).authenticated).toBe(false);
  });

  it("reports an unknown token without echoing it in the error", async () => {
    const r = await review({ token: "who-knows-this" });
    const status = r.body.status as { authenticated: boolean; error: string };
    expect(status.authenticated).toBe(false);
    expect(status.error).not.toContain("who-knows-this");
  });

  it("refuses a review without a token", async () => {
    expect((await review({})).status).toBe(400);
  });

  it("tells the caller who it is", async () => {
    const client = await createClientCert((await clusterPki()).ca, { user: "carol", groups: ["qa"] });
    const r = await srv.call({ path: "/selfsubjectreview", client, body: { apiVersion: `${group}/v1`, kind: "SelfSubjectReview" } });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ kind: "SelfSubjectReview", apiVersion: `${group}/v1`, metadata: { creationTimestamp: null }, status: { userInfo: { username: "carol", groups: ["qa", "system:authenticated"] } } });
  });
});
