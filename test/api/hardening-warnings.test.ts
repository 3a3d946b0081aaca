/**
 * The platform's warnings, read from the `Warning` header through HTTPS against a
 * replica with token authentication: `Authorization: Bearer  <token>` (extra space)
 * is ignored with a warning and the request is anonymous; a TokenRequest whose
 * expirationSeconds is above --service-account-max-token-expiration is shortened
 * with a warning.
 */
import { generateKeyPairSync } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultAuthenticationOptions } from "../../services/apiserver/authn/options.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { HttpsClient } from "../support/https-client.ts";

const TOKEN = "warnings-admin-token-0123456789";
const MAX_EXPIRATION = 7200;
const EXTRA_SPACE = '299 - "the provided Authorization header contains extra space before the bearer token, and is ignored"';

let dir: string;
let api: TestApiserver;
let bare: HttpsClient;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "warnings-"));
  const key = generateKeyPairSync("ec", { namedCurve: "P-256", publicKeyEncoding: { type: "spki", format: "pem" }, privateKeyEncoding: { type: "pkcs8", format: "pem" } });
  const file = async (name: string, text: string) => {
    await writeFile(join(dir, name), text);
    return join(dir, name);
  };
  const authentication = defaultAuthenticationOptions();
  authentication.tokenAuthFile = await file("tokens.csv", `${TOKEN},admin,1,system:masters\n`);
  authentication.serviceAccountSigningKeyFile = await file("sa.key", key.privateKey);
  authentication.serviceAccountKeyFiles = [await file("sa.pub", key.publicKey)];
  authentication.serviceAccountIssuers = ["https://issuer.warnings.test"];
  authentication.serviceAccountMaxTokenExpiration = MAX_EXPIRATION;
  authentication.anonymousAuth = true;
  api = await startTestApiserver({ security: { authentication, authorization: { modes: ["AlwaysAllow"] } } });
  bare = new HttpsClient(api.replica.url, { ca: api.ca });
  const sa = await bare.post("/api/v1/namespaces/default/serviceaccounts", { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "builder" } }, { authorization: `Bearer ${TOKEN}` });
  expect(sa.status, sa.text).toBe(201);
});

afterAll(async () => {
  bare?.close();
  await api?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Who the server takes the sender of `authorization` for, and the warnings it answers with. */
async function whoAmI(authorization: string): Promise<{ username: string; warning: string | undefined }> {
  const authn = api.profile.group("authentication");
  const r = await bare.post(`/apis/${authn}/v1/selfsubjectreviews`, { apiVersion: `${authn}/v1`, kind: "SelfSubjectReview" }, { authorization });
  expect(r.status, r.text).toBe(201);
  const warning = r.headers.warning;
  return { username: r.json<{ status: { userInfo: { username: string } } }>().status.userInfo.username, warning: Array.isArray(warning) ? warning.join(", ") : warning };
}

describe("Authorization header warnings", () => {
  it.each([
    ["one space: authenticated, no warning", `Bearer ${TOKEN}`, "admin", undefined],
    ["two spaces: anonymous, with the platform's warning", `Bearer  ${TOKEN}`, "system:anonymous", EXTRA_SPACE],
    ["lower-case scheme, two spaces: anonymous, warned", `bearer  ${TOKEN}`, "system:anonymous", EXTRA_SPACE],
    ["a tab: anonymous, no warning", `Bearer\t${TOKEN}`, "system:anonymous", undefined],
  ])("%s", async (_name, authorization, username, warning) => {
    const who = await whoAmI(authorization);
    expect(who.username).toBe(username);
    expect(who.warning).toBe(warning);
  });
});

describe("TokenRequest expiration warnings", () => {
  const path = "/api/v1/namespaces/default/serviceaccounts/builder/token";
  const request = (expirationSeconds: number) =>
    bare.post(path, { apiVersion: api.profile.apiVersion("authentication", "v1"), kind: "TokenRequest", spec: { expirationSeconds } }, { authorization: `Bearer ${TOKEN}` });

  it("shortens an expiration above the maximum with the platform's warning", async () => {
    const r = await request(10_000);
    expect(r.status, r.text).toBe(201);
    expect(r.headers.warning).toBe('299 - "requested expiration of 10000 seconds shortened to 7200 seconds"');
    expect(r.json<{ spec: { expirationSeconds: number } }>().spec.expirationSeconds).toBe(MAX_EXPIRATION);
  });

  it("keeps an expiration within the maximum without a warning", async () => {
    const r = await request(3600);
    expect(r.status, r.text).toBe(201);
    expect(r.headers.warning).toBeUndefined();
    expect(r.json<{ spec: { expirationSeconds: number } }>().spec.expirationSeconds).toBe(3600);
  });
});
