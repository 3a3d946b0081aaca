import type { TLSSocket } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClientCert, type KeyPairPem } from "../server/certs.ts";
import { parseAuthenticationOptions } from "./options.ts";
import { clusterPki, profile, startAuthServer, startLocalHttps, TempDir, type LocalHttps, type TestServer } from "./testing/harness.ts";
import { parseWebhookClientConfig, TokenWebhookAuthenticator } from "./webhook.ts";

const group = profile.group("authentication");

interface Seen {
  apiVersion: string;
  token: string;
  audiences?: string[];
  clientCn?: string;
}

async function startWebhook(answerVersion?: string): Promise<{ https: LocalHttps; seen: Seen[] }> {
  const seen: Seen[] = [];
  const { ca } = await clusterPki();
  const https = await startLocalHttps(
    (req, res, body) => {
      const review = JSON.parse(body) as { apiVersion: string; spec: { token: string; audiences?: string[] } };
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      seen.push({ apiVersion: review.apiVersion, token: review.spec.token, audiences: review.spec.audiences, clientCn: peer?.subject?.CN as string | undefined });
      const status =
        review.spec.token === "good-token"
          ? { authenticated: true, user: { username: "webhook-user", uid: "w-1", groups: ["wg"], extra: { "example.com/scope": ["a", "b"] } } }
          : review.spec.token === "error-token"
            ? { authenticated: false, error: "token revoked by the service" }
            : { authenticated: false };
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ apiVersion: answerVersion ?? review.apiVersion, kind: "TokenReview", status }));
    },
    { requestCert: true, clientCa: ca.certPem },
  );
  return { https, seen };
}

function kubeconfig(server: string, caFile: string, certFile: string, keyFile: string): string {
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "- name: authn",
    "  cluster:",
    `    server: ${server}`,
    `    certificate-authority: ${caFile}`,
    "users:",
    "- name: apiserver",
    "  user:",
    `    client-certificate: ${certFile}`,
    `    client-key: ${keyFile}`,
    "contexts:",
    "- name: webhook",
    "  context: {cluster: authn, user: apiserver}",
    "current-context: webhook",
    "",
  ].join("\n");
}

describe("token webhook client configuration", () => {
  it("requires https", () => {
    expect(() => parseWebhookClientConfig("clusters:\n- name: a\n  cluster: {server: 'http://127.0.0.1:1'}\n", "/")).toThrow(/must use https/);
  });
  it("refuses query parameters", () => {
    expect(() => parseWebhookClientConfig("clusters:\n- name: a\n  cluster: {server: 'https://h/x?y=1'}\n", "/")).toThrow(/query/);
  });
  it("reads embedded data and the current context", () => {
    const text = [
      "clusters:",
      "- {name: x, cluster: {server: 'https://x.test'}}",
      `- {name: y, cluster: {server: 'https://y.test/authn', certificate-authority-data: ${Buffer.from("CA").toString("base64")}}}`,
      "users:",
      "- {name: u, user: {token: tok}}",
      "contexts:",
      "- {name: c, context: {cluster: y, user: u}}",
      "current-context: c",
    ].join("\n");
    expect(parseWebhookClientConfig(text, "/")).toEqual({ server: "https://y.test/authn", ca: "CA", bearerToken: "tok" });
  });
});

