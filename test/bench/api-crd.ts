/**
 * `npm run bench -- crd` (figures from one run; compare ratios):
 * - create, get and list of custom resources vs ConfigMaps carrying the same payload,
 *   in interleaved 2-second rounds after a 1-second warm-up of each, so both kinds see the
 *   same machine load (each kind goes first in every other round: the second ran beside the
 *   first one's tail of work), min/median/max
 *   of the per-round ratios (goal ≥ 0.8×); both sides are served by the same in-process
 *   replica with the clients in this process, so the ratio compares the two kinds' paths;
 * - CPU per GET of each kind (this process's user + system time from /proc over a fixed
 *   number of GETs, interleaved rounds), which holds up under load better than req/s;
 * - the time from a CRD create on one replica to the first successful custom resource
 *   create on a second replica over the same store (served through its watch cache).
 * - CPU per create in the registry alone (api-crd-path.ts): no HTTP, no store, CPU clock.
 * BENCH_ONLY=create,get,list,path (any of them, comma-separated) runs only those comparisons.
 * BENCH_CPU_PROF=<dir>: BENCH_PROF_GETS (20,000) GETs and BENCH_PROF_CREATES (3,000)
 * creates of each kind are profiled (V8's sampler in this process, which holds server and
 * clients) into <dir>, and the self time a custom resource GET or create spends beyond a
 * ConfigMap's is printed, by file and function.
 */
import { join } from "node:path";
import { startSecondReplica, startTestApiserver } from "../support/apiserver.ts";
import type { HttpsClient } from "../support/https-client.ts";
import { CRD_GROUP, crdPath, cronTabCrd, waitServed } from "../support/crd-fixtures.ts";
import { getProfile } from "../../shared/platform/index.ts";
import { compareCreatePaths, evenRounds } from "./api-crd-path.ts";
import { diffRows, summarizeProfile } from "./cpu-profile-summary.ts";
import { MIN_ROUNDS, RatioTable, alternate, cpuProfiled, cpuSeconds, machineLoad } from "./harness.ts";

const ROUND_MS = 2000;
/**
 * Rounds of each comparison (BENCH_ROUNDS, default 6, at least 3), rounded up to an even
 * number so each kind goes first equally often: rates still rise from round to round
 * after the warm-up, which favoured the kind going second (the custom resource went first
 * in 2 of 3 rounds).
 */
const ROUNDS = evenRounds(Math.max(MIN_ROUNDS, Number(process.env.BENCH_ROUNDS ?? 6)));
/** Each side runs this long before its comparison's first round: the code path warmed, and the work a CRD create sets off (discovery, OpenAPI, the second replica) over. */
const WARM_UP_MS = 1000;
const PAYLOAD = "x".repeat(700);
/** GETs per round of the CPU-per-GET comparison. */
const CPU_GETS = 1500;
const CPU_CONCURRENCY = 32;

const ONLY = new Set((process.env.BENCH_ONLY ?? "").split(",").filter((x) => x !== ""));
const runs = (part: "create" | "get" | "list" | "path"): boolean => ONLY.size === 0 || ONLY.has(part);

/** Unique across rounds: object names of creates never repeat. */
let next = 0;

async function rate(durationMs: number, concurrency: number, op: (i: number) => Promise<void>): Promise<number> {
  let done = 0;
  const end = Date.now() + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) {
        await op(next++);
        done++;
      }
    }),
  );
  return done / (durationMs / 1000);
}

/** Interleaved rounds of `a` and `b` (req/s each round) after a warm-up of each, added to the table; the rounds are printed. */
async function paired(table: RatioTable, key: string, label: string, a: (i: number) => Promise<void>, b: (i: number) => Promise<void>, concurrency: number): Promise<void> {
  await rate(WARM_UP_MS, concurrency, a);
  await rate(WARM_UP_MS, concurrency, b);
  const res = await alternate(
    ROUNDS,
    () => rate(ROUND_MS, concurrency, a),
    () => rate(ROUND_MS, concurrency, b),
  );
  process.stdout.write(`${label} rounds (req/s, custom resource / ConfigMap): ${res.a.map((x, i) => `${x}/${res.b[i]}`).join("  ")}\n`);
  table.add({ key, label: `${label} req/s, ${concurrency} clients`, aName: "custom resource", bName: "ConfigMap", a: res.a, b: res.b, unit: "req/s", better: "higher" });
}

/** `count` calls of `op` over `concurrency` clients. */
async function times(count: number, concurrency: number, op: () => Promise<void>): Promise<void> {
  let left = count;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) await op();
    }),
  );
}

/** CPU microseconds (user + system, this process) per call of `op`, over `count` calls. */
async function cpuPerCall(count: number, op: () => Promise<void>): Promise<number> {
  const before = cpuSeconds(process.pid);
  await times(count, CPU_CONCURRENCY, op);
  return ((cpuSeconds(process.pid) - before) * 1e6) / count;
}

/** `fn` under this process's CPU profiler; the profile is written to `<dir>/<name>.cpuprofile` and summarized. */
async function profileTo(dir: string, name: string, fn: () => Promise<void>): Promise<ReturnType<typeof summarizeProfile>> {
  const { profile } = await cpuProfiled(join(dir, `${name}.cpuprofile`), fn);
  return summarizeProfile(profile, 100_000);
}

async function must(res: Promise<{ status: number; text: string }>, status: number): Promise<void> {
  const r = await res;
  if (r.status !== status) throw new Error(`unexpected ${r.status}: ${r.text.slice(0, 300)}`);
}

