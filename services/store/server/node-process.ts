/**
 * Store nodes as real processes (services/store/main.ts under `node --import tsx`),
 * for tests and the local cluster tool: argument building, spawning, waiting until
 * the client API answers Maintenance Status, and stopping by pid (SIGTERM, then
 * SIGKILL after a grace period).
 */
import { spawn, type ChildProcess, type StdioOptions } from "node:child_process";
import type { ChannelCredentials } from "@grpc/grpc-js";
import { join } from "node:path";
import { EtcdClient } from "../../../shared/etcd/client.ts";
import type { PbHeader, PbMember, PbStatusResponse } from "../../../shared/etcd/wire.ts";

export const REPO_ROOT = join(import.meta.dirname, "..", "..", "..");
export const STORE_MAIN = join(REPO_ROOT, "services", "store", "main.ts");

export interface StoreNodeSpec {
  name: string;
  clientPort: number;
  peerPort: number;
  dataDir: string;
  /** name=http://127.0.0.1:peerPort,... of all initial members. */
  initialCluster: string;
  initialClusterState?: "new" | "existing";
  host?: string;
  redisUrl?: string;
  revisionStream?: string;
  electionTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  removedMemberLingerMaxMs?: number;
  /** mTLS on the client API and the peer transport (https:// URLs; initialCluster must name https peer URLs). */
  tls?: StoreNodeTls;
  extraArgs?: string[];
}

/** One CA for both sides; the certificate is the client side's, and the peer side's unless peer files are given. */
export interface StoreNodeTls {
  caFile: string;
  certFile: string;
  keyFile: string;
  peerCertFile?: string;
  peerKeyFile?: string;
}

/** The flags of StoreNodeTls: client-cert-auth on both sides, as etcd's secure setup. */
export function storeTlsArgs(t: StoreNodeTls): string[] {
  return [
    `--cert-file=${t.certFile}`,
    `--key-file=${t.keyFile}`,
    `--trusted-ca-file=${t.caFile}`,
    "--client-cert-auth",
    `--peer-cert-file=${t.peerCertFile ?? t.certFile}`,
    `--peer-key-file=${t.peerKeyFile ?? t.keyFile}`,
    `--peer-trusted-ca-file=${t.caFile}`,
    "--peer-client-cert-auth",
  ];
}

export function storeNodeArgs(s: StoreNodeSpec): string[] {
  const host = s.host ?? "127.0.0.1";
  const scheme = s.tls === undefined ? "http" : "https";
  const args = [
    `--name=${s.name}`,
    `--data-dir=${s.dataDir}`,
    `--listen-client-urls=${scheme}://${host}:${s.clientPort}`,
    `--listen-peer-urls=${scheme}://${host}:${s.peerPort}`,
    `--initial-cluster=${s.initialCluster}`,
    `--initial-cluster-state=${s.initialClusterState ?? "new"}`,
  ];
  if (s.redisUrl !== undefined) args.push(`--redis-url=${s.redisUrl}`);
  if (s.revisionStream !== undefined) args.push(`--revision-stream=${s.revisionStream}`);
  if (s.electionTimeoutMs !== undefined) args.push(`--election-timeout=${s.electionTimeoutMs}`);
  if (s.heartbeatIntervalMs !== undefined) args.push(`--heartbeat-interval=${s.heartbeatIntervalMs}`);
  if (s.removedMemberLingerMaxMs !== undefined) args.push(`--removed-member-linger-max=${s.removedMemberLingerMaxMs}ms`);
  if (s.tls !== undefined) args.push(...storeTlsArgs(s.tls));
  return [...args, ...(s.extraArgs ?? [])];
}

/** Spawns a store node; `stdio` defaults to ignoring input and piping output; `nodeArgs` go to Node itself (e.g. `--inspect=127.0.0.1:0`). */
export function spawnStoreNode(s: StoreNodeSpec, opts: { stdio?: StdioOptions; detached?: boolean; nodeArgs?: string[] } = {}): ChildProcess {
  return spawn(process.execPath, [...(opts.nodeArgs ?? []), "--import", "tsx", STORE_MAIN, ...storeNodeArgs(s)], {
    cwd: REPO_ROOT,
    stdio: opts.stdio ?? ["ignore", "pipe", "pipe"],
    detached: opts.detached ?? false,
    env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? "info" },
  });
}

/** A Status answer; the store always sends its header. */
export type StatusReply = PbStatusResponse & { header: PbHeader };

/** Maintenance Status of one endpoint (host:port), within timeoutMs; `credentials` for a TLS store. */
export async function storeStatus(endpoint: string, timeoutMs = 2000, credentials?: ChannelCredentials): Promise<StatusReply> {
  const client = new EtcdClient(endpoint, {}, credentials);
  try {
    const res = await client.unary("Status", {}, { deadline: Date.now() + timeoutMs });
    if (res.header === undefined || res.header === null) throw new Error(`${endpoint}: Status without a header`);
    return { ...res, header: res.header };
  } finally {
    client.close();
  }
}

/** Waits until the endpoint answers Status and knows a leader. */
export async function waitForStore(endpoint: string, timeoutMs = 30_000, child?: ChildProcess, credentials?: ChannelCredentials): Promise<StatusReply> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    if (child !== undefined && child.exitCode !== null) throw new Error(`store node exited with code ${child.exitCode} before serving ${endpoint}`);
    try {
      const s = await storeStatus(endpoint, 1000, credentials);
      if (String(s.leader) !== "0") return s;
      last = new Error("no leader yet");
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`store at ${endpoint} not ready within ${timeoutMs} ms: ${String(last)}`);
}

/** Waits until the endpoint's member list has `count` members, each with a name and client URLs. */
export async function waitForMembers(endpoint: string, count: number, timeoutMs = 30_000, credentials?: ChannelCredentials): Promise<PbMember[]> {
  const client = new EtcdClient(endpoint, {}, credentials);
  const deadline = Date.now() + timeoutMs;
  try {
    while (Date.now() < deadline) {
      const res = await client.unary("MemberList", {}, { deadline: Date.now() + 1000 }).catch(() => undefined);
      const members = res?.members ?? [];
      if (members.length === count && members.every((m) => m.name !== "" && m.clientURLs.length > 0)) return members;
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    client.close();
  }
  throw new Error(`${endpoint}: member list did not show ${count} started members within ${timeoutMs} ms`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Stops a process by pid: SIGTERM, then SIGKILL after graceMs. Resolves once it is gone. */
export async function stopPid(pid: number, graceMs = 5000): Promise<void> {
  if (!alive(pid)) return;
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    return;
  }
  const deadline = Date.now() + graceMs;
  while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  if (alive(pid)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      return;
    }
    while (alive(pid)) await new Promise((r) => setTimeout(r, 20));
  }
}

/** Stops a child process of this one and waits for its exit. */
export async function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}