describe("token webhook over HTTPS", () => {
  const dir = new TempDir();
  let hook: { https: LocalHttps; seen: Seen[] };
  let srv: TestServer;
  let client: KeyPairPem;

  /** A server configured through its flags; without `version`, --authentication-token-webhook-version keeps its default. */
  async function server(version?: "v1" | "v1beta1", ttl = "2m", url?: string): Promise<TestServer> {
    const configFile = dir.write(`hook-${version ?? "default"}-${ttl}.yaml`, kubeconfig(url ?? hook.https.url, dir.write("hook-ca.crt", hook.https.ca.certPem), dir.write("client.crt", client.certPem), dir.write("client.key", client.keyPem)));
    const flags = ["--api-audiences=api", `--authentication-token-webhook-config-file=${configFile}`, `--authentication-token-webhook-cache-ttl=${ttl}`];
    return startAuthServer(parseAuthenticationOptions(version ? [...flags, `--authentication-token-webhook-version=${version}`] : flags));
  }

  beforeAll(async () => {
    hook = await startWebhook();
    client = await createClientCert((await clusterPki()).ca, { user: "apiserver-webhook-client" });
    srv = await server();
  });
  afterAll(async () => {
    await srv.close();
    await hook.https.close();
    dir.remove();
  });

  const as = (s: TestServer, token: string) => s.call({ headers: { authorization: `Bearer ${token}` } });

  it("authenticates through the service with a v1beta1 review (the flag's default) and the client certificate", async () => {
    const r = await as(srv, "good-token");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ username: "webhook-user", uid: "w-1", groups: ["wg", "system:authenticated"], extra: { "example.com/scope": ["a", "b"] } });
    const last = hook.seen[hook.seen.length - 1];
    expect(last).toEqual({ apiVersion: `${group}/v1beta1`, token: "good-token", audiences: ["api"], clientCn: "apiserver-webhook-client" });
  });

  it("caches answers per token", async () => {
    const before = hook.seen.length;
    await as(srv, "cached-good");
    await as(srv, "cached-good");
    await as(srv, "cached-good");
    expect(hook.seen.length - before).toBe(1);
  });

  it("answers 401 when the service refuses, with or without an error text, and does not echo the token", async () => {
    const a = await as(srv, "error-token");
    expect(a.status).toBe(401);
    expect(a.text).not.toContain("error-token");
    expect((await as(srv, "unknown-token")).status).toBe(401);
  });

  it("speaks v1 when configured", async () => {
    const s = await server("v1", "0s");
    try {
      expect((await as(s, "good-token")).status).toBe(200);
      expect(hook.seen[hook.seen.length - 1].apiVersion).toBe(`${group}/v1`);
      const before = hook.seen.length;
      await as(s, "good-token");
      expect(hook.seen.length - before).toBe(1); // TTL 0: no cache
    } finally {
      await s.close();
    }
  });

  it("answers 401 when the service answers another apiVersion", async () => {
    const wrong = await startWebhook(`${group}/v1`);
    const saved = hook;
    hook = wrong;
    try {
      const s = await server("v1beta1");
      try {
        expect((await as(s, "good-token")).status).toBe(401);
      } finally {
        await s.close();
      }
    } finally {
      hook = saved;
      await wrong.https.close();
    }
  });

  it("answers 401 when the service cannot be reached", async () => {
    const s = await server("v1beta1", "2m", "https://127.0.0.1:1/");
    try {
      expect((await as(s, "good-token")).status).toBe(401);
    } finally {
      await s.close();
    }
  });
});

describe("token webhook cache (pure timing)", () => {
  it("expires answers after the TTL and keys them by audiences", async () => {
    const hook = await startWebhook();
    const { ca } = await clusterPki();
    const client = await createClientCert(ca, { user: "c" });
    let now = 0;
    const w = new TokenWebhookAuthenticator({ profile, client: { server: hook.https.url, ca: hook.https.ca.certPem, cert: client.certPem, key: client.keyPem }, cacheTtlMs: 1000, now: () => now });
    try {
      await w.authenticateToken("good-token", ["a"]);
      await w.authenticateToken("good-token", ["a"]);
      expect(hook.seen.length).toBe(1);
      await w.authenticateToken("good-token", ["b"]);
      expect(hook.seen.length).toBe(2);
      now = 1500;
      await w.authenticateToken("good-token", ["a"]);
      expect(hook.seen.length).toBe(3);
    } finally {
      await hook.https.close();
    }
  });
});