/** GET req/s and CPU per GET of one custom resource and one ConfigMap; with BENCH_CPU_PROF, profiles of both. */
async function compareGets(client: HttpsClient, table: RatioTable, crPath: string, cmPath: string, crObject: object, cmObject: object): Promise<void> {
  await must(client.post(crPath.replace(/\/[^/]+$/, ""), crObject), 201);
  await must(client.post(cmPath.replace(/\/[^/]+$/, ""), cmObject), 201);
  const crGet = () => must(client.get(crPath), 200);
  const cmGet = () => must(client.get(cmPath), 200);
  await paired(table, "get", "GET", crGet, cmGet, 32);
  const cpu = await alternate(ROUNDS, () => cpuPerCall(CPU_GETS, crGet), () => cpuPerCall(CPU_GETS, cmGet));
  table.add({ key: "get_cpu", label: `CPU per GET (this process), ${CPU_GETS} GETs a round`, aName: "custom resource", bName: "ConfigMap", a: cpu.a, b: cpu.b, unit: "µs", better: "lower" });
  const profDir = process.env.BENCH_CPU_PROF;
  if (profDir) await profilePair(profDir, "get", Number(process.env.BENCH_PROF_GETS ?? 20_000), CPU_CONCURRENCY, crGet, cmGet);
}

/** `count` calls of each side under the profiler (custom resource first); prints the custom resource's self time beyond the ConfigMap's. */
async function profilePair(dir: string, verb: string, count: number, concurrency: number, cr: () => Promise<void>, cm: () => Promise<void>): Promise<void> {
  const crProfile = await profileTo(dir, `crd-${verb}-custom-resource`, () => times(count, concurrency, cr));
  const cmProfile = await profileTo(dir, `crd-${verb}-configmap`, () => times(count, concurrency, cm));
  const busy = (p: typeof crProfile) => p.totalMs * (1 - p.idleShare);
  process.stdout.write(
    `${count} ${verb}s each (${machineLoad()}): busy ${busy(cmProfile).toFixed(0)} ms ConfigMap → ${busy(crProfile).toFixed(0)} ms custom resource; self time, custom resource minus ConfigMap\n` +
      `by file:\n${diffRows(cmProfile.files, crProfile.files, 25)}by function:\n${diffRows(cmProfile.functions, crProfile.functions, 40)}`,
  );
}

const cr = (name: string) => ({ apiVersion: `${CRD_GROUP}/v1`, kind: "CronTab", metadata: { name }, spec: { image: PAYLOAD } });
const cm = (name: string) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { image: PAYLOAD } });

export async function benchCustomResources(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  if (runs("path")) {
    const table = new RatioTable("custom resources vs ConfigMaps, registry only");
    await compareCreatePaths(getProfile("plat"), table, cr, cm, process.env.BENCH_CPU_PROF);
    process.stdout.write(table.render());
    Object.assign(out, table.figures());
    if (ONLY.size === 1) return out;
  }
  const api = await startTestApiserver({ bookmarkIntervalMs: 60_000 });
  const { replica: second, admin: admin2 } = await startSecondReplica(api, { bookmarkIntervalMs: 60_000 });
  try {
    // CRD create on replica 1 → first successful custom resource create on replica 2.
    const t0 = Date.now();
    await must(api.admin.post(crdPath(api.profile), cronTabCrd(api.profile)), 201);
    const crs = `/apis/${CRD_GROUP}/v1/namespaces/default/crontabs`;
    for (;;) {
      const r = await admin2.post(crs, { apiVersion: `${CRD_GROUP}/v1`, kind: "CronTab", metadata: { name: "first" }, spec: { image: PAYLOAD } });
      if (r.status === 201) break;
      if (Date.now() - t0 > 30_000) throw new Error(`custom resource not served after 30 s: ${r.text}`);
      await new Promise((res) => setTimeout(res, 5));
    }
    out.crd_to_first_cr_ms = Date.now() - t0;
    process.stdout.write(`CRD create (replica 1) → first custom resource created (replica 2): ${out.crd_to_first_cr_ms} ms\n`);
    await waitServed(api.admin, crs);

    const cms = "/api/v1/namespaces/default/configmaps";
    const table = new RatioTable("custom resources vs ConfigMaps (clients in the server's process)");
    if (runs("create")) {
      const crCreate = (i: number) => must(api.admin.post(crs, cr(`c-${i}`)), 201);
      const cmCreate = (i: number) => must(api.admin.post(cms, cm(`c-${i}`)), 201);
      await paired(table, "create", "create", crCreate, cmCreate, 16);
      const profDir = process.env.BENCH_CPU_PROF;
      if (profDir) await profilePair(profDir, "create", Number(process.env.BENCH_PROF_CREATES ?? 3000), 16, () => crCreate(next++), () => cmCreate(next++));
    } else if (runs("list")) {
      await times(100, 16, async () => {
        const i = next++;
        await must(api.admin.post(crs, cr(`c-${i}`)), 201);
        await must(api.admin.post(cms, cm(`c-${i}`)), 201);
      });
    }
    if (runs("get")) await compareGets(api.admin, table, `${crs}/get-me`, `${cms}/get-me`, cr("get-me"), cm("get-me"));
    if (runs("list")) await paired(table, "list", "LIST limit=100", () => must(api.admin.get(`${crs}?limit=100`), 200), () => must(api.admin.get(`${cms}?limit=100`), 200), 8);
    process.stdout.write(table.render());
    Object.assign(out, table.figures());
  } finally {
    admin2.close();
    await second.close();
    await api.close();
  }
  return out;
}
