/**
 * Client configuration over HTTPS against a real replica (static tokens, RBAC): several
 * files merged through the profile's config variable (first file wins per name,
 * current-context from the first file that sets it, relative paths from each file's own
 * directory), per-context namespaces, proxy-url through a real CONNECT proxy, and the
 * in-cluster configuration with a token file rotated under a running client.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isStatusError } from "../../shared/api/status.ts";
import { HttpsObjectClient } from "../../shared/client/https-object-client.ts";
import { inClusterConfig } from "../../shared/client/in-cluster.ts";
import { configFilesFromEnv, KubeconfigError, loadMergedKubeconfig, resolveMerged } from "../../shared/client/kubeconfig.ts";
import { defaultAuthenticationOptions } from "../../services/apiserver/authn/options.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

const ALICE = "alice-token-0123456789";
const BOB = "bob-token-0123456789";
let api: TestApiserver;
let dir: string;
const clients: HttpsObjectClient[] = [];

async function whoami(c: HttpsObjectClient): Promise<string> {
  const group = api.profile.group("authentication");
  const r = (await c.transport.json("POST", `/apis/${group}/v1/selfsubjectreviews`, { contentType: "application/json", data: JSON.stringify({ apiVersion: `${group}/v1`, kind: "SelfSubjectReview" }) })) as {
    status: { userInfo: { username: string } };
  };
  return r.status.userInfo.username;
}

function open(config: ConstructorParameters<typeof HttpsObjectClient>[0]): HttpsObjectClient {
  const c = new HttpsObjectClient(config);
  clients.push(c);
  return c;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "plat-client-config-"));
  const authentication = defaultAuthenticationOptions();
  writeFileSync(join(dir, "tokens.csv"), `${ALICE},alice,1,system:masters\n${BOB},bob,2,system:masters\n`);
  authentication.tokenAuthFile = join(dir, "tokens.csv");
  api = await startTestApiserver({ security: { authentication, authorization: { modes: ["RBAC"] } } });
});

afterAll(async () => {
  for (const c of clients) c.close();
  await api?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("merged client configuration files", () => {
  it("first file wins per name, current-context from the first file setting it, paths relative to each file", async () => {
    mkdirSync(join(dir, "a"), { recursive: true });
    mkdirSync(join(dir, "b"), { recursive: true });
    writeFileSync(join(dir, "b", "ca.crt"), api.ca);
    writeFileSync(join(dir, "b", "bob.token"), `${BOB}\n`);
    // a: no current-context; defines user "u" (alice) and context "ctx-a" in namespace "team-a".
    writeFileSync(
      join(dir, "a", "config"),
      ["users: [{name: u, user: {token: " + ALICE + "}}]", "contexts: [{name: ctx-a, context: {cluster: c, user: u, namespace: team-a}}]"].join("\n"),
    );
    // b: current-context, cluster with a relative CA, its own "u" (ignored: a came first) and "u-file".
    writeFileSync(
      join(dir, "b", "config"),
      [
        "current-context: ctx-a",
        `clusters: [{name: c, cluster: {server: "${api.replica.url}", certificate-authority: ca.crt}}]`,
        "users: [{name: u, user: {token: not-this-one}}, {name: u-file, user: {tokenFile: bob.token}}]",
        "contexts: [{name: ctx-a, context: {cluster: nope}}, {name: ctx-b, context: {cluster: c, user: u-file}}]",
      ].join("\n"),
    );
    const env = { PLATCONFIG_TEST: [join(dir, "a", "config"), join(dir, "missing"), join(dir, "b", "config")].join(delimiter) };
    const { files, fromEnv } = configFilesFromEnv({ name: "PLATCONFIG_TEST", homePath: ".x/config" }, env);
    expect(fromEnv).toBe(true);
    const merged = loadMergedKubeconfig(files, { explicit: false });
    expect(merged.currentContext).toBe("ctx-a");
    expect(merged.currentContextSource).toBe(join(dir, "b", "config"));
    const a = resolveMerged(merged);
    expect(a.namespace).toBe("team-a");
    expect(await whoami(open(a))).toBe("alice");
    const b = resolveMerged(merged, { context: "ctx-b", namespace: "override" });
    expect(b.namespace).toBe("override");
    expect(b.tokenFile).toBe(join(dir, "b", "bob.token"));
    expect(await whoami(open(b))).toBe("bob");
    expect(() => resolveMerged(merged, { context: "absent" })).toThrow(KubeconfigError);
  });

  it("uses the profile's own variable name and home default", () => {
    expect(api.profile.clientConfigEnv).toMatch(/CONFIG$/);
    const home = configFilesFromEnv({ name: api.profile.clientConfigEnv, homePath: api.profile.clientConfigHomePath }, { HOME: "/home/x" });
    expect(home).toEqual({ files: [join("/home/x", api.profile.clientConfigHomePath)], fromEnv: false });
    expect(() => resolveMerged(loadMergedKubeconfig([join(dir, "none")], { explicit: false }))).toThrow(/no client configuration has been provided/);
  });
});

describe("proxy-url", () => {
  let proxy: Server;
  const tunnels: string[] = [];
  const sockets = new Set<Socket>();
  beforeAll(async () => {
    proxy = createServer((_req, res) => res.writeHead(405).end());
    proxy.on("connect", (req, client: Socket) => {
      tunnels.push(String(req.url));
      const [host, port] = String(req.url).split(":");
      const upstream = connect(Number(port), host, () => {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        upstream.pipe(client);
        client.pipe(upstream);
      });
      sockets.add(client).add(upstream);
      upstream.on("error", () => client.destroy());
      client.on("error", () => upstream.destroy());
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => proxy?.close(r));
  });

  it("tunnels every connection through the proxy", async () => {
    const port = (proxy.address() as { port: number }).port;
    writeFileSync(
      join(dir, "proxied"),
      [
        "current-context: p",
        `clusters: [{name: c, cluster: {server: "${api.replica.url}", certificate-authority-data: ${Buffer.from(api.ca).toString("base64")}, proxy-url: "http://127.0.0.1:${port}"}}]`,
        `users: [{name: u, user: {token: ${ALICE}}}]`,
        "contexts: [{name: p, context: {cluster: c, user: u}}]",
      ].join("\n"),
    );
    const config = resolveMerged(loadMergedKubeconfig([join(dir, "proxied")], { explicit: true }));
    expect(await whoami(open(config))).toBe("alice");
    expect(tunnels).toEqual([new URL(api.replica.url).host]);
  });

  it("a proxy that is not listening is a transport error", async () => {
    const config = { server: api.replica.url, ca: api.ca, token: ALICE, insecureSkipTlsVerify: false, proxyUrl: "http://127.0.0.1:1" };
    const err = await whoami(open(config)).catch((e: unknown) => e);
    expect(isStatusError(err)).toBe(true);
    expect((err as Error).message).toMatch(/proxy 127\.0\.0\.1:1/);
  });
});

describe("in-cluster configuration", () => {
  it("reads the service variables and mounted files, and picks up a rotated token", async () => {
    const mount = join(dir, "sa");
    mkdirSync(mount, { recursive: true });
    writeFileSync(join(mount, "token"), ALICE);
    writeFileSync(join(mount, "ca.crt"), api.ca);
    writeFileSync(join(mount, "namespace"), "apps\n");
    const url = new URL(api.replica.url);
    const env = { [api.profile.serviceHostEnv]: url.hostname, [api.profile.servicePortEnv]: url.port };
    const config = inClusterConfig(api.profile, { mountPath: mount, env });
    expect(config.namespace).toBe("apps");
    const c = open(config);
    expect(await whoami(c)).toBe("alice");
    await new Promise((r) => setTimeout(r, 20));
    writeFileSync(join(mount, "token"), BOB);
    expect(await whoami(c)).toBe("bob");
  });

  it("missing variables or token: one clear line", () => {
    expect(() => inClusterConfig(api.profile, { mountPath: dir, env: {} })).toThrow(
      `unable to load in-cluster configuration, ${api.profile.serviceHostEnv} and ${api.profile.servicePortEnv} must be defined`,
    );
    const env = { [api.profile.serviceHostEnv]: "127.0.0.1", [api.profile.servicePortEnv]: "443" };
    expect(() => inClusterConfig(api.profile, { mountPath: join(dir, "empty"), env })).toThrow(/no service account token at/);
  });
});
