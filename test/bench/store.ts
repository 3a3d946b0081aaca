/**
 * Store benchmark (`npm run bench -- store`): our store service against etcd, each as a
 * 3-node cluster of real processes on loopback random ports with data in temp dirs,
 * measured by the same gRPC client (etcd v3 API) in this process:
 * - put throughput with 1 and with 64 concurrent clients (~5 s each), p50/p99 latency,
 *   and with 1 client the CPU time per put of the leader and of the followers (on a
 *   machine with few cores, CPU per message is latency);
 * - linearizable single-key range throughput with 64 clients;
 * - time from SIGKILL of the leader (found via Maintenance Status) to the next
 *   successful write on a surviving member, 3 times (the median is reported).
 * Keys look like `/registry/core/configmaps/<ns>/<name>`, values are 1 KiB. Load goes
 * to the leader over a few HTTP/2 connections. The clusters run one after the other,
 * so they do not share the machine's CPUs. Both use the default fsync, election
 * timeout 1000 ms and heartbeat 100 ms; ours runs without a revision stream (no Redis).
 * Compare the ratios ours/etcd, not the absolute numbers.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { EtcdClient } from "../../shared/etcd/client.ts";
import { spawnStoreNode, stopChild, storeStatus, waitForMembers, waitForStore } from "../../services/store/server/node-process.ts";
import { freePort } from "../support/ports.ts";

const ETCD_BIN = process.env.ETCD_BIN ?? "/usr/bin/etcd";
const MEMBERS = 3;
const LOAD_MS = 5000;
const CONCURRENCY = 64;
const CHANNELS = 4;
const PRELOAD_KEYS = 1000;
const PUT_KEYS = 10_000;
const FAILOVER_ROUNDS = 3;
const VALUE = Buffer.alloc(1024, "v");

type Kind = "ours" | "etcd";

interface Member {
  name: string;
  clientPort: number;
  peerPort: number;
  dataDir: string;
  child?: ChildProcess;
  output: string[];
}

interface Cluster {
  kind: Kind;
  dir: string;
  members: Member[];
  initialCluster: string;
}

type KvClient = EtcdClient;

interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

// ---------- cleanup of everything this benchmark started, also when it fails or exits ----------

const liveChildren = new Set<ChildProcess>();
const liveDirs = new Set<string>();

function killEverythingNow(): void {
  for (const c of liveChildren) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  for (const d of liveDirs) rmSync(d, { recursive: true, force: true, maxRetries: 3 });
}

function track(child: ChildProcess): ChildProcess {
  liveChildren.add(child);
  child.once("exit", () => liveChildren.delete(child));
  return child;
}

function keepTail(member: Member, child: ChildProcess): void {
  const push = (chunk: Buffer): void => {
    member.output.push(chunk.toString());
    if (member.output.length > 40) member.output.shift();
  };
  child.stdout?.on("data", push);
  child.stderr?.on("data", push);
  child.once("error", (err) => member.output.push(`spawn failed: ${err.message}`));
}

// ---------- clusters ----------

function etcdArgs(m: Member, initialCluster: string): string[] {
  const client = `http://127.0.0.1:${m.clientPort}`;
  const peer = `http://127.0.0.1:${m.peerPort}`;
  return [
    `--name=${m.name}`,
    `--data-dir=${m.dataDir}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=${initialCluster}`,
    "--initial-cluster-state=new",
    "--initial-cluster-token=bench-etcd",
    "--logger=zap",
    "--log-outputs=stderr",
  ];
}

function spawnMember(cluster: Cluster, m: Member): ChildProcess {
  if (cluster.kind === "etcd") return spawn(ETCD_BIN, etcdArgs(m, cluster.initialCluster), { stdio: ["ignore", "pipe", "pipe"] });
  const spec = { name: m.name, clientPort: m.clientPort, peerPort: m.peerPort, dataDir: m.dataDir, initialCluster: cluster.initialCluster, electionTimeoutMs: 1000, heartbeatIntervalMs: 100 };
  return spawnStoreNode(spec, { stdio: ["ignore", "pipe", "pipe"] });
}

function endpointOf(m: Member): string {
  return `127.0.0.1:${m.clientPort}`;
}

async function startMember(cluster: Cluster, m: Member): Promise<void> {
  const child = track(spawnMember(cluster, m));
  m.child = child;
  keepTail(m, child);
  try {
    await waitForStore(endpointOf(m), 30_000, child);
  } catch (err) {
    throw new Error(`${cluster.kind} ${m.name}: ${String(err)}\n${m.output.join("").slice(-3000)}`, { cause: err });
  }
}

async function startCluster(kind: Kind): Promise<Cluster> {
  const dir = await mkdtemp(join(tmpdir(), `bench-store-${kind}-`));
  liveDirs.add(dir);
  const members: Member[] = [];
  for (let i = 0; i < MEMBERS; i++) members.push({ name: `${kind}${i}`, clientPort: await freePort(), peerPort: await freePort(), dataDir: join(dir, `m${i}`), output: [] });
  const initialCluster = members.map((m) => `${m.name}=http://127.0.0.1:${m.peerPort}`).join(",");
  const cluster: Cluster = { kind, dir, members, initialCluster };
  await Promise.all(members.map((m) => startMember(cluster, m)));
  await waitForMembers(endpointOf(members[0]), MEMBERS);
  return cluster;
}

async function stopCluster(cluster: Cluster): Promise<void> {
  await Promise.all(cluster.members.map(async (m) => (m.child ? stopChild(m.child, 3000) : undefined)));
  await rm(cluster.dir, { recursive: true, force: true });
  liveDirs.delete(cluster.dir);
}

async function killMember(m: Member): Promise<void> {
  const child = m.child;
  m.child = undefined;
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGKILL");
  await exited;
}

// ---------- leader ----------

/** Index of the member that every live member names as leader, or -1. */
async function leaderIndex(cluster: Cluster): Promise<number> {
  const live = cluster.members.filter((m) => m.child !== undefined);
  const replies = await Promise.all(live.map((m) => storeStatus(endpointOf(m), 1000).catch(() => undefined)));
  if (replies.some((r) => r === undefined)) return -1;
  const leaders = new Set(replies.map((r) => r?.leader));
  const leader = replies[0]?.leader;
  if (leaders.size !== 1 || leader === undefined || leader === "0") return -1;
  const at = replies.findIndex((r) => r?.header.member_id === leader);
  return at < 0 ? -1 : cluster.members.indexOf(live[at]);
}

