/**
 * Legacy (secret-based) service account tokens end to end, over HTTPS against a replica
 * with service account authentication, and the controller manager's legacy token
 * cleaner run in process as an ordinary API client:
 *
 * - the replica writes the tracking ConfigMap (`since` = today) at start-up;
 * - a token that authenticates gets today's last-used label on its Secret, once a day,
 *   and the client is warned when the token is auto-generated (listed by its account);
 * - a Secret with the invalid-since label refuses its token (401) until the label is removed;
 * - the uses are counted (`serviceaccount_*legacy*_token_uses_total`);
 * - the cleaner does nothing while tracking is younger than a day and a period; then an
 *   unused auto-generated token is marked invalid (and refused), and deleted a period
 *   later, while a recently used one, one a pod mounts and a manually created one are
 *   kept. Time is moved through the cleaner's clock setting; the period is one hour.
 */
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DAY_MS, utcDate } from "../../shared/api/calendar-date.ts";
import { HttpsObjectClient } from "../../shared/client/https-object-client.ts";
import { defaultAuthenticationOptions } from "../../services/apiserver/authn/options.ts";
import { parseSigningKey, type ServiceAccountSigningKey } from "../../services/apiserver/authn/sa-keys.ts";
import { mintLegacyServiceAccountToken } from "../../services/apiserver/authn/service-account.ts";
import { runControllers, type RunningControllers } from "../../services/controller-manager/controllers.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { HttpsClient, type HttpResponse } from "../support/https-client.ts";

const ADMIN = "admin-token-legacy-tokens";
const HOUR = 3_600_000;
const NS = "default";
let api: TestApiserver;
let admin: HttpsClient;
let dir: string;
let signingKey: ServiceAccountSigningKey;
let client: HttpsObjectClient | undefined;
let controllers: RunningControllers | undefined;

type Labels = Record<string, string>;
type Meta = { uid: string; resourceVersion: string; labels?: Labels };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "legacy-tokens-"));
  const keys = generateKeyPairSync("ec", { namedCurve: "P-256", privateKeyEncoding: { type: "pkcs8", format: "pem" }, publicKeyEncoding: { type: "spki", format: "pem" } });
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  const authentication = defaultAuthenticationOptions();
  authentication.tokenAuthFile = file("tokens.csv", `${ADMIN},admin,0,system:masters\n`);
  authentication.serviceAccountSigningKeyFile = file("sa.key", keys.privateKey);
  authentication.serviceAccountKeyFiles = [file("sa.pub", keys.publicKey)];
  authentication.serviceAccountIssuers = ["https://issuer.legacy.test"];
  signingKey = parseSigningKey(keys.privateKey);
  api = await startTestApiserver({ security: { authentication, authorization: { modes: ["AlwaysAllow"] } } });
  admin = new HttpsClient(api.replica.url, { ca: api.ca, token: ADMIN });
});
afterAll(async () => {
  controllers?.stop();
  client?.close();
  admin?.close();
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function until<T>(fn: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) return undefined;
    await new Promise((r) => setTimeout(r, 50));
  }
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A SelfSubjectReview with a bearer token. */
async function review(token: string): Promise<HttpResponse> {
  const c = new HttpsClient(api.replica.url, { ca: api.ca, token });
  try {
    const authn = api.profile.group("authentication");
    return await c.post(`/apis/${authn}/v1/selfsubjectreviews`, { apiVersion: `${authn}/v1`, kind: "SelfSubjectReview" });
  } finally {
    c.close();
  }
}

/** The user a bearer token authenticates as, or the HTTP status of a refusal. */
async function whoami(token: string): Promise<string | number> {
  const r = await review(token);
  return r.status === 201 ? r.json<{ status: { userInfo: { username: string } } }>().status.userInfo.username : r.status;
}

const AUTO_WARNING = '299 - "Use tokens from the TokenRequest API or manually created secret-based tokens instead of auto-generated secret-based tokens."';

async function secretMeta(name: string): Promise<Meta | undefined> {
  const r = await admin.get(`/api/v1/namespaces/${NS}/secrets/${name}`);
  return r.status === 200 ? r.json<{ metadata: Meta }>().metadata : undefined;
}
const labelOf = async (secret: string, key: string) => (await secretMeta(secret))?.labels?.[key];
const mergePatch = (path: string, body: unknown) => admin.patch(path, body, "application/merge-patch+json");

/** A service account listing `listed` in `secrets`, and token Secrets for it (their tokens, by Secret name). */
async function accountWithTokens(account: string, listed: string[], unlisted: string[] = []): Promise<Record<string, string>> {
  const sa = await admin.post(`/api/v1/namespaces/${NS}/serviceaccounts`, { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: account }, secrets: listed.map((name) => ({ name })) });
  expect(sa.status, sa.text).toBe(201);
  const uid = sa.json<{ metadata: Meta }>().metadata.uid;
  const tokens: Record<string, string> = {};
  for (const name of [...listed, ...unlisted]) {
    tokens[name] = await mintLegacyServiceAccountToken(api.profile, signingKey, { namespace: NS, name: account, uid }, name);
    const r = await admin.post(`/api/v1/namespaces/${NS}/secrets`, {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name, annotations: { [api.profile.annotations.serviceAccountName]: account, [api.profile.annotations.serviceAccountUid]: uid } },
      type: api.profile.secretTypes.serviceAccountToken,
      data: { token: Buffer.from(tokens[name]).toString("base64") },
    });
    expect(r.status, r.text).toBe(201);
  }
  return tokens;
}

