/**
 * Set-up shared by the `plat` CLI suites: a replica over HTTPS with static tokens, a
 * client CA of the test's own and service account tokens (RBAC), a private HOME, a
 * client configuration file named by the profile's config variable, and a runner that
 * starts the CLI as a real child process. The CLI's sources are bundled once per test
 * file with esbuild (the compiler tsx runs on): a bundled start costs about a third of a
 * start through the tsx loader, which matters for suites of dozens of runs. The shipped
 * entry (`services/cli/bin/plat.mjs`, through tsx) is run by `BIN`.
 */
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { build } from "esbuild";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { defaultAuthenticationOptions } from "../../services/apiserver/authn/options.ts";
import { createCA, createClientCert } from "../../services/apiserver/server/certs.ts";
import { runClient, spawnLines, type RunOptions, type RunResult } from "../support/clients.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import type { HttpsClient } from "../support/https-client.ts";

export const ROOT = resolve(import.meta.dirname, "../..");
export const BIN = join(ROOT, "services", "cli", "bin", "plat.mjs");

/** Bundles services/cli/run.ts into `dir` (one ESM file for node). */
async function bundleCli(dir: string): Promise<string> {
  const outfile = join(dir, "plat-bundle.mjs");
  await build({
    entryPoints: [join(ROOT, "services", "cli", "run.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile,
    logLevel: "silent",
    // CommonJS dependencies inside an ES module bundle need a require.
    banner: { js: 'import { createRequire as bundleRequire } from "node:module"; const require = bundleRequire(import.meta.url);' },
  });
  return outfile;
}
export const ADMIN_TOKEN = "cli-admin-token-0123456789";
export const VIEWER_TOKEN = "cli-viewer-token-0123456789";

export interface CliEnv {
  api: TestApiserver;
  /** An HTTPS client with the admin token (the replica trusts only the test's client CA). */
  admin: HttpsClient;
  dir: string;
  /** The client configuration file (admin by client certificate; contexts `admin`, `viewer`). */
  config: string;
  /** Environment of every run: HOME and the profile's config variable. */
  env: Record<string, string>;
  /** Runs `plat` with `--profile <id>` prepended. */
  plat(args: string[], opts?: RunOptions): Promise<RunResult>;
  /** Starts a long-running `plat` (`get -w`) and collects `count` stdout lines. */
  platLines(args: string[], opts: RunOptions & { count: number; onFirstLine?: () => Promise<void> | void }): Promise<{ lines: string[]; stderr: string }>;
  /** Runs `plat` on a pseudo-terminal (util-linux `script`): its standard input is a terminal; stdout carries both streams. */
  platOnTerminal(args: string[], opts?: RunOptions): Promise<RunResult>;
  close(): Promise<void>;
}

const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

export async function cliEnv(profileId: "plat" | "kubernetes"): Promise<CliEnv> {
  const dir = mkdtempSync(join(tmpdir(), `plat-cli-${profileId}-`));
  const clientCa = await createCA();
  const admin = await createClientCert(clientCa, { user: "cli-admin", groups: ["system:masters"] });
  const sa = generateKeyPairSync("ec", { namedCurve: "P-256", publicKeyEncoding: { type: "spki", format: "pem" }, privateKeyEncoding: { type: "pkcs8", format: "pem" } });
  const authentication = defaultAuthenticationOptions();
  writeFileSync(join(dir, "tokens.csv"), `${ADMIN_TOKEN},token-admin,1,system:masters\n${VIEWER_TOKEN},viewer,2,viewers\n`);
  writeFileSync(join(dir, "client-ca.crt"), clientCa.certPem);
  writeFileSync(join(dir, "sa.key"), sa.privateKey);
  authentication.tokenAuthFile = join(dir, "tokens.csv");
  authentication.clientCaFile = join(dir, "client-ca.crt");
  authentication.serviceAccountSigningKeyFile = join(dir, "sa.key");
  authentication.serviceAccountIssuers = ["https://cli.test"];
  authentication.apiAudiences = ["https://cli.test"];
  const api = await startTestApiserver({ profileId, security: { authentication, authorization: { modes: ["RBAC"] } } });
  writeFileSync(join(dir, "ca.crt"), api.ca);
  writeFileSync(join(dir, "admin.crt"), admin.certPem);
  writeFileSync(join(dir, "admin.key"), admin.keyPem);
  const config = join(dir, "config");
  writeFileSync(
    config,
    [
      "apiVersion: v1",
      "kind: Config",
      "current-context: admin",
      "clusters:",
      `- name: local`,
      `  cluster: {server: "${api.replica.url}", certificate-authority: ca.crt}`,
      "users:",
      "- name: admin",
      "  user: {client-certificate: admin.crt, client-key: admin.key}",
      "- name: viewer",
      `  user: {token: ${VIEWER_TOKEN}}`,
      "contexts:",
      "- name: admin",
      "  context: {cluster: local, user: admin, namespace: default}",
      "- name: viewer",
      "  context: {cluster: local, user: viewer, namespace: default}",
      "",
    ].join("\n"),
  );
  const adminClient = api.admin.withIdentity({ token: ADMIN_TOKEN, cert: undefined, key: undefined });
  const env = { HOME: dir, NODE_OPTIONS: "", [api.profile.clientConfigEnv]: config };
  const bundle = await bundleCli(dir);
  return {
    api,
    admin: adminClient,
    dir,
    config,
    env,
    plat: (args, opts = {}) => runClient(process.execPath, [bundle, "--profile", profileId, ...args], { cwd: ROOT, timeoutMs: 60_000, ...opts, env: { ...env, ...opts.env } }),
    platLines: (args, opts) => spawnLines(process.execPath, [bundle, "--profile", profileId, ...args], { cwd: ROOT, ...opts, env: { ...env, ...opts.env } }),
    platOnTerminal: (args, opts = {}) =>
      runClient("script", ["-q", "-e", "-c", [process.execPath, bundle, "--profile", profileId, ...args].map(shellQuote).join(" "), "/dev/null"], { cwd: ROOT, timeoutMs: 60_000, ...opts, env: { ...env, ...opts.env } }),
    async close() {
      adminClient.close();
      await api.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Header cells of a table. */
export function headerOf(table: string): string[] {
  return (table.split("\n")[0] ?? "").trim().split(/\s{2,}/);
}

/** First cells of the rows (without the header). */
export function firstColumn(table: string): string[] {
  return table
    .trim()
    .split("\n")
    .slice(1)
    .map((l) => l.split(/\s+/)[0]);
}
