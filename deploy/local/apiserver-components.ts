/**
 * The front half of the local topology: two apiserver replicas over the store
 * cluster and the revision stream, and haproxy balancing TLS connections between
 * them (haproxy-config.ts: TCP mode, fast /readyz checks, redispatch of failed connections).
 */
import { spawn } from "node:child_process";
import { mkdirSync, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pkiPaths } from "../../services/apiserver/server/certs.ts";
import { REPO_ROOT } from "../../services/store/server/node-process.ts";
import type { ClusterComponent, ComponentContext } from "./components.ts";
import { haproxyConfig } from "./haproxy-config.ts";
import { ensureStorePki, etcdClientArgs, redisTlsArgs } from "./store-pki.ts";
import type { ProcessRecord } from "./state.ts";

const APISERVER_MAIN = join(REPO_ROOT, "services", "apiserver", "main.ts");

/**
 * How the replicas reach the node agents (logs, exec, proxy): with the admin client
 * certificate the first replica writes before it reads these flags (the agents trust the
 * cluster CA), at the Node's InternalIP first, as kubeadm configures it.
 */
function nodeAgentClientArgs(dataDir: string): string[] {
  const pki = pkiPaths(dataDir);
  return ["--kubelet-client-certificate", pki.adminCert, "--kubelet-client-key", pki.adminKey, "--kubelet-preferred-address-types", "InternalIP,ExternalIP,Hostname"];
}
/** Replicas when `--replicas` is not given. */
export const DEFAULT_APISERVER_REPLICAS = 2;

function logFd(dir: string, name: string): { fd: number; path: string } {
  const path = join(dir, "logs", `${name}.log`);
  mkdirSync(join(dir, "logs"), { recursive: true });
  return { fd: openSync(path, "a"), path };
}

async function waitForTls(host: string, port: number, timeoutMs: number): Promise<void> {
  const { connect } = await import("node:tls");
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await new Promise<boolean>((resolve) => {
      const sock = connect({ host, port, rejectUnauthorized: false }, () => {
        sock.end();
        resolve(true);
      });
      sock.on("error", () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no TLS listener on ${host}:${port} after ${timeoutMs} ms`);
}

export const apiserverComponent: ClusterComponent = {
  name: "apiserver",
  async up(ctx: ComponentContext) {
    const { dir, host, nodes, stream, replicas, profile } = ctx.opts;
    const endpoints = ctx.outputs.storeEndpoints as string[];
    const redisUrl = ctx.outputs.redisUrl as string;
    const records: ProcessRecord[] = [];
    const dataDir = join(dir, "apiserver");
    const pki = await ensureStorePki(dir, host);
    for (let i = 0; i < replicas; i++) {
      const port = await ctx.port(2 * nodes + 1 + i);
      const name = `apiserver-${i + 1}`;
      const out = logFd(dir, name);
      const child = spawn(
        process.execPath,
        ["--import", "tsx", APISERVER_MAIN, "--data-dir", dataDir, "--bind-address", host, "--secure-port", String(port), "--store-endpoints", endpoints.join(","), "--redis-url", redisUrl, "--revision-stream", stream, "--profile", profile, ...etcdClientArgs(pki), ...redisTlsArgs(pki), ...nodeAgentClientArgs(dataDir)],
        { cwd: REPO_ROOT, detached: true, stdio: ["ignore", out.fd, out.fd] },
      );
      child.unref();
      if (child.pid === undefined) throw new Error(`${name} did not start`);
      records.push({ role: "apiserver", name, pid: child.pid, endpoint: `https://${host}:${port}`, log: out.path, match: dataDir });
      // The first replica writes the shared certificates; the next ones reuse them.
      try {
        await waitForTls(host, port, 90_000);
      } catch (err) {
        throw Object.assign(err instanceof Error ? err : new Error(String(err)), { records });
      }
    }
    ctx.outputs.apiserverEndpoints = records.map((r) => r.endpoint);
    ctx.outputs.adminKubeconfig = join(dataDir, "admin.kubeconfig");
    for (const r of records) ctx.log(`${r.name.padEnd(11)} ${r.endpoint}`);
    return records;
  },
};

export const haproxyComponent: ClusterComponent = {
  name: "haproxy",
  async up(ctx: ComponentContext) {
    const { dir, host, nodes, replicas } = ctx.opts;
    const port = await ctx.port(2 * nodes + 1 + replicas);
    const backends = (ctx.outputs.apiserverEndpoints as string[]).map((e, i) => ({ name: `apiserver-${i + 1}`, address: e.replace(/^https:\/\//, "") }));
    const config = join(dir, "haproxy.cfg");
    writeFileSync(config, haproxyConfig({ bind: `${host}:${port}`, backends }));
    const out = logFd(dir, "haproxy");
    const child = spawn("haproxy", ["-f", config, "-db"], { detached: true, stdio: ["ignore", out.fd, out.fd] });
    child.unref();
    if (child.pid === undefined) throw new Error("haproxy did not start (is it installed?)");
    const record: ProcessRecord = { role: "haproxy", name: "haproxy", pid: child.pid, endpoint: `https://${host}:${port}`, log: out.path, match: config };
    try {
      await waitForTls(host, port, 10_000);
    } catch (err) {
      throw Object.assign(err instanceof Error ? err : new Error(String(err)), { records: [record] });
    }
    ctx.outputs.loadBalancer = record.endpoint;
    ctx.log(`haproxy     ${record.endpoint}  (admin client configuration: ${ctx.outputs.adminKubeconfig as string}, point its server here)`);
    return [record];
  },
};
