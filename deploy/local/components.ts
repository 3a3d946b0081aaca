/**
 * What `cluster up` starts, in order. Each component starts its processes
 * detached (they outlive the tool), waits until they serve, and returns their
 * records plus outputs for the components after it.
 *
 * EXTENSION POINT: apiserver replicas and haproxy are added by appending
 * components to COMPONENTS (e.g. an `apiserverComponent` reading
 * `outputs.storeEndpoints` and `outputs.redisUrl`, then a `haproxyComponent`
 * reading `outputs.apiserverEndpoints`). `down` stops every recorded process in
 * reverse order; `status` prints store status and liveness of the others.
 */
import { spawn } from "node:child_process";
import { mkdirSync, openSync } from "node:fs";
import { connect, createServer } from "node:net";
import { join } from "node:path";
import { spawnStoreNode, waitForMembers, waitForStore } from "../../services/store/server/node-process.ts";
import { grpcChannelCredentials } from "../../shared/tls/grpc-credentials.ts";
import { writeLayout, type ClusterLayout, type StoreMemberLayout } from "./layout.ts";
import { ensureStorePki, redisTlsArgs, type StorePki } from "./store-pki.ts";
import type { ProcessRecord } from "./state.ts";
import { apiserverComponent, haproxyComponent } from "./apiserver-components.ts";
import { controllerManagerComponent } from "./controller-manager-component.ts";
import { nodeAgentComponent } from "./node-agent-component.ts";
import { clusterInfoComponent } from "./cluster-info-component.ts";

export interface ClusterOptions {
  dir: string;
  host: string;
  /** Store nodes to start. */
  nodes: number;
  /** First fixed port (store i: client base+2i, peer base+2i+1; redis: base+2n); 0: random free ports. */
  basePort: number;
  stream: string;
  /** Node agents to start (`--node-agents`; none when unset). */
  nodeAgents?: number;
  /** Apiserver replicas behind haproxy (`--replicas`). */
  replicas: number;
  /** Naming profile every component runs with (`--profile`: plat or kubernetes). */
  profile: string;
}

export interface ComponentContext {
  opts: ClusterOptions;
  /** The cluster's layout (layout.ts); a component that changes it writes it with writeLayout. */
  layout: ClusterLayout;
  outputs: Record<string, string | string[]>;
  port(offset: number): Promise<number>;
  log(line: string): void;
}

export interface ClusterComponent {
  name: string;
  up(ctx: ComponentContext): Promise<ProcessRecord[]>;
}

