/**
 * The exec credential plugin against a real replica in both profiles (static tokens and client
 * certificates of the test CA): real plugin scripts written to a temporary directory,
 * named relative to the configuration file, given args, env and the ExecCredential in
 * the profile's variable (spec.interactive, spec.cluster with provideClusterInfo);
 * caching until expiry or a 401; a new certificate makes a new TLS connection; and the
 * bad plugins (missing with its install hint, hanging, garbage, failing with stderr,
 * expired, wrong version, interactive without a terminal) fail with one clear line.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExecCredentialError, ExecCredentialProvider, execProviderFor } from "../../shared/client/exec-credential.ts";
import { HttpsObjectClient } from "../../shared/client/https-object-client.ts";
import { loadKubeconfig, type ClientConfig, type ExecConfig } from "../../shared/client/kubeconfig.ts";
import { defaultAuthenticationOptions } from "../../services/apiserver/authn/options.ts";
import { createCA, createClientCert } from "../../services/apiserver/server/certs.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

const GOOD = "exec-good-token-0123456789";
let api: TestApiserver;
let dir: string;
let certA: { certPem: string; keyPem: string };
let certB: { certPem: string; keyPem: string };
const clients: HttpsObjectClient[] = [];

/** Writes an executable node script; `body` runs with `info` (the parsed ExecCredential) and `log(x)` to a run log. */
function plugin(name: string, body: string): string {
  const path = join(dir, "plugins", name);
  const text = [
    "#!/usr/bin/env node",
    `const fs = require("node:fs");`,
    `const info = JSON.parse(process.env[${JSON.stringify(api.profile.execInfoEnv)}] || "null");`,
    `const log = (x) => fs.appendFileSync(${JSON.stringify(join(dir, `${name}.log`))}, JSON.stringify(x) + "\\n");`,
    `const runs = () => { try { return fs.readFileSync(${JSON.stringify(join(dir, `${name}.log`))}, "utf8").trim().split("\\n").length; } catch { return 0; } };`,
    `const out = (status) => process.stdout.write(JSON.stringify({ apiVersion: info.apiVersion, kind: "ExecCredential", status }));`,
    body,
  ].join("\n");
  writeFileSync(path, text);
  chmodSync(path, 0o755);
  return path;
}

function runLog(name: string): unknown[] {
  try {
    return readFileSync(join(dir, `${name}.log`), "utf8").trim().split("\n").map((l) => JSON.parse(l) as unknown);
  } catch {
    return [];
  }
}

/**
 * Lifetime of the expiring credentials: long enough for two requests on a loaded machine;
 * the tests wait for the expiry the plugin logged rather than a fixed time.
 */
const LIFETIME_MS = 3000;

/** Waits until just past the expirationTimestamp the plugin logged on its last run. */
async function untilExpired(name: string): Promise<void> {
  const expires = Number(runLog(name).at(-1));
  await new Promise((r) => setTimeout(r, Math.max(0, expires - Date.now()) + 100));
}

const group = () => api.profile.groups.clientAuthentication;

function execConfig(command: string, extra: Partial<ExecConfig> = {}): ExecConfig {
  return { command, apiVersion: `${group()}/v1`, args: [], env: [], provideClusterInfo: false, interactiveMode: "Never", base: dir, ...extra };
}

function clientWith(exec: ExecConfig, opts: ConstructorParameters<typeof ExecCredentialProvider>[3] = {}): { client: HttpsObjectClient; provider: ExecCredentialProvider } {
  const config: ClientConfig = { server: api.replica.url, ca: api.ca, insecureSkipTlsVerify: false, exec };
  const provider = execProviderFor(config, api.profile, { stdinIsTerminal: false, ...opts })!;
  const client = new HttpsObjectClient(config, { credentials: provider });
  clients.push(client);
  return { client, provider };
}

async function whoami(c: HttpsObjectClient): Promise<string> {
  const g = api.profile.group("authentication");
  const r = (await c.transport.json("POST", `/apis/${g}/v1/selfsubjectreviews`, { contentType: "application/json", data: JSON.stringify({ apiVersion: `${g}/v1`, kind: "SelfSubjectReview" }) })) as {
    status: { userInfo: { username: string } };
  };
  return r.status.userInfo.username;
}

