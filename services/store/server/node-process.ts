/**
 * Store nodes as real processes (services/store/main.ts under `node --import tsx`),
 * for tests and the local cluster tool: argument building, spawning, waiting until
 * the client API answers Maintenance Status, and stopping by pid (SIGTERM, then
 * SIGKILL after a grace period).
 */
import { spawn, type ChildProcess, type StdioOptions } from "node:child_process";
import { join } from "node:path";
import { credentials, type Client, type ServiceError } from "@grpc/grpc-js";
import { clientConstructor } from "./proto.ts";

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
  extraArgs?: string[];
}

export function storeNodeArgs(s: StoreNodeSpec): string[] {
  const host = s.host ?? "127.0.0.1";
  const args = [
    `--name=${s.name}`,
    `--data-dir=${s.dataDir}`,
    `--listen-client-urls=http://${host}:${s.clientPort}`,
    `--listen-peer-urls=http://${host}:${s.peerPort}`,
    `--initial-cluster=${s.initialCluster}`,
    `--initial-cluster-state=${s.initialClusterState ?? "new"}`,
  ];
  if (s.redisUrl !== undefined) args.push(`--redis-url=${s.redisUrl}`);
  if (s.revisionStream !== undefined) args.push(`--revision-stream=${s.revisionStream}`);
  if (s.electionTimeoutMs !== undefined) args.push(`--election-timeout=${s.electionTimeoutMs}`);
  if (s.heartbeatIntervalMs !== undefined) args.push(`--heartbeat-interval=${s.heartbeatIntervalMs}`);
  if (s.removedMemberLingerMaxMs !== undefined) args.push(`--removed-member-linger-max=${s.removedMemberLingerMaxMs}ms`);
  return [...args, ...(s.extraArgs ?? [])];
}

/** Spawns a store node; `stdio` defaults to ignoring input and piping output. */
export function spawnStoreNode(s: StoreNodeSpec, opts: { stdio?: StdioOptions; detached?: boolean } = {}): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", STORE_MAIN, ...storeNodeArgs(s)], {
    cwd: REPO_ROOT,
    stdio: opts.stdio ?? ["ignore", "pipe", "pipe"],
    detached: opts.detached ?? false,
    env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? "info" },
  });
}

export type StatusReply = Record<string, unknown> & { leader: string; version: string; raftTerm: string; header: { member_id: string; revision: string } };

/** Maintenance Status of one endpoint (host:port), within timeoutMs. */
export function storeStatus(endpoint: string, timeoutMs = 2000): Promise<StatusReply> {
  const Ctor = clientConstructor("Maintenance");
  const client = new Ctor(endpoint, credentials.createInsecure()) as unknown as Client & {
    Status(req: object, opts: { deadline: number }, cb: (err: ServiceError | null, res?: StatusReply) => void): void;
  };
  return new Promise<StatusReply>((resolve, reject) => {
    client.Status({}, { deadline: Date.now() + timeoutMs }, (err, res) => {
      client.close();
      if (err !== null || res === undefined) reject(err ?? new Error("no status"));
      else resolve(res);
    });
  });
}

/** Waits until the endpoint answers Status and knows a leader. */
export async function waitForStore(endpoint: string, timeoutMs = 30_000, child?: ChildProcess): Promise<StatusReply> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    if (child !== undefined && child.exitCode !== null) throw new Error(`store node exited with code ${child.exitCode} before serving ${endpoint}`);
    try {
      const s = await storeStatus(endpoint, 1000);
      if (s.leader !== "0") return s;
      last = new Error("no leader yet");
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`store at ${endpoint} not ready within ${timeoutMs} ms: ${String(last)}`);
}

type MemberReply = { members: Array<{ ID: string; name: string; clientURLs: string[] }> };

/** Waits until the endpoint's member list has `count` members, each with a name and client URLs. */
export async function waitForMembers(endpoint: string, count: number, timeoutMs = 30_000): Promise<MemberReply["members"]> {
  const Ctor = clientConstructor("Cluster");
  const client = new Ctor(endpoint, credentials.createInsecure()) as unknown as Client & {
    MemberList(req: object, opts: { deadline: number }, cb: (err: ServiceError | null, res?: MemberReply) => void): void;
  };
  const deadline = Date.now() + timeoutMs;
  try {
    while (Date.now() < deadline) {
      const res = await new Promise<MemberReply | undefined>((resolve) => client.MemberList({}, { deadline: Date.now() + 1000 }, (err, r) => resolve(err ? undefined : r)));
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