export async function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on("error", reject);
    srv.listen(0, host, () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

async function waitForPort(host: string, port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await new Promise<boolean>((resolve) => {
      const sock = connect(port, host, () => {
        sock.end();
        resolve(true);
      });
      sock.on("error", () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing listens on ${host}:${port} after ${timeoutMs} ms`);
}

export function logFd(dir: string, name: string): { fd: number; path: string } {
  const path = join(dir, "logs", `${name}.log`);
  mkdirSync(join(dir, "logs"), { recursive: true });
  return { fd: openSync(path, "a"), path };
}

/** Redis serves TLS only, requires a client certificate of the store CA and a password (store-pki.ts). */
export const redisComponent: ClusterComponent = {
  name: "redis",
  async up(ctx) {
    const { dir, host, nodes } = ctx.opts;
    const pki = await ensureStorePki(dir, host);
    ctx.outputs.storeCaFile = pki.caFile;
    ctx.outputs.storeCertFile = pki.clientCertFile;
    ctx.outputs.storeKeyFile = pki.clientKeyFile;
    const port = await ctx.port(2 * nodes);
    const data = join(dir, "redis");
    mkdirSync(data, { recursive: true });
    const out = logFd(dir, "redis");
    const tls = ["--port", "0", "--tls-port", String(port), "--tls-cert-file", pki.memberCertFile, "--tls-key-file", pki.memberKeyFile, "--tls-ca-cert-file", pki.caFile, "--tls-auth-clients", "yes"];
    const child = spawn("redis-server", [...tls, "--requirepass", pki.redisPassword, "--bind", host, "--save", "", "--appendonly", "no", "--dir", data], {
      detached: true,
      stdio: ["ignore", out.fd, out.fd],
    });
    child.unref();
    if (child.pid === undefined) throw new Error("redis-server did not start (is it installed?)");
    await waitForPort(host, port, 10_000);
    const url = `rediss://${host}:${port}`;
    ctx.outputs.redisUrl = `rediss://:${pki.redisPassword}@${host}:${port}`;
    ctx.log(`redis       ${url} (password in ${pki.dir}/redis-password)`);
    // redis-server rewrites its process title to "redis-server host:port".
    return [{ role: "redis", name: "redis", pid: child.pid, endpoint: url, log: out.path, match: `${host}:${port}` }];
  },
};

export function peerUrl(host: string, m: StoreMemberLayout): string {
  return `https://${host}:${m.peerPort}`;
}

/** name=peerURL,... of the members, for --initial-cluster. */
export function initialClusterOf(host: string, members: readonly StoreMemberLayout[]): string {
  return members.map((m) => `${m.name}=${peerUrl(host, m)}`).join(",");
}

export interface StoreMemberLaunch {
  dir: string;
  host: string;
  stream: string;
  redisUrl: string | undefined;
  pki: StorePki;
}

/**
 * Starts one store member as a detached process with the cluster's mTLS and Redis
 * flags; `state` "existing" for a member joining a running cluster (after MemberAdd).
 */
export function spawnStoreMember(l: StoreMemberLaunch, m: StoreMemberLayout, initialCluster: string, state: "new" | "existing"): ProcessRecord {
  const tls = { caFile: l.pki.caFile, certFile: l.pki.memberCertFile, keyFile: l.pki.memberKeyFile };
  const out = logFd(l.dir, m.name);
  const child = spawnStoreNode(
    { name: m.name, host: l.host, clientPort: m.clientPort, peerPort: m.peerPort, dataDir: join(l.dir, m.name), initialCluster, initialClusterState: state, redisUrl: l.redisUrl, revisionStream: l.stream, tls, extraArgs: redisTlsArgs(l.pki) },
    { stdio: ["ignore", out.fd, out.fd], detached: true },
  );
  child.unref();
  if (child.pid === undefined) throw new Error(`${m.name} did not start`);
  return { role: "store", name: m.name, pid: child.pid, endpoint: `${l.host}:${m.clientPort}`, log: out.path, match: join(l.dir, m.name) };
}

/**
 * The store members: those of the layout when it records them (the membership as
 * member-add and member-remove left it; `--nodes` then only places the other
 * components' ports), else `--nodes` members store-1..n on the first port offsets,
 * recorded in the layout.
 */
export const storeComponent: ClusterComponent = {
  name: "store",
  async up(ctx) {
    const { dir, host, nodes, stream } = ctx.opts;
    let members = ctx.layout.storeMembers;
    if (members === undefined || members.length === 0) {
      members = [];
      for (let i = 0; i < nodes; i++) members.push({ name: `store-${i + 1}`, clientPort: await ctx.port(2 * i), peerPort: await ctx.port(2 * i + 1) });
      ctx.layout.storeMembers = members;
      writeLayout(dir, ctx.layout);
    }
    const initialCluster = initialClusterOf(host, members);
    const pki = await ensureStorePki(dir, host);
    const launch: StoreMemberLaunch = { dir, host, stream, redisUrl: ctx.outputs.redisUrl as string | undefined, pki };
    const records = members.map((m) => spawnStoreMember(launch, m, initialCluster, "new"));
    const client = grpcChannelCredentials({ caFile: pki.caFile, certFile: pki.clientCertFile, keyFile: pki.clientKeyFile });
    try {
      await Promise.all(records.map((r) => waitForStore(r.endpoint, 60_000, undefined, client.credentials)));
      await Promise.all(records.map((r) => waitForMembers(r.endpoint, records.length, 30_000, client.credentials)));
    } catch (err) {
      // Hand the started processes back so `up` can record and stop them.
      throw Object.assign(err instanceof Error ? err : new Error(String(err)), { records });
    } finally {
      client.close();
    }
    ctx.outputs.storeEndpoints = records.map((r) => r.endpoint);
    for (const r of records) ctx.log(`${r.name.padEnd(11)} https://${r.endpoint}`);
    ctx.log(`etcdctl     --cacert=${pki.caFile} --cert=${pki.clientCertFile} --key=${pki.clientKeyFile}`);
    return records;
  },
};

/** Started in this order by `up`. */
export const COMPONENTS: ClusterComponent[] = [redisComponent, storeComponent, apiserverComponent, haproxyComponent, clusterInfoComponent, controllerManagerComponent, nodeAgentComponent];
