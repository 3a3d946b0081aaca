/**
 * Test support for the node agent: a real apiserver replica (in process, real TLS) with
 * client certificates from a test CA, a static token file, bootstrap tokens, the Node and
 * RBAC authorizers and NodeRestriction; a TCP relay in front of it that a test can cut
 * and restore (an outage as the agent sees it); node-agent child processes started with
 * their real flags (output kept, JSON log lines parsed); and certificate helpers.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, connect, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { HttpsObjectClient } from "../../shared/client/https-object-client.ts";
import type { ApiObject, ResourceRef } from "../../shared/client/object-client.ts";
import { defaultAuthenticationOptions } from "../../services/apiserver/authn/options.ts";
import { createCA, createClientCert, createServingCert, type CertificateAuthority, type KeyPairPem } from "../../services/apiserver/server/certs.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const AGENT_MAIN = join(ROOT, "services", "node-agent", "main.ts");

export const NODES: ResourceRef = { group: "", version: "v1", resource: "nodes" };
export const TOKEN_USER = "token-user";
export const TOKEN = "node-agent-test-token-0123456789";

export interface AgentTestCluster {
  api: TestApiserver;
  ca: CertificateAuthority;
  dir: string;
  caFile: string;
  admin: HttpsObjectClient;
  relay: Relay;
  /** A client configuration file for `user` in `groups` (a certificate from the test CA) pointing at `server`. */
  kubeconfigFor(user: string, groups: string[], server?: string): Promise<string>;
  clientCert(user: string, groups?: string[]): Promise<KeyPairPem>;
  close(): Promise<void>;
}

export function writeKubeconfig(path: string, server: string, ca: string, user: { cert?: KeyPairPem; token?: string }): string {
  const b64 = (s: string) => Buffer.from(s).toString("base64");
  const doc = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "c", cluster: { server, "certificate-authority-data": b64(ca) } }],
    users: [{ name: "u", user: user.cert ? { "client-certificate-data": b64(user.cert.certPem), "client-key-data": b64(user.cert.keyPem) } : { token: user.token } }],
    contexts: [{ name: "ctx", context: { cluster: "c", user: "u" } }],
    "current-context": "ctx",
  };
  writeFileSync(path, stringify(doc), { mode: 0o600 });
  return path;
}

