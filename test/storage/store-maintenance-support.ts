/**
 * For the store operations tests: a store cluster of real member processes
 * (services/store/main.ts) on loopback random ports with its own temporary directory,
 * members that can be stopped, started again (same flags or a new data dir) or added,
 * and the real etcdctl (Debian's etcd-client, API v3) to drive them. stop() kills every
 * member and removes the directory.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT, STORE_MAIN, spawnStoreNode, stopChild, waitForMembers, waitForStore, type StoreNodeSpec } from "../../services/store/server/node-process.ts";
import { freePort } from "../support/ports.ts";

export const ETCDCTL = "/usr/bin/etcdctl";

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion (killed after timeoutMs). */
export function run(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: REPO_ROOT, env: opts.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 20_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** etcdctl (API v3) against the given endpoints. */
export function etcdctl(endpoints: readonly string[], args: string[]): Promise<Run> {
  return run(ETCDCTL, [`--endpoints=${endpoints.join(",")}`, "--dial-timeout=5s", "--command-timeout=15s", ...args], { env: { ...process.env, ETCDCTL_API: "3" } });
}

/** etcdctl that must succeed; resolves with its stdout. */
export async function etcdctlOk(endpoints: readonly string[], args: string[]): Promise<string> {
  const r = await etcdctl(endpoints, args);
  if (r.code !== 0) throw new Error(`etcdctl ${args.join(" ")} exited ${r.code}: ${r.stderr}${r.stdout}`);
  return r.stdout;
}

/** `store restore` as a real process. */
export function storeRestore(args: string[]): Promise<Run> {
  return run(process.execPath, ["--import", "tsx", STORE_MAIN, "restore", ...args], { timeoutMs: 60_000 });
}

export interface Member {
  name: string;
  clientPort: number;
  peerPort: number;
  dataDir: string;
  endpoint: string;
  peerUrl: string;
  child?: ChildProcess;
}

export interface StoreCluster {
  dir: string;
  members: Member[];
  /** host:port of every running member. */
  endpoints(): string[];
  initialCluster(): string;
  /** Starts member i with the cluster's flags; state "existing" for a member joining a running cluster. */
  start(i: number, opts?: { state?: "new" | "existing"; initialCluster?: string; extraArgs?: string[] }): Promise<void>;
  stop(i: number, signal?: NodeJS.Signals): Promise<void>;
  /** A new member entry (not started) with fresh ports and data dir. */
  addMember(name: string): Promise<Member>;
  close(): Promise<void>;
}

export async function startStoreCluster(size: number, extraArgs: string[] = []): Promise<StoreCluster> {
  const dir = await mkdtemp(join(tmpdir(), "store-ops-"));
  const members: Member[] = [];
  const newMember = async (name: string): Promise<Member> => {
    const clientPort = await freePort();
    const peerPort = await freePort();
    return { name, clientPort, peerPort, dataDir: join(dir, name), endpoint: `127.0.0.1:${clientPort}`, peerUrl: `http://127.0.0.1:${peerPort}` };
  };
  for (let i = 0; i < size; i++) members.push(await newMember(`m${i + 1}`));
  const initial = members.map((m) => `${m.name}=${m.peerUrl}`).join(",");
  const cluster: StoreCluster = {
    dir,
    members,
    endpoints: () => members.filter((m) => m.child !== undefined).map((m) => m.endpoint),
    initialCluster: () => initial,
    async start(i, opts = {}) {
      const m = members[i];
      const spec: StoreNodeSpec = {
        name: m.name,
        clientPort: m.clientPort,
        peerPort: m.peerPort,
        dataDir: m.dataDir,
        initialCluster: opts.initialCluster ?? initial,
        initialClusterState: opts.state ?? "new",
        electionTimeoutMs: 500,
        heartbeatIntervalMs: 50,
        extraArgs: [...extraArgs, ...(opts.extraArgs ?? [])],
      };
      m.child = spawnStoreNode(spec, { stdio: ["ignore", "ignore", "inherit"] });
      await waitForStore(m.endpoint, 60_000, m.child);
    },
    async stop(i, signal = "SIGTERM") {
      const c = members[i].child;
      members[i].child = undefined;
      if (c === undefined || c.exitCode !== null) return;
      if (signal === "SIGKILL") {
        const exited = new Promise<void>((resolve) => c.once("exit", () => resolve()));
        c.kill("SIGKILL");
        await exited;
      } else await stopChild(c);
    },
    async addMember(name) {
      const m = await newMember(name);
      members.push(m);
      return m;
    },
    async close() {
      await Promise.all(members.map((_, i) => cluster.stop(i)));
      await rm(dir, { recursive: true, force: true });
    },
  };
  try {
    await Promise.all(members.map((_, i) => cluster.start(i)));
    await waitForMembers(members[0].endpoint, size);
  } catch (err) {
    await cluster.close();
    throw err;
  }
  return cluster;
}

/** `etcdctl endpoint status -w json` of each endpoint. */
export async function endpointStatus(endpoints: readonly string[]): Promise<{ Endpoint: string; Status: { header: { cluster_id: number; member_id: number; revision: number }; leader: number; dbSize: number; dbSizeInUse: number } }[]> {
  return JSON.parse(await etcdctlOk(endpoints, ["endpoint", "status", "-w", "json"])) as never;
}