async function waitForLeader(cluster: Cluster, timeoutMs = 30_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const i = await leaderIndex(cluster);
    if (i >= 0) return i;
    await sleep(100);
  }
  throw new Error(`${cluster.kind}: members do not agree on a leader within ${timeoutMs} ms`);
}

// ---------- client ----------

function kvClient(endpoint: string): KvClient {
  return new EtcdClient(endpoint, { "grpc.use_local_subchannel_pool": 1, "grpc.initial_reconnect_backoff_ms": 100, "grpc.max_reconnect_backoff_ms": 500 });
}

function configMapKey(i: number): Buffer {
  return Buffer.from(`/registry/core/configmaps/ns-${i % 20}/cm-${i}`);
}

function put(client: KvClient, i: number): Promise<unknown> {
  return client.unary("Put", { key: configMapKey(i), value: VALUE }, { deadline: Date.now() + 10_000 });
}

function get(client: KvClient, i: number): Promise<unknown> {
  return client.unary("Range", { key: configMapKey(i), serializable: false }, { deadline: Date.now() + 10_000 });
}

// ---------- load ----------

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** Runs `op` from `concurrency` loops for durationMs over round-robin channels. */
async function runLoad(clients: KvClient[], concurrency: number, durationMs: number, op: (c: KvClient, n: number) => Promise<unknown>): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  let n = 0;
  const start = performance.now();
  const end = start + durationMs;
  const loop = async (w: number): Promise<void> => {
    while (performance.now() < end) {
      const t = performance.now();
      try {
        await op(clients[w % clients.length], n++);
        latencies.push(performance.now() - t);
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, w) => loop(w)));
  const elapsed = performance.now() - start;
  latencies.sort((a, b) => a - b);
  return { rps: (latencies.length * 1000) / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors };
}