/** A TCP relay on a random loopback port to `target`; `cut()` closes it (refusing connections), `restore()` reopens it on the same port. */
export interface Relay {
  url: string;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startRelay(targetPort: number): Promise<Relay> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const listen = async () => {
    const s = createServer((client) => {
      const upstream = connect(targetPort, "127.0.0.1");
      sockets.add(client);
      sockets.add(upstream);
      const end = () => {
        client.destroy();
        upstream.destroy();
        sockets.delete(client);
        sockets.delete(upstream);
      };
      client.on("error", end).on("close", end);
      upstream.on("error", end).on("close", end);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      s.once("error", reject);
      s.listen(port, "127.0.0.1", () => resolve());
    });
    port = (s.address() as { port: number }).port;
    server = s;
  };
  const cut = async () => {
    const s = server;
    server = undefined;
    for (const sock of sockets) sock.destroy();
    sockets.clear();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  await listen();
  return { url: `https://127.0.0.1:${port}`, cut, restore: listen, close: cut };
}

export async function startAgentTestCluster(): Promise<AgentTestCluster> {
  const dir = mkdtempSync(join(tmpdir(), "node-agent-test-"));
  const ca = await createCA({ commonName: "node-agent-test-ca" });
  const serving = await createServingCert(ca);
  const caFile = join(dir, "ca.crt");
  writeFileSync(caFile, ca.certPem);
  writeFileSync(join(dir, "tokens.csv"), `${TOKEN},${TOKEN_USER},1001\n`);
  const authentication = { ...defaultAuthenticationOptions(), clientCaFile: caFile, tokenAuthFile: join(dir, "tokens.csv"), enableBootstrapTokenAuth: true };
  const api = await startTestApiserver({
    tls: { key: serving.keyPem, cert: serving.certPem, clientCa: ca.certPem },
    security: { authentication, authorization: { modes: ["Node", "RBAC"] } },
    admission: { enable: ["NodeRestriction"], disable: [] },
  });
  const adminCert = await createClientCert(ca, { user: "admin", groups: ["system:masters"] });
  const admin = new HttpsObjectClient({ server: api.replica.url, ca: ca.certPem, cert: adminCert.certPem, key: adminCert.keyPem, insecureSkipTlsVerify: false });
  const relay = await startRelay(api.replica.port);
  let n = 0;
  return {
    api,
    ca,
    dir,
    caFile,
    admin,
    relay,
    clientCert: (user, groups = []) => createClientCert(ca, { user, groups }),
    async kubeconfigFor(user, groups, server = relay.url) {
      return writeKubeconfig(join(dir, `kubeconfig-${++n}`), server, ca.certPem, { cert: await createClientCert(ca, { user, groups }) });
    },
    async close() {
      admin.close();
      await relay.close();
      await api.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface LogLine {
  time?: string;
  level?: number;
  msg?: string;
  [field: string]: unknown;
}

export interface AgentProcess {
  url: string;
  rootDir: string;
  output(): string;
  /** The JSON log lines printed so far. */
  logs(): LogLine[];
  stop(): Promise<void>;
}

/** Starts `services/node-agent/main.ts` with `args` (plus a fresh --root-dir unless given) and waits until it serves. */
export async function startAgentProcess(args: string[], opts: { rootDir?: string; timeoutMs?: number; output?: string[] } = {}): Promise<AgentProcess> {
  const rootDir = opts.rootDir ?? mkdtempSync(join(tmpdir(), "node-agent-root-"));
  const ownsRoot = !opts.rootDir;
  // The caller may pass the array to read the output while the agent is still starting.
  const out: string[] = opts.output ?? [];
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", AGENT_MAIN, "--root-dir", rootDir, "--address", "127.0.0.1", "--port", "0", ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NODE_OPTIONS: "" },
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`node agent did not start within ${opts.timeoutMs ?? 60_000} ms:\n${out.join("")}`));
    }, opts.timeoutMs ?? 60_000);
    let buffer = "";
    child.stdout?.on("data", (c: Buffer) => {
      out.push(c.toString());
      buffer += c.toString();
      const m = /node agent \S+ listening on (https:\/\/\S+)/.exec(buffer);
      if (m) {
        clearTimeout(timer);
        buffer = "";
        resolve(m[1]);
      }
    });
    child.stderr?.on("data", (c: Buffer) => out.push(c.toString()));
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`node agent exited (code ${code}, signal ${signal}):\n${out.join("")}`));
    });
  });
  return {
    url,
    rootDir,
    output: () => out.join(""),
    logs: () =>
      out
        .join("")
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => {
          try {
            return JSON.parse(l) as LogLine;
          } catch {
            return {};
          }
        }),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const done = await Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 5000))]);
        if (!done) {
          child.kill("SIGKILL");
          await exited;
        }
      }
      if (ownsRoot) rmSync(rootDir, { recursive: true, force: true });
    },
  };
}

/** Polls `fn` until it answers a value that is not undefined. */
export async function waitFor<T>(fn: () => Promise<T | undefined> | T | undefined, timeoutMs = 15_000, what = "condition"): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms${lastError ? `: ${String(lastError)}` : ""}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function getOrUndefined(client: HttpsObjectClient, res: ResourceRef, name: string, namespace?: string): Promise<ApiObject | undefined> {
  try {
    return await client.get(res, name, { namespace });
  } catch {
    return undefined;
  }
}

/**
 * A bootstrap token Secret (`<id>.<secret>` authenticates as system:bootstrap:<id> in
 * system:bootstrappers and system:bootstrappers:default-node-token) and bindings of the
 * given cluster roles to the system:bootstrappers group, as a cluster's installer sets
 * them up for TLS bootstrap. Returns the token.
 */
export async function createBootstrapToken(c: AgentTestCluster, id: string, secret: string, roleBindings: ReadonlyArray<readonly [bindingName: string, clusterRole: string]>): Promise<string> {
  const profile = c.api.profile;
  await c.admin.create({ group: "", version: "v1", resource: "secrets" }, {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: `bootstrap-token-${id}`, namespace: profile.systemNamespace },
    type: profile.secretTypes.bootstrapToken,
    stringData: { "token-id": id, "token-secret": secret, "usage-bootstrap-authentication": "true", "auth-extra-groups": "system:bootstrappers:default-node-token" },
  });
  const rbac = profile.group("rbac");
  const bindings: ResourceRef = { group: rbac, version: "v1", resource: "clusterrolebindings" };
  for (const [name, role] of roleBindings) {
    await c.admin.create(bindings, { apiVersion: `${rbac}/v1`, kind: "ClusterRoleBinding", metadata: { name }, roleRef: { apiGroup: rbac, kind: "ClusterRole", name: role }, subjects: [{ apiGroup: rbac, kind: "Group", name: "system:bootstrappers" }] });
  }
  return `${id}.${secret}`;
}