describe.each(["plat", "kubernetes"] as const)("exec credential plugin (%s profile)", (profileId) => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "plat-exec-"));
    mkdirSync(join(dir, "plugins"));
    // Client certificates come from a CA of the test's own, trusted through --client-ca-file.
    const clientCa = await createCA();
    certA = await createClientCert(clientCa, { user: "cert-a", groups: ["system:masters"] });
    certB = await createClientCert(clientCa, { user: "cert-b", groups: ["system:masters"] });
    const authentication = defaultAuthenticationOptions();
    writeFileSync(join(dir, "tokens.csv"), `${GOOD},exec-user,1,system:masters\n`);
    writeFileSync(join(dir, "client-ca.crt"), clientCa.certPem);
    authentication.tokenAuthFile = join(dir, "tokens.csv");
    authentication.clientCaFile = join(dir, "client-ca.crt");
    api = await startTestApiserver({ profileId, security: { authentication, authorization: { modes: ["RBAC"] } } });
  });

  afterAll(async () => {
    for (const c of clients.splice(0)) c.close();
    await api?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("runs a command relative to the configuration file with args, env and cluster info, once for many requests", async () => {
    plugin("token.js", `log({ args: process.argv.slice(2), env: process.env.PLUGIN_MODE, info }); out({ token: ${JSON.stringify(GOOD)} });`);
    const b64ca = Buffer.from(api.ca).toString("base64");
    writeFileSync(
      join(dir, "exec.yaml"),
      [
        "current-context: e",
        `clusters: [{name: c, cluster: {server: "${api.replica.url}", certificate-authority-data: ${b64ca}, extensions: [{name: ${group()}/exec, extension: {audience: test}}]}}]`,
        "contexts: [{name: e, context: {cluster: c, user: u}}]",
        "users:",
        "- name: u",
        "  user:",
        "    exec:",
        `      apiVersion: ${group()}/v1`,
        "      command: ./plugins/token.js",
        "      args: [--flag, value]",
        "      env: [{name: PLUGIN_MODE, value: fast}]",
        "      interactiveMode: IfAvailable",
        "      provideClusterInfo: true",
      ].join("\n"),
    );
    const config = loadKubeconfig(join(dir, "exec.yaml"));
    const provider = execProviderFor(config, api.profile, { stdinIsTerminal: false })!;
    const client = new HttpsObjectClient(config, { credentials: provider });
    clients.push(client);
    expect(await whoami(client)).toBe("exec-user");
    await client.list({ group: "", version: "v1", resource: "namespaces" });
    expect(await whoami(client)).toBe("exec-user");
    const runs = runLog("token.js") as Array<{ args: string[]; env: string; info: Record<string, unknown> }>;
    expect(runs).toHaveLength(1);
    expect(runs[0].args).toEqual(["--flag", "value"]);
    expect(runs[0].env).toBe("fast");
    expect(runs[0].info).toEqual({
      kind: "ExecCredential",
      apiVersion: `${group()}/v1`,
      spec: { interactive: false, cluster: { server: api.replica.url, "certificate-authority-data": b64ca, config: { audience: "test" } } },
    });
  });

  it("v1beta1 defaults interactiveMode to IfAvailable (not interactive without a terminal)", async () => {
    plugin("beta.js", `log(info.spec); out({ token: ${JSON.stringify(GOOD)} });`);
    const { client } = clientWith(execConfig(join(dir, "plugins", "beta.js"), { apiVersion: `${group()}/v1beta1`, interactiveMode: undefined }));
    expect(await whoami(client)).toBe("exec-user");
    expect(runLog("beta.js")).toEqual([{ interactive: false }]);
  });

  it("a 401 makes the plugin run again once, and the request is sent again with the new token", async () => {
    plugin("rotating.js", `const n = runs(); log(n); out({ token: n === 0 ? "stale-token" : ${JSON.stringify(GOOD)} });`);
    const { client, provider } = clientWith(execConfig("./plugins/rotating.js"));
    expect(await whoami(client)).toBe("exec-user");
    expect(provider.runs).toBe(2);
    expect(await whoami(client)).toBe("exec-user");
    expect(provider.runs).toBe(2);
  });

  it("a credential is cached until its expirationTimestamp", async () => {
    plugin("expiring.js", `const expires = Date.now() + ${LIFETIME_MS}; log(expires); out({ token: ${JSON.stringify(GOOD)}, expirationTimestamp: new Date(expires).toISOString() });`);
    const { client, provider } = clientWith(execConfig("./plugins/expiring.js"));
    await whoami(client);
    await whoami(client);
    expect(provider.runs).toBe(1);
    await untilExpired("expiring.js");
    await whoami(client);
    expect(provider.runs).toBe(2);
  });

  it("a client certificate from the plugin, and a new certificate makes a new TLS connection", async () => {
    writeFileSync(join(dir, "certs.json"), JSON.stringify([certA, certB]));
    plugin(
      "cert.js",
      [
        `const [a, b] = JSON.parse(fs.readFileSync(${JSON.stringify(join(dir, "certs.json"))}, "utf8"));`,
        `const c = runs() === 0 ? a : b; const expires = Date.now() + ${LIFETIME_MS}; log(expires);`,
        "out({ clientCertificateData: c.certPem, clientKeyData: c.keyPem, expirationTimestamp: new Date(expires).toISOString() });",
      ].join("\n"),
    );
    const { client } = clientWith(execConfig("./plugins/cert.js"));
    expect(await whoami(client)).toBe("cert-a");
    expect(await whoami(client)).toBe("cert-a");
    await untilExpired("cert.js");
    // A kept-alive connection would still present cert-a: the new identity needs a new handshake.
    expect(await whoami(client)).toBe("cert-b");
  });

  it("bad plugins fail with one clear line each", async () => {
    plugin("hang.js", "setTimeout(() => {}, 60000);");
    plugin("garbage.js", `process.stdout.write("hello, not json");`);
    plugin("fail.js", `process.stderr.write("no credentials for you\\n"); process.exit(3);`);
    plugin("expired.js", `out({ token: "x", expirationTimestamp: "2001-01-01T00:00:00Z" });`);
    plugin("version.js", `process.stdout.write(JSON.stringify({ apiVersion: ${JSON.stringify(`${group()}/v1beta1`)}, kind: "ExecCredential", status: { token: "x" } }));`);
    plugin("half.js", `out({ clientCertificateData: "x" });`);
    const cases: Array<[ExecConfig, RegExp, { timeoutMs?: number }?]> = [
      [execConfig("./plugins/absent.js", { installHint: "install it with:\n  get-plugin" }), /^exec: executable \.\/plugins\/absent\.js not found: install it with: get-plugin$/],
      [execConfig("./plugins/hang.js"), /^exec: executable \.\/plugins\/hang\.js did not finish within 0\.5s and was killed$/, { timeoutMs: 500 }],
      [execConfig("./plugins/garbage.js"), /^exec plugin: decoding stdout: not an ExecCredential .*hello, not json/],
      [execConfig("./plugins/fail.js"), /^exec: executable \.\/plugins\/fail\.js failed with exit code 3: no credentials for you$/],
      [execConfig("./plugins/expired.js"), /^exec plugin returned an expired credential \(expirationTimestamp 2001-01-01T00:00:00Z\)$/],
      [execConfig("./plugins/version.js"), /^exec plugin is configured to use API version .*\/v1, plugin returned version .*\/v1beta1$/],
      [execConfig("./plugins/half.js"), /^exec plugin returned only certificate or key, not both$/],
      [execConfig("./plugins/token.js", { interactiveMode: "Always" }), /^exec plugin cannot support interactive mode: standard input is not a terminal$/],
    ];
    for (const [exec, msg, opts] of cases) {
      const { client } = clientWith(exec, opts);
      const err = await whoami(client).catch((e: unknown) => e);
      expect(err, exec.command).toBeInstanceOf(ExecCredentialError);
      expect((err as Error).message, exec.command).toMatch(msg);
      expect((err as Error).message).not.toContain("\n");
    }
  });

  it("invalid exec sections are refused before anything runs", () => {
    const bad: Array<[Partial<ExecConfig>, RegExp]> = [
      [{ apiVersion: "client.authentication.example.com/v1" }, /invalid apiVersion/],
      [{ apiVersion: `${group()}/v2` }, /invalid apiVersion/],
      [{ interactiveMode: undefined }, /interactiveMode must be specified/],
      [{ interactiveMode: "Sometimes" }, /invalid interactiveMode "Sometimes"/],
    ];
    for (const [extra, msg] of bad) expect(() => clientWith(execConfig("./plugins/token.js", extra))).toThrow(msg);
  });
});