/** CPU seconds (user + system) of a process, from /proc; 0 when unknown. */
function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** Runs `fn` and reports the cores used by this process and by the leader and the followers meanwhile. */
async function withCpu<T>(cluster: Cluster, leader: Member, fn: () => Promise<T>): Promise<T & { cpu: { client: number; leader: number; followers: number } }> {
  const followers = cluster.members.filter((m) => m !== leader);
  const sample = () => ({ client: process.cpuUsage(), leader: cpuSeconds(leader.child?.pid), followers: followers.reduce((s, m) => s + cpuSeconds(m.child?.pid), 0) });
  const before = sample();
  const t = performance.now();
  const res = await fn();
  const secs = (performance.now() - t) / 1000;
  const after = sample();
  const client = process.cpuUsage(before.client);
  return { ...res, cpu: { client: (client.user + client.system) / 1e6 / secs, leader: (after.leader - before.leader) / secs, followers: (after.followers - before.followers) / secs } };
}

/** CPU milliseconds per operation from cores used and operations per second. */
function cpuMsPerOp(cores: number, rps: number): number {
  return rps > 0 ? (cores * 1000) / rps : 0;
}

async function preload(client: KvClient): Promise<void> {
  for (let i = 0; i < PRELOAD_KEYS; i += CONCURRENCY) {
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, PRELOAD_KEYS - i) }, (_, j) => put(client, i + j)));
  }
}

// ---------- failover ----------

/** Puts on every client every 20 ms (overlapping attempts) until one succeeds; ms since t0. */
function firstWrite(clients: KvClient[], t0: number, budgetMs = 30_000): Promise<number> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let settled = false;
    const finish = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearInterval(timer);
      fn();
    };
    const attempt = (): void => {
      if (performance.now() - t0 > budgetMs) return finish(() => reject(new Error(`no successful write within ${budgetMs} ms of the leader's SIGKILL`)));
      for (const client of clients) {
        const req = { key: configMapKey(PUT_KEYS + sent++), value: VALUE };
        // Attempts still in flight after the first success end at their own deadline.
        client.unary("Put", req, { deadline: Date.now() + 5000 }).then(
          () => finish(() => resolve(performance.now() - t0)),
          () => undefined,
        );
      }
    };
    const timer = setInterval(attempt, 20);
    attempt();
  });
}

async function failoverOnce(cluster: Cluster, clients: Map<Member, KvClient>): Promise<number> {
  const leader = cluster.members[await waitForLeader(cluster)];
  const survivors = cluster.members.filter((m) => m !== leader).map((m) => clients.get(m) as KvClient);
  await Promise.all(survivors.map((c) => c.unary("Range", { key: configMapKey(0), serializable: true }, { deadline: Date.now() + 10_000 })));
  const t0 = performance.now();
  const killed = killMember(leader);
  const ms = await firstWrite(survivors, t0);
  await killed;
  await startMember(cluster, leader);
  await waitForLeader(cluster);
  await sleep(1000);
  return ms;
}

async function measureFailover(cluster: Cluster): Promise<number[]> {
  const clients = new Map(cluster.members.map((m) => [m, kvClient(endpointOf(m))] as const));
  try {
    const samples: number[] = [];
    for (let i = 0; i < FAILOVER_ROUNDS; i++) samples.push(await failoverOnce(cluster, clients));
    return samples;
  } finally {
    for (const c of clients.values()) c.close();
  }
}

// ---------- one cluster ----------

async function measureLoad(cluster: Cluster, out: Record<string, number>): Promise<void> {
  const leader = cluster.members[await waitForLeader(cluster)];
  const clients = Array.from({ length: CHANNELS }, () => kvClient(endpointOf(leader)));
  try {
    await preload(clients[0]);
    const k = cluster.kind;
    const put1 = await withCpu(cluster, leader, () => runLoad(clients, 1, LOAD_MS, (c, n) => put(c, PRELOAD_KEYS + (n % PUT_KEYS))));
    const put64 = await withCpu(cluster, leader, () => runLoad(clients, CONCURRENCY, LOAD_MS, (c, n) => put(c, PRELOAD_KEYS + (n % PUT_KEYS))));
    const get64 = await withCpu(cluster, leader, () => runLoad(clients, CONCURRENCY, LOAD_MS, (c, n) => get(c, n % PRELOAD_KEYS)));
    Object.assign(out, {
      [`${k}_put1_rps`]: put1.rps,
      [`${k}_put1_p50_ms`]: put1.p50,
      [`${k}_put1_p99_ms`]: put1.p99,
      [`${k}_put64_rps`]: put64.rps,
      [`${k}_put64_p50_ms`]: put64.p50,
      [`${k}_put64_p99_ms`]: put64.p99,
      [`${k}_get64_rps`]: get64.rps,
      [`${k}_get64_p50_ms`]: get64.p50,
      [`${k}_get64_p99_ms`]: get64.p99,
      [`${k}_errors`]: put1.errors + put64.errors + get64.errors,
      [`${k}_put1_cpu_ms_leader`]: cpuMsPerOp(put1.cpu.leader, put1.rps),
      [`${k}_put1_cpu_ms_followers`]: cpuMsPerOp(put1.cpu.followers, put1.rps),
      [`${k}_put64_cores_client`]: put64.cpu.client,
      [`${k}_put64_cores_leader`]: put64.cpu.leader,
      [`${k}_put64_cores_followers`]: put64.cpu.followers,
      [`${k}_get64_cores_client`]: get64.cpu.client,
      [`${k}_get64_cores_leader`]: get64.cpu.leader,
    });
  } finally {
    for (const c of clients) c.close();
  }
}

