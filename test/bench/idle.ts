/**
 * `npm run bench -- idle`: the CPU each process of an idle cluster uses while it holds
 * many objects. The cluster is the one `npm run cluster -- up` starts (deploy/local:
 * redis-server, 3 store nodes, the apiserver replicas, haproxy, the controller managers,
 * each its own process, profile `kubernetes`) in a temporary directory. The bench
 * stores BENCH_IDLE_OBJECTS ConfigMaps (100,000) spread over BENCH_IDLE_NAMESPACES
 * namespaces (100) (idle-cluster.ts: a template made by the API, copies put in the
 * store), waits until every process has settled
 * (each at most the limit over a 10 s window, at most BENCH_IDLE_SETTLE_S = 180 s), then
 * reads each process's CPU time from /proc/<pid>/stat over BENCH_IDLE_SECONDS (60) and
 * prints it as % of one core. CPU time, not throughput: the figure holds on a loaded
 * machine. The limit is 2 % of a core (issue 27).
 *
 * BENCH_IDLE_AFTER_SEED_S (default 0): seconds to wait after the seeding before settling,
 * e.g. past the watch caches' revision-snapshot retention (75 s, watch-cache.ts), whose
 * trimming of the seeding's snapshots is the seeding's cost rather than idle work.
 *
 * BENCH_CPU_PROF=<dir>: the cluster's Node processes start with `--inspect=127.0.0.1:0`
 * and each is profiled over the measured window only (written as <dir>/<name>.cpuprofile,
 * summarized by cpu-profile-summary.ts). The profiler's own cost is then in the figures.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ownedAndAlive, type ProcessRecord } from "../../deploy/local/state.ts";
import { renderSummary, summarizeProfile } from "./cpu-profile-summary.ts";
import { cpuSeconds, machineLoad } from "./harness.ts";
import { startBenchCluster, seedConfigMaps, type BenchCluster } from "./idle-cluster.ts";
import { cpuShares, renderShares, settled, type CpuSample } from "./idle-cpu.ts";
import { InspectorClient, inspectorUrl } from "./inspector-client.ts";

export interface IdleBenchOptions {
  objects: number;
  namespaces: number;
  /** Length of the measured window. */
  seconds: number;
  /** Share of one core each process may use (0.02). */
  limit: number;
  settleTimeoutSeconds: number;
  replicas: number;
  /** Seconds to wait after the seeding, before settling. */
  afterSeedSeconds: number;
  /** Where CPU profiles of the measured window go; none when unset. */
  profileDir?: string;
  write: (text: string) => void;
}

export function defaultIdleBenchOptions(): IdleBenchOptions {
  return {
    objects: Number(process.env.BENCH_IDLE_OBJECTS ?? 100_000),
    namespaces: Number(process.env.BENCH_IDLE_NAMESPACES ?? 100),
    seconds: Number(process.env.BENCH_IDLE_SECONDS ?? 60),
    limit: 0.02,
    settleTimeoutSeconds: Number(process.env.BENCH_IDLE_SETTLE_S ?? 180),
    afterSeedSeconds: Number(process.env.BENCH_IDLE_AFTER_SEED_S ?? 0),
    replicas: Number(process.env.BENCH_IDLE_REPLICAS ?? 2),
    profileDir: process.env.BENCH_CPU_PROF || undefined,
    write: (t) => void process.stdout.write(t),
  };
}

const SETTLE_WINDOW_MS = 10_000;
function sample(records: readonly ProcessRecord[]): CpuSample {
  const cpu: Record<string, number> = {};
  for (const r of records) if (ownedAndAlive(r)) cpu[r.name] = cpuSeconds(r.pid);
  return { cpu, atMs: performance.now() };
}

async function window(records: readonly ProcessRecord[], ms: number): Promise<Record<string, number>> {
  const a = sample(records);
  await new Promise((r) => setTimeout(r, ms));
  return cpuShares(a, sample(records));
}

/** Inspector sessions on the records' Node processes (their logs name the inspector's URL). */
async function profilers(records: readonly ProcessRecord[]): Promise<Map<string, InspectorClient>> {
  const out = new Map<string, InspectorClient>();
  for (const r of records.filter((x) => ownedAndAlive(x))) {
    const url = inspectorUrl(readFileSync(r.log, "utf8"));
    if (url) out.set(r.name, await InspectorClient.connect(url));
  }
  return out;
}

export async function benchIdle(opts: IdleBenchOptions = defaultIdleBenchOptions()): Promise<Record<string, number>> {
  const write = opts.write;
  const figures: Record<string, number> = { objects: opts.objects };
  write(`machine before: ${machineLoad()}\n`);
  const cluster: BenchCluster = await startBenchCluster({ replicas: opts.replicas, nodeOptions: opts.profileDir ? "--inspect=127.0.0.1:0" : "" });
  try {
    const records = cluster.records;
    const t0 = performance.now();
    await seedConfigMaps(cluster, "idle", opts.namespaces, opts.objects);
    figures.loadSeconds = Math.round((performance.now() - t0) / 100) / 10;
    write(`stored ${opts.objects} ConfigMaps in ${opts.namespaces} namespaces in ${figures.loadSeconds} s\n`);

    const gone = (): void => {
      for (const r of records.filter((x) => !ownedAndAlive(x))) write(`${r.name} is not running; the end of its log:\n${readFileSync(r.log, "utf8").slice(-3000)}\n`);
    };
    gone();
    if (opts.afterSeedSeconds > 0) {
      write(`waiting ${opts.afterSeedSeconds} s after the seeding\n`);
      await new Promise((r) => setTimeout(r, opts.afterSeedSeconds * 1000));
    }
    const settleStart = performance.now();
    let last = await window(records, SETTLE_WINDOW_MS);
    while (!settled(last, opts.limit) && performance.now() - settleStart < opts.settleTimeoutSeconds * 1000) last = await window(records, SETTLE_WINDOW_MS);
    figures.settleSeconds = Math.round((performance.now() - settleStart) / 1000);
    write(`settle: ${figures.settleSeconds} s${settled(last, opts.limit) ? "" : " (timed out; still busy)"}; last window: ${Object.entries(last).map(([n, s]) => `${n} ${(s * 100).toFixed(1)} %`).join(", ")}\n`);

    const sessions = opts.profileDir ? await profilers(records) : new Map<string, InspectorClient>();
    try {
      for (const s of sessions.values()) await s.startCpuProfile();
      write(`measuring ${opts.seconds} s; machine: ${machineLoad()}\n`);
      const shares = await window(records, opts.seconds * 1000);
      write(renderShares(shares, opts.limit, opts.seconds));
      for (const [name, share] of Object.entries(shares)) figures[`cpuPercent_${name}`] = Math.round(share * 10_000) / 100;
      figures.processesOverLimit = Object.values(shares).filter((s) => s > opts.limit).length;
      if (opts.profileDir) {
        mkdirSync(opts.profileDir, { recursive: true });
        for (const [name, s] of sessions) {
          const profile = await s.stopCpuProfile();
          const file = join(opts.profileDir, `${name}.cpuprofile`);
          writeFileSync(file, JSON.stringify(profile));
          write(renderSummary(file, summarizeProfile(profile as Parameters<typeof summarizeProfile>[0], 12)));
        }
      }
    } finally {
      for (const s of sessions.values()) s.close();
    }
    gone();
    write(`machine after: ${machineLoad()}\n`);
  } finally {
    await cluster.stop();
  }
  return figures;
}