describe("legacy token tracking in the API server", () => {
  it("writes the tracking ConfigMap with today's date at start-up", async () => {
    const r = await admin.get(`/api/v1/namespaces/${api.profile.systemNamespace}/configmaps/${api.profile.serviceAccount.legacyTokenTrackingConfigMap}`);
    expect(r.status, r.text).toBe(200);
    const since = r.json<{ data: Record<string, string> }>().data.since;
    expect([utcDate(Date.now()), utcDate(Date.now() - DAY_MS)]).toContain(since);
  });

  it("labels a used token's Secret with today's date, once a day", async () => {
    const { "builder-token": token } = await accountWithTokens("builder", ["builder-token"]);
    const lastUsed = api.profile.labels.legacyTokenLastUsed;
    expect(await labelOf("builder-token", lastUsed)).toBeUndefined();
    const first = await review(token);
    expect(first.json<{ status: { userInfo: { username: string } } }>().status.userInfo.username).toBe(`system:serviceaccount:${NS}:builder`);
    expect(first.headers.warning).toBe(AUTO_WARNING); // the account lists the Secret: an auto-generated token
    const today = utcDate(Date.now());
    expect(await until(async () => (await labelOf("builder-token", lastUsed)) === today)).toBe(true);
    const before = (await secretMeta("builder-token"))?.resourceVersion;
    for (let i = 0; i < 3; i++) expect(await whoami(token)).toBe(`system:serviceaccount:${NS}:builder`);
    await sleep(300);
    expect((await secretMeta("builder-token"))?.resourceVersion).toBe(before);
  });

  it("refuses the token of a Secret marked invalid, and takes it again once the label is removed", async () => {
    const { "marked-token": token } = await accountWithTokens("marked", ["marked-token"]);
    const invalid = api.profile.labels.legacyTokenInvalidSince;
    const path = `/api/v1/namespaces/${NS}/secrets/marked-token`;
    expect((await mergePatch(path, { metadata: { labels: { [invalid]: "2026-01-01" } } })).status).toBe(200);
    expect(await whoami(token)).toBe(401);
    expect((await mergePatch(path, { metadata: { labels: { [invalid]: null } } })).status).toBe(200);
    expect(await whoami(token)).toBe(`system:serviceaccount:${NS}:marked`);
  });

  it("counts the uses under the platform's metric names", async () => {
    const text = (await admin.get("/metrics")).text;
    const value = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, "m").exec(text)?.[1]);
    // builder-token: 4 uses, marked-token: 1 refused use and 1 use; all listed by their accounts.
    expect(value("serviceaccount_legacy_auto_token_uses_total")).toBe(5);
    expect(value("serviceaccount_invalid_legacy_auto_token_uses_total")).toBe(1);
    expect(value("serviceaccount_legacy_manual_token_uses_total")).toBe(0);
  });
});

