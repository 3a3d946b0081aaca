/**
 * `npm run bench -- apf`: does API Priority and Fairness keep one tenant's GETs fast while
 * another tenant floods lists? Two replica processes over one store process (token users,
 * RBAC, one PKI; apf-servers.ts), the same
 * seats (`APF_INFLIGHT` read-only + half as many mutating, default 20 + 10): A with APF,
 * B with `--enable-priority-and-fairness=false` (the per-pool in-flight limit). The noisy
 * tenant (its own process, apf-load.ts) keeps `APF_FLOOD` lists of `APF_OBJECTS`
 * ConfigMaps in flight; meanwhile the other tenant sends `APF_GETS` GETs one after the
 * other and its p99 latency is taken. Rounds alternate A and B (`BENCH_ROUNDS`, at least
 * 3). The goal: the tenant's p99 under the flood with APF at most 2x its p99 without load.
 * `APF_BASELINE=<dir>` (a checkout of an older commit, e.g. `git archive <rev> | tar -x`
 * with a node_modules link) makes B that tree's replica with APF on: old and new dispatch
 * in one run (each side first in every other round), each with its loaded/unloaded ratio
 * per round. The objects are created through a replica without APF (the `off` one, or a
 * third one with a baseline), so the measured replicas start without the setup's demand.
 * `APF_WARMUP_MS` (default 500) is how long the flood runs before the tenant's GETs.
 * Before the rounds, each replica with APF is primed with the flood for `APF_PRIME_MS`
 * (default 21 s, two seat re-divisions; 0: none): a replica re-divides seats by demand
 * every 10 s, as the platform's does (its periodic borrowing adjustment, smoothed demand
 * with a 5-minute half-life), so without priming the first round measured the level at
 * the seats it held before any flood (2 of global-default's, the tenant queued behind
 * lists: p99 98.6 ms against 18.5 ms in the third round, load 18) and the later rounds
 * the flood's steady state. Each round prints the level's limit at the start and end of
 * its loaded phase, and how many dispatched requests waited in its queues.
 * This process only times the tenant's GETs; every server and the flood run elsewhere.
 * `BENCH_CPU_PROF=<dir>` profiles both replicas and prints where their CPU time went.
 *
 * Where the tenant's p99 goes (timestamps per phase in the APF filter of the replica,
 * tenant GETs under the flood): the wait in the APF queue is most of it, then the
 * handler (authorization, read, encode, sharing the event loop with the lists), while
 * the phases before APF and after the handler stay small. At load 17: queue p99
 * 492 ms of 558 ms, handler p99 110 ms; the tenant lost the next seats to the
 * flooding flow's queues, whose executing lists were charged only when they ended
 * (queue-set.ts now charges them while they run: queue p99 205 ms at load 12). At
 * load 5-6 with the charge: queue p99 104 ms, handler p99 55 ms, total p99 122 ms:
 * the tenant waits for the next of 7-8 executing lists to end.
 * Why only 6-10 seats (phase log again, load 10-13, 900 loaded GETs: 881 queued, wait
 * p50 22 ms / p99 315 ms, handler p50 16 ms / p99 130 ms): the level's limit
 * stayed far below the ~19 its borrowing gives a steady demand of 17, because the
 * exempt level's smoothed seat demand, raised by the fill's 50 concurrent
 * system:masters creates through the APF replica, kept the lendable seats for minutes
 * (the platform's borrowing counts exempt demand the same way); the fill now goes
 * through a replica without APF. Then (4 rounds old/new, load 6-8) the level borrows
 * 19-20 seats for the 16 lists and the tenant no longer queues: its p99 growth (4.6x
 * old, 6.9x new, noisy: per-round new/old 0.50-10.8) is its handler sharing the event
 * loop with the lists. Lists that copy kept item bytes cost 7.6 ms of server CPU
 * against 23.7 ms (0.27-0.36x), but the closed-loop flood then runs 3-6x more of them,
 * and their TLS writes are outside the chunk producers' per-turn budget. The lists are 1 seat each, as the
 * platform charges them here: global-default has 3 nominal seats of 30 and hand
 * size 6, so its widest request is max(1, min(ceil(0.15 x 3), floor(3 / 6))) = 1; the
 * size-based estimate (1 MB, 10 seats) is capped to it as well.
 * Bytes as list work (chunked-stream.ts: a list's bytes cost 2 ms per MiB, what copying
 * and writing them to TLS costs, in one budget of 1 ms per turn for all list bodies, 0.5 ms since):
 * against the tree before (4 rounds alternating, load 2-3) the tenant's growth fell from
 * 5.4x to 2.8x (medians) while the flood served about half as many lists; APF on vs off
 * (4 rounds, load 2.6-3.5): the tenant's p99 under the flood 0.40/0.60/0.94 of off's, the
 * goal 2.95x (2.05-4.10 per round); against e4669b8 (before both changes, 4 rounds,
 * load 3.3-3.7) the tenant's p99 under the flood was 0.25/0.59/0.71 of old's (23.7 vs
 * 46.4 ms), the flood 333-703 lists a round against 1,680-1,810. What is left: in the first round the level still has
 * its initial 2 seats (borrowing is re-divided every 10 s), so the tenant queues behind
 * lists; after that each tenant GET asks the store for its current revision (a round
 * trip to a process on the same 2 cores) and waits two or more turns of the event loop,
 * each carrying up to 1 ms of list bodies plus new lists' handlers and socket writes
 * (writev alone is about a third of the busy server time), while the flood client
 * decrypting ~1.3 MB per list shares the cores. The off side was no flood: the in-flight
 * limiter sized a list by the work estimate (10 of its pool's 20 seats, the user's fair
 * share), so the noisy tenant got ~14,000 429s a round and 110-120 lists served; it now
 * counts each request as one seat, as the platform's max-in-flight filter does, and has
 * no per-user share (the platform's has none): the noisy tenant's 16 lists hold 16 of the
 * pool's 20 seats and none is refused (with a per-user share, 2,000-2,700 were a round).
 * `APF_LOOP_PROBE_DIR=<dir>` also prints each replica's event-loop delay (p50/p90/p99/max,
 * apf-loop-probe.ts) and utilization over the tenant's unloaded and loaded phases.
 * The per-round queue figures (load 11-21, before priming): in the first round the level
 * went from 2 to 19 seats during the loaded phase and 472 of 910 dispatched requests
 * waited (mean 182 ms; tenant p99 278.8 ms); in later rounds, at 19 seats with 16
 * lists executing, 9-16 of 620-720 waited (mean 1.6 ms): there the tenant's p99 is the
 * event loop and the machine's two cores, not its queue.
 * Primed (3 rounds, load 6.8-8.0, on vs off): the level held 19 seats in every round, 6-18
 * of 632-665 dispatched requests waited (none over 5 ms, mean 1.0-1.5 ms); the tenant's p99
 * under the flood 18.3-53.8 ms against 6.6-9.1 ms unloaded, growth 2.01 / 4.03 / 8.19 per
 * round (goal line 4.03x), on/off 0.37 / 0.59 / 0.75; the replica at 60-95 % CPU and the
 * flood client at 36-57 % of a core, beside the other work of a machine at load 7: the
 * growth left is CPU on two shared cores (4.2-7.5 ms of server CPU per list).
 * Against 2bb26d6 (APF_BASELINE, both primed, 3 rounds alternating, load 2.3-2.6): both
 * levels at 19-20 seats, 13-22 of ~600 dispatched requests waited (none over 5 ms); the
 * tenant's p99 under the flood new/old 0.59 / 0.90 / 1.15 (24.6 vs 29.6 ms), its growth
 * 1.40 / 3.10 / 3.73 new against 2.78 / 2.96 / 5.26 old (per-round new/old 0.47 / 0.71 /
 * 1.10; goal line 3.73x), server CPU per list 0.90 / 1.06 / 1.13.
 * What the tenant's p99 was made of (APF_LOOP_PROBE_DIR, load 10-14): no queue wait (6-19
 * of ~1,000 dispatched waited, none over 5 ms), the loop saturated (utilization 97-100 %)
 * with its delay p50 1.6-2.6 / p99 7-17 ms under the flood (1.0-1.1 / 3-5 unloaded), the
 * tenant's GETs 2.3-3.8 ms (p50) / 14-31 ms (p99) inside the server against 0.8-1.1 /
 * 2.6-4.7 unloaded, GCs of ~10 ms. A CPU profile of the flood: TLS writes (writev) ~20 %
 * of busy time, list bodies ~11 %, revision reads over HTTP/2 ~5 %, the watch cache's
 * key scan ~4 %, APF ~5 %; a turn carried the list budget plus the new lists' handlers.
 * With chunk producers' work past the budget carried as a debt (first slices) and the
 * budget at 0.5 ms per turn, against 1e895ae (APF_BASELINE, 600 GETs, 3 rounds
 * alternating, load 9.8-13.5): loop delay p50 1.1-1.2 vs 1.6-2.6 ms and p99 4.8-5.8 vs
 * 7.2-16.8 ms under the flood; tenant p99 under the flood new/old 0.30 / 0.61 / 0.88
 * (17.2 vs 37.2 ms medians); growth 0.98 / 2.35 / 2.81 new against 5.20 old (per-round
 * new/old 0.45 / 0.46 / 0.54; goal line 2.12x); the flood 298-439 lists a round against
 * 466-589, server CPU per list 0.63 / 0.93 / 1.00. A second such run (load 13.8-16.3):
 * loop delay p50 1.1-1.3 vs 1.8-2.6 ms and p99 5.0-7.7 vs 7.3-14.7 ms under the flood, but
 * the tenant's p99 under the flood new/old 0.80 / 0.96 / 1.42 (growth 3.15x vs 3.53x,
 * per round 0.88 / 0.90 / 1.10) and its GETs' server p99 17-20 vs 10-24 ms: shorter turns,
 * and what is left of a GET's time is mostly elsewhere (the store's revision read).
 * Then APF on vs off (this tree, 3 rounds, load 13.5-19.3): goal line 4.11x and 3.54x in
 * two runs, each round's p99 from 300 GETs that shared the cores with a machine at load
 * 15+ (replicas at 36-76 % CPU, loop delay max up to 400 ms, unloaded p99 3.8-51.5 ms).
 * In the calmer rounds the loop under the flood had delay p50 1.3-1.5 / p99 4.4-5.1 /
 * max 7-9 ms and yet the tenant's GETs took p50 3.1-3.8 / p99 12.3-12.7 ms inside the
 * server: a GET is two or three turns plus the store's revision read (a process on the
 * same cores). The replica's profile (38 s busy): TLS writes 26 %, list bodies 16 %,
 * GC 6 %, revision reads 5 %, the watch cache's key scan 3 %.
 * What the long turns are made of (the probe's GC pauses, --trace-gc-nvp through
 * APF_REPLICA_OUTPUT_DIR; load 6-12): scavenges every 6-8 MB allocated (the young
 * generation grown to 8 MB semi-spaces), each copying 0.5-0.55 MB of survivors, the state
 * of the lists in flight (a list lives 120-250 ms, about one scavenge interval), in
 * pauses of p50 2.6-3.0 / p90 6-11 ms, 20-40 in a loaded phase; 0-14 mark-compacts a
 * phase, pauses up to 20-60 ms at load 10. The survivors grow with the interval, so the
 * young generation's size only trades pause length for count: semi-spaces of 32 MB
 * (--min/--max-semi-space-size=32, load 8-12) copied 0.90 MB in pauses of 15.8 ms on
 * average against 0.55 MB and 11.0 ms; of 4 MB (--max-semi-space-size=4, load 3-8) 0.30
 * MB in pauses of p50 1.8 / p90 4.8 / p99 12.2 ms against 2.8 / 9.1 / 20.5 ms, but 1.46x
 * the scavenge time in all, 24 mark-compacts against 15, the loop's p99 under the flood
 * unchanged (9.4-11.1 vs 9.3-10.8 ms) and the unloaded p99 worse (9.4-20.0 vs 4.6-10.8
 * ms): the default stays. Lists that write themselves to the response (list-body-writer.ts)
 * against 8b17b40 (APF_BASELINE, 3 rounds alternating, load 5.8-7.7, BENCH_CPU_PROF):
 * 0.086 scavenges per list served against 0.114 (0.34 vs 0.43 ms of scavenge pause per
 * list; 13 mark-compacts vs 19), the body path's own code (chunked-stream.ts, web
 * streams) 0.2 vs 0.8 ms of profiled CPU per list; but writev (TLS encryption and the
 * socket write of the list bytes) stays 26 % of the replica's busy time and the tenant's
 * p99 under the flood new/old 0.94 / 1.15 / 1.27, within the noise of that load.
 * The per-turn list budget at 0.25 ms against 0.5 ms (f0126d5 both, 3 rounds
 * alternating, load 6.1-7.9): tenant p99 under the flood new/old 0.71 / 0.91 / 1.15,
 * growth over unloaded 3.34x vs 4.04x (per round 0.78 / 0.85 / 1.07), the flood 387-481
 * lists a round against 550-677, the loop's p99 under the flood 6.2-8.8 vs 5.5-6.3 ms:
 * not taken.
 * Where the rest goes (8acbea9, load 1.1-1.8): the goal line was 1.85x with 300 GETs
 * (per round 1.83 / 2.39 / 2.64) and 3.09x with 1,500 (flood p99 13.0-16.1 ms, unloaded
 * 2.8-7.8 ms). The same run with the tenant's GETs at resourceVersion=0 (served from the
 * watch cache without a revision read; the path edited for that run) had flood p99 6.6-8.4
 * ms: the consistent read's revision read is half of the tail. Its latency as the replica's
 * batcher saw it (sent to settled, logged by a temporary probe): p50 0.3-0.6 / p99 1.9-4.4 ms unloaded, p50 0.8-1.1 / p99 5-10 ms under the flood,
 * at about 250 reads a second serving 1.3 callers each; the store process is nearly idle, so
 * this is the replica's event loop reaching the answer, and the process getting a core.
 * Four reads in flight instead of one (the batcher's maxInFlight, set for that run) (a flood of lists no longer holds the tenant's read
 * back): flood p99 13.5-14.3 ms, goal line 3.40x, no change.
 */
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { PlatformProfile } from "../../shared/platform/index.ts";
import { HttpsClient } from "../support/https-client.ts";
import type { ApfLoadReply, ApfLoadRequest } from "./apf-load.ts";
import type { LoopDelay } from "./apf-loop-probe.ts";
import { startApfServers, type TokenUser } from "./apf-servers.ts";
import { ChildChannel } from "./child-channel.ts";
import { renderSummary, summarizeProfile } from "./cpu-profile-summary.ts";
import { alternate, cpuSeconds, interleave, machineLoad, median, MIN_ROUNDS, RatioTable } from "./harness.ts";

