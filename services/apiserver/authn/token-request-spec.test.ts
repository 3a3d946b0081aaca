/**
 * TokenRequest `expirationSeconds` through HTTPS against a replica with a signing key:
 * the platform's bounds (422 below 10 minutes and above 2^32 seconds), decode errors
 * as 400, never a 500, and `--service-account-max-token-expiration` capping the expiry.
 */
import { generateKeyPairSync } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getProfile } from "../../../shared/platform/index.ts";
import { startTestApiserver, type TestApiserver } from "../../../test/support/apiserver.ts";
import type { HttpsClient } from "../../../test/support/https-client.ts";
import { defaultAuthenticationOptions } from "./options.ts";
import { TempDir } from "./testing/harness.ts";

const ADMIN_TOKEN = "token-request-admin-0123456789";
const ISSUER = "https://issuer.token-request.test";
const TOKEN_PATH = "/api/v1/namespaces/default/serviceaccounts/builder/token";

interface Started {
  api: TestApiserver;
  admin: HttpsClient;
}

async function start(dir: TempDir, maxTokenExpirationSeconds: number): Promise<Started> {
  const key = generateKeyPairSync("ec", { namedCurve: "P-256", publicKeyEncoding: { type: "spki", format: "pem" }, privateKeyEncoding: { type: "pkcs8", format: "pem" } });
  const authentication = defaultAuthenticationOptions();
  authentication.tokenAuthFile = dir.write(`tokens-${maxTokenExpirationSeconds}.csv`, `${ADMIN_TOKEN},admin,1,system:masters\n`);
  authentication.serviceAccountSigningKeyFile = dir.write(`sa-${maxTokenExpirationSeconds}.key`, key.privateKey);
  authentication.serviceAccountKeyFiles = [dir.write(`sa-${maxTokenExpirationSeconds}.pub`, key.publicKey)];
  authentication.serviceAccountIssuers = [ISSUER];
  authentication.serviceAccountMaxTokenExpiration = maxTokenExpirationSeconds;
  const api = await startTestApiserver({ security: { authentication, authorization: { modes: ["AlwaysAllow"] } } });
  const admin = api.admin.withIdentity({ token: ADMIN_TOKEN, cert: undefined, key: undefined });
  const sa = await admin.post("/api/v1/namespaces/default/serviceaccounts", { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "builder" } });
  expect(sa.status, sa.text).toBe(201);
  return { api, admin };
}

function tokenRequest(admin: HttpsClient, spec: Record<string, unknown>) {
  return admin.post(TOKEN_PATH, { apiVersion: getProfile().apiVersion("authentication", "v1"), kind: "TokenRequest", spec });
}

function expiresInSeconds(body: { status: { expirationTimestamp: string } }): number {
  return (Date.parse(body.status.expirationTimestamp) - Date.now()) / 1000;
}

describe("TokenRequest expirationSeconds", () => {
  const dir = new TempDir();
  let plain: Started;
  let capped: Started;
  beforeAll(async () => {
    plain = await start(dir, 0);
    capped = await start(dir, 7200);
  });
  afterAll(async () => {
    plain?.admin.close();
    capped?.admin.close();
    await plain?.api.close();
    await capped?.api.close();
    dir.remove();
  });

  it("defaults to an hour and accepts the bounds", async () => {
    const def = await tokenRequest(plain.admin, {});
    expect(def.status, def.text).toBe(201);
    expect(def.json()).toMatchObject({ kind: "TokenRequest", spec: { expirationSeconds: 3600 } });
    for (const expirationSeconds of [600, 2 ** 32]) {
      const ok = await tokenRequest(plain.admin, { expirationSeconds });
      expect(ok.status, ok.text).toBe(201);
      expect(ok.json()).toMatchObject({ spec: { expirationSeconds } });
    }
  });

  it("answers 422 below 10 minutes and above 2^32 seconds, negative values included", async () => {
    const group = plain.api.profile.group("authentication");
    const cases: Array<[number, string]> = [
      [1, "may not specify a duration less than 10 minutes"],
      [-5, "may not specify a duration less than 10 minutes"],
      [599, "may not specify a duration less than 10 minutes"],
      [2 ** 32 + 1, "may not specify a duration larger than 2^32 seconds"],
      [99999999999999, "may not specify a duration larger than 2^32 seconds"],
      [7200000000, "may not specify a duration larger than 2^32 seconds"],
    ];
    for (const [expirationSeconds, message] of cases) {
      const res = await tokenRequest(plain.admin, { expirationSeconds });
      expect(res.status, `${expirationSeconds}: ${res.text}`).toBe(422);
      expect(res.json()).toMatchObject({
        kind: "Status",
        code: 422,
        reason: "Invalid",
        message: `TokenRequest.${group} "" is invalid: spec.expirationSeconds: Invalid value: ${expirationSeconds}: ${message}`,
        details: { kind: "TokenRequest", group, causes: [{ reason: "FieldValueInvalid", field: "spec.expirationSeconds", message: `Invalid value: ${expirationSeconds}: ${message}` }] },
      });
    }
  });

  it("answers 400 to values that are not 64-bit integers", async () => {
    for (const expirationSeconds of ["3600", 1.5, 1e30, true]) {
      const res = await tokenRequest(plain.admin, { expirationSeconds });
      expect(res.status, `${String(expirationSeconds)}: ${res.text}`).toBe(400);
      expect(res.json()).toMatchObject({ kind: "Status", code: 400, reason: "BadRequest" });
    }
  });

  it("caps the expiry at --service-account-max-token-expiration", async () => {
    const long = await tokenRequest(capped.admin, { expirationSeconds: 86400 });
    expect(long.status, long.text).toBe(201);
    const body = long.json<{ spec: { expirationSeconds: number }; status: { expirationTimestamp: string } }>();
    expect(body.spec.expirationSeconds).toBe(7200);
    expect(expiresInSeconds(body)).toBeGreaterThan(7000);
    expect(expiresInSeconds(body)).toBeLessThanOrEqual(7200);
    const short = await tokenRequest(capped.admin, { expirationSeconds: 1800 });
    expect(short.json<{ spec: { expirationSeconds: number } }>().spec.expirationSeconds).toBe(1800);
  });
});