describe("legacy-serviceaccount-token-cleaner-controller", () => {
  let offsetMs = HOUR + 2000;

  it("acts only after tracking has run a day and a period; then marks unused tokens invalid and deletes them a period later", async () => {
    const invalid = api.profile.labels.legacyTokenInvalidSince;
    const tokens = await accountWithTokens("cleanup", ["unused-token", "used-token", "mounted-token"], ["manual-token"]);
    const pod = await admin.post(`/api/v1/namespaces/${NS}/pods`, {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "mounts-token" },
      spec: { serviceAccountName: "cleanup", containers: [{ name: "app", image: "busybox" }], volumes: [{ name: "t", secret: { secretName: "mounted-token" } }] },
    });
    expect(pod.status, pod.text).toBe(201);
    expect(await whoami(tokens["used-token"])).toBe(`system:serviceaccount:${NS}:cleanup`);
    const manual = await review(tokens["manual-token"]);
    expect(manual.status).toBe(201);
    expect(manual.headers.warning).toBeUndefined(); // not listed by the account: a manually created token
    expect(await until(async () => !!(await labelOf("used-token", api.profile.labels.legacyTokenLastUsed)))).toBe(true);

    client = new HttpsObjectClient({ server: api.replica.url, ca: api.ca, token: ADMIN, insecureSkipTlsVerify: false });
    controllers = await runControllers(client, {
      controllers: ["legacy-service-account-token-cleaner"],
      namespaceFinalizer: api.profile.namespaceFinalizer,
      profile: api.profile,
      settings: { legacyTokenCleanUpPeriodMs: HOUR, legacyTokenCleanerSyncIntervalMs: 100, legacyTokenCleanerClock: () => Date.now() + offsetMs },
    });
    expect(controllers.names).toEqual(["legacy-serviceaccount-token-cleaner-controller"]);

    // Tracking began today: a day and a period have not passed, whatever the tokens' age.
    await sleep(600);
    expect(await labelOf("unused-token", invalid)).toBeUndefined();

    // Tracking began ten days ago: the unused auto-generated token is marked invalid today (by the cleaner's clock).
    const cm = `/api/v1/namespaces/${api.profile.systemNamespace}/configmaps/${api.profile.serviceAccount.legacyTokenTrackingConfigMap}`;
    expect((await mergePatch(cm, { data: { since: utcDate(Date.now() - 10 * DAY_MS) } })).status).toBe(200);
    expect(await until(async () => (await labelOf("unused-token", invalid)) === utcDate(Date.now() + offsetMs))).toBe(true);
    await sleep(300);
    for (const kept of ["used-token", "mounted-token", "manual-token"]) expect(await labelOf(kept, invalid), kept).toBeUndefined();
    expect(await whoami(tokens["unused-token"])).toBe(401);

    // Two days on: the invalid token goes; the used one, now unused for a period, is marked; mounted and manual ones stay.
    offsetMs = 2 * DAY_MS;
    expect(await until(async () => (await secretMeta("unused-token")) === undefined)).toBe(true);
    expect(await until(async () => !!(await labelOf("used-token", invalid)))).toBe(true);
    await sleep(300);
    expect(await secretMeta("used-token")).toBeDefined();
    for (const kept of ["mounted-token", "manual-token"]) {
      expect(await secretMeta(kept), kept).toBeDefined();
      expect(await labelOf(kept, invalid), kept).toBeUndefined();
    }
  });
});