const NS = "apf-bench";
const USERS: TokenUser[] = [
  ["token-admin", "admin", "system:masters"],
  ["token-noisy", "noisy", "tenants"],
  ["token-tenant", "tenant", "tenants"],
];

function p99(ms: readonly number[]): number {
  const sorted = [...ms].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))];
}

async function tenantP99(client: HttpsClient, gets: number): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < gets; i++) {
    const t = performance.now();
    const r = await client.get(`/api/v1/namespaces/${NS}/configmaps/cm-${i % 50}`);
    ms.push(performance.now() - t);
    if (r.status !== 200) throw new Error(`tenant GET answered ${r.status}: ${r.text.slice(0, 200)}`);
  }
  return p99(ms);
}

/**
 * Creates the namespace and `objects` ConfigMaps of 1 KiB, 50 at a time, through `admin`
 * (a replica without APF: system:masters requests count as the exempt level's seat
 * demand, which a replica's borrowing remembers for minutes).
 */
async function fill(admin: HttpsClient, objects: number): Promise<void> {
  const value = "x".repeat(1024);
  const post = (path: string, body: unknown) => admin.post(path, body).then((r) => {
    if (r.status !== 201) throw new Error(`${path}: ${r.status} ${r.text.slice(0, 200)}`);
  });
  await post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } });
  for (let i = 0; i < objects; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, objects - i) }, (_, j) => post(`/api/v1/namespaces/${NS}/configmaps`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `cm-${i + j}` }, data: { v: value } })));
  }
}