async function benchCluster(kind: Kind): Promise<Record<string, number>> {
  process.stdout.write(`starting a ${MEMBERS}-node ${kind} cluster\n`);
  const cluster = await startCluster(kind);
  const out: Record<string, number> = {};
  try {
    await measureLoad(cluster, out);
    const samples = await measureFailover(cluster);
    samples.forEach((ms, i) => (out[`${kind}_failover_${i + 1}_ms`] = ms));
    out[`${kind}_failover_ms`] = median(samples);
    process.stdout.write(`${kind}: done\n`);
    return out;
  } finally {
    await stopCluster(cluster);
  }
}

// ---------- report ----------

const ROWS: Array<[string, string]> = [
  ["put1_rps", "put/s, 1 client"],
  ["put1_p50_ms", "put p50 ms, 1 client"],
  ["put1_p99_ms", "put p99 ms, 1 client"],
  ["put64_rps", "put/s, 64 clients"],
  ["put64_p50_ms", "put p50 ms, 64 clients"],
  ["put64_p99_ms", "put p99 ms, 64 clients"],
  ["get64_rps", "linearizable get/s, 64 clients"],
  ["get64_p50_ms", "get p50 ms, 64 clients"],
  ["get64_p99_ms", "get p99 ms, 64 clients"],
  ["failover_ms", "leader SIGKILL -> write ms (median of 3)"],
  ["put1_cpu_ms_leader", "CPU ms per put, 1 client: leader"],
  ["put1_cpu_ms_followers", "CPU ms per put, 1 client: both followers"],
  ["errors", "failed calls under load"],
  ["put64_cores_client", "cores used, put 64: bench client"],
  ["put64_cores_leader", "cores used, put 64: leader"],
  ["put64_cores_followers", "cores used, put 64: both followers"],
  ["get64_cores_client", "cores used, get 64: bench client"],
  ["get64_cores_leader", "cores used, get 64: leader"],
];

function fmt(v: number): string {
  return v >= 100 ? v.toFixed(0) : v.toFixed(2);
}

function addRatiosAndPrint(out: Record<string, number>): void {
  const lines = [`${"figure".padEnd(42)}${"ours".padStart(10)}${"etcd".padStart(10)}${"ours/etcd".padStart(11)}`];
  for (const [key, label] of ROWS) {
    const ours = out[`ours_${key}`];
    const etcd = out[`etcd_${key}`];
    const ratio = etcd > 0 ? ours / etcd : Number.NaN;
    if (key !== "errors" && !key.includes("cores") && Number.isFinite(ratio)) out[`ratio_${key}`] = ratio;
    lines.push(`${label.padEnd(42)}${fmt(ours).padStart(10)}${fmt(etcd).padStart(10)}${(Number.isFinite(ratio) ? ratio.toFixed(2) : "-").padStart(11)}`);
  }
  process.stdout.write(`${lines.join("\n")}\n(rates: higher is better; latencies and failover: lower is better)\n`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export async function benchStore(): Promise<Record<string, number>> {
  const onSignal = (): void => process.exit(130);
  process.on("exit", killEverythingNow);
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    const out = { ...(await benchCluster("ours")), ...(await benchCluster("etcd")) };
    addRatiosAndPrint(out);
    return out;
  } finally {
    killEverythingNow();
    process.off("exit", killEverythingNow);
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