async function grantReads(profile: PlatformProfile, admin: HttpsClient): Promise<void> {
  const rbac = profile.group("rbac");
  for (const [path, body] of [
    [`/apis/${rbac}/v1/clusterroles`, { apiVersion: `${rbac}/v1`, kind: "ClusterRole", metadata: { name: "bench-read" }, rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list"] }] }],
    [
      `/apis/${rbac}/v1/clusterrolebindings`,
      { apiVersion: `${rbac}/v1`, kind: "ClusterRoleBinding", metadata: { name: "bench-read" }, roleRef: { apiGroup: rbac, kind: "ClusterRole", name: "bench-read" }, subjects: [{ apiGroup: rbac, kind: "Group", name: "tenants" }] },
    ],
  ] as const) {
    const r = await admin.post(path, body);
    if (r.status !== 201) throw new Error(`${path}: ${r.status}`);
  }
}

/** What the flooded level's metrics say at one moment (a replica with APF). */
interface LevelSample {
  limit: string;
  executing: string;
  /** Requests dispatched in the level: in all, without any wait, within 5 ms; and their summed wait (s). */
  dispatched: number;
  unqueued: number;
  within5ms: number;
  waitSeconds: number;
}

async function sampleLevel(admin: HttpsClient): Promise<LevelSample> {
  const lines = (await admin.get("/metrics")).text.split("\n");
  const value = (series: string) => lines.find((l) => l.startsWith(series))?.split(" ")[1] ?? "?";
  const level = 'priority_level="global-default"';
  const waits = (suffix: string, extra = "") => {
    const line = lines.find((l) => l.startsWith(`apiserver_flowcontrol_request_wait_duration_seconds_${suffix}{`) && l.includes(level) && l.includes('execute="true"') && l.includes(extra));
    return Number(line?.split(" ")[1] ?? 0);
  };
  return {
    limit: value(`apiserver_flowcontrol_current_limit_seats{${level}}`),
    executing: value(`apiserver_flowcontrol_current_executing_requests{${level},flow_schema="global-default"}`),
    dispatched: waits("count"),
    unqueued: waits("bucket", 'le="0"'),
    within5ms: waits("bucket", 'le="0.005"'),
    waitSeconds: waits("sum"),
  };
}

/** The flooded level over the loaded phase: its limit at both ends, and how many requests waited in its queues. */
function describeLevel(before: LevelSample, after: LevelSample): string {
  const n = after.dispatched - before.dispatched;
  const queued = n - (after.unqueued - before.unqueued);
  const over5 = n - (after.within5ms - before.within5ms);
  const meanMs = queued > 0 ? ((after.waitSeconds - before.waitSeconds) * 1000) / queued : 0;
  return `; global-default: limit ${before.limit} -> ${after.limit} seats, ${after.executing} executing, ${queued} of ${n} dispatched waited (${over5} over 5 ms, mean ${meanMs.toFixed(1)} ms)`;
}

/**
 * The replica's event-loop delay since the previous call (apf-loop-probe.ts), when
 * `APF_LOOP_PROBE_DIR` is set: the probe writes it on SIGUSR2 and starts anew.
 */
async function loopDelay(pid: number | undefined): Promise<LoopDelay | undefined> {
  const dir = process.env.APF_LOOP_PROBE_DIR;
  if (!dir || pid === undefined) return undefined;
  const file = join(dir, `${pid}.json`);
  const before = readIfAny(file);
  process.kill(pid, "SIGUSR2");
  for (let i = 0; i < 100; i++) {
    await new Promise((r) => setTimeout(r, 20));
    const text = readIfAny(file);
    if (text !== undefined && text !== before) return JSON.parse(text) as LoopDelay;
  }
  return undefined;
}

function readIfAny(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

function describeLoop(name: string, d: LoopDelay | undefined): string {
  if (!d) return "";
  const f = (v: number) => v.toFixed(1);
  const gets = d.gets ? `; its GETs' server time p50 ${f(d.gets.p50)} / p99 ${f(d.gets.p99)} / max ${f(d.gets.max)} ms (${d.gets.count})` : "";
  const gc = d.gc ? `; GC minor ${d.gc.minor.count} (${f(d.gc.minor.totalMs)} ms, p99 ${f(d.gc.minor.p99)} / max ${f(d.gc.minor.max)}), major ${d.gc.major.count} (${f(d.gc.major.totalMs)} ms, max ${f(d.gc.major.max)})` : "";
  return `; loop ${name}: delay p50 ${f(d.p50)} / p90 ${f(d.p90)} / p99 ${f(d.p99)} / max ${f(d.max)} ms, utilization ${(d.utilization * 100).toFixed(0)}%${gets}${gc}`;
}

function printProfiles(dir: string, title: string): void {
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"))) {
    const profile = JSON.parse(readFileSync(join(dir, file), "utf8")) as Parameters<typeof summarizeProfile>[0];
    process.stdout.write(renderSummary(title, summarizeProfile(profile, 25)));
  }
}

export async function benchApf(): Promise<Record<string, number>> {
  const rounds = Math.max(MIN_ROUNDS, Number(process.env.BENCH_ROUNDS ?? MIN_ROUNDS));
  const objects = Number(process.env.APF_OBJECTS ?? 1000);
  const flood = Number(process.env.APF_FLOOD ?? 16);
  const gets = Number(process.env.APF_GETS ?? 300);
  const inflight = Number(process.env.APF_INFLIGHT ?? 20);
  const profileDir = process.env.BENCH_CPU_PROF;
  const baselineRoot = process.env.APF_BASELINE;
  const warmupMs = Number(process.env.APF_WARMUP_MS ?? 500);
  const primeMs = Number(process.env.APF_PRIME_MS ?? 21_000);
  const names = baselineRoot ? { on: "APF new", off: "APF old" } : { on: "APF on ", off: "APF off" };
  if (process.env.APF_LOOP_PROBE_DIR) mkdirSync(process.env.APF_LOOP_PROBE_DIR, { recursive: true });
  const env = await startApfServers({ users: USERS, inflight, profileDir, baselineRoot });
  const noisy = new ChildChannel<ApfLoadRequest, ApfLoadReply>(new URL("./apf-load.ts", import.meta.url));
  const clients = {
    on: new HttpsClient(env.urls.on, { ca: env.ca, token: "token-tenant" }),
    off: new HttpsClient(env.urls.off, { ca: env.ca, token: "token-tenant" }),
  };
  const admin = new HttpsClient(env.urls.on, { ca: env.ca, token: "token-admin" });
  const admins = { on: admin, off: new HttpsClient(env.urls.off, { ca: env.ca, token: "token-admin" }) };
  try {
    await grantReads(env.profile, admin);
    const filler = new HttpsClient(env.urls.fill, { ca: env.ca, token: "token-admin" });
    await fill(filler, objects).finally(() => filler.close());
    for (const side of baselineRoot ? (["on", "off"] as const) : (["on"] as const)) {
      if (primeMs <= 0) break;
      await noisy.ask({ type: "flood", url: env.urls[side], ca: env.ca, token: "token-noisy", path: `/api/v1/namespaces/${NS}/configmaps`, concurrency: flood }, "flooding");
      await new Promise((r) => setTimeout(r, primeMs));
      const primed = await noisy.ask({ type: "stop" }, "stopped");
      process.stdout.write(`  ${names[side]}: primed with the flood for ${primeMs} ms (${primed.ok} lists)${describeLevel(await sampleLevel(admins[side]), await sampleLevel(admins[side]))}\n`);
    }
    const unloaded = { on: [] as number[], off: [] as number[] };
    const cpuPerListMs = { on: [] as number[], off: [] as number[] };
    const loadedRound = async (side: "on" | "off"): Promise<number> => {
      await loopDelay(env.pids[side]);
      unloaded[side].push(await tenantP99(clients[side], gets));
      const loopUnloaded = await loopDelay(env.pids[side]);
      const cpuAtFlood = cpuSeconds(env.pids[side]);
      await noisy.ask({ type: "flood", url: env.urls[side], ca: env.ca, token: "token-noisy", path: `/api/v1/namespaces/${NS}/configmaps`, concurrency: flood }, "flooding");
      const floodStart = performance.now();
      await new Promise((r) => setTimeout(r, warmupMs));
      const measured = side === "on" || baselineRoot;
      const levelBefore = measured ? await sampleLevel(admins[side]) : undefined;
      const cpuBefore = cpuSeconds(env.pids[side]);
      const t0 = performance.now();
      await loopDelay(env.pids[side]);
      const loaded = await tenantP99(clients[side], gets);
      const loopLoaded = await loopDelay(env.pids[side]);
      const serverCpu = (cpuSeconds(env.pids[side]) - cpuBefore) / ((performance.now() - t0) / 1000);
      const seats = levelBefore ? describeLevel(levelBefore, await sampleLevel(admins[side])) : "";
      const floodMs = performance.now() - floodStart;
      const stopped = await noisy.ask({ type: "stop" }, "stopped");
      // the flood's server CPU (with the tenant's GETs, a small part) per list served
      const cpuPerList = ((cpuSeconds(env.pids[side]) - cpuAtFlood) * 1000) / Math.max(1, stopped.ok);
      cpuPerListMs[side].push(cpuPerList);
      process.stdout.write(
        `  ${names[side]}: tenant p99 ${unloaded[side].at(-1)?.toFixed(1)} ms unloaded, ${loaded.toFixed(1)} ms under the flood (noisy lists: ${stopped.ok} served, ${stopped.rejected} refused, ${stopped.other} other; server process ${(serverCpu * 100).toFixed(0)}% CPU, ${cpuPerList.toFixed(1)} ms CPU per list, flood client ${((stopped.cpuMs / floodMs) * 100).toFixed(0)}% CPU${seats}${describeLoop("unloaded", loopUnloaded)}${describeLoop("under the flood", loopLoaded)}, ${machineLoad()})\n`,
      );
      return loaded;
    };
    const loaded = await (baselineRoot ? alternate : interleave)(rounds, () => loadedRound("on"), () => loadedRound("off"));
    const table = new RatioTable(`APF: ${flood} lists of ${objects} ConfigMaps in flight vs ${gets} sequential GETs of another tenant, ${inflight}+${Math.ceil(inflight / 2)} seats, ${machineLoad()}`);
    const [aName, bName] = [names.on.trim(), names.off.trim()];
    table.add({ key: "tenant_get_p99_loaded", label: "tenant GET p99 under the flood", aName, bName, a: loaded.a, b: loaded.b, unit: "ms", better: "lower" });
    table.add({ key: "tenant_get_p99_apf", label: `tenant GET p99 with ${aName}`, aName: "flood", bName: "no load", a: loaded.a, b: unloaded.on, unit: "ms", better: "lower" });
    if (baselineRoot) {
      const perRound = (side: "on" | "off") => loaded[side === "on" ? "a" : "b"].map((v, i) => v / unloaded[side][i]);
      table.add({ key: "tenant_get_p99_growth", label: "tenant GET p99 under the flood / unloaded (same round)", aName, bName, a: perRound("on"), b: perRound("off"), unit: "x", better: "lower" });
      table.add({ key: "server_cpu_per_list", label: "server CPU per list served under the flood", aName, bName, a: cpuPerListMs.on, b: cpuPerListMs.off, unit: "ms", better: "lower" });
    }
    process.stdout.write(table.render());
    const goal = median(loaded.a) / median(unloaded.on);
    process.stdout.write(`goal: tenant p99 under the flood with APF <= 2x unloaded: ${goal.toFixed(2)}x ${goal <= 2 ? "(met)" : "(not met)"}\n`);
    return { ...table.figures(), tenant_get_p99_goal_ratio: goal };
  } finally {
    noisy.kill();
    admin.close();
    admins.off.close();
    clients.on.close();
    clients.off.close();
    await env.close();
    if (profileDir) for (const side of ["on", "off"]) printProfiles(join(profileDir, side), `APF ${side}: replica CPU profile`);
  }
}
