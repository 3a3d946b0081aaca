/**
 * API benchmark (`npm run bench -- api`). Four processes: the apiserver (the embedded
 * default, `services/embedded/main.ts`, profile `kubernetes`), the ceiling (ceiling.ts:
 * a bare node:https server with the same certificates and client-certificate TLS,
 * answering with the bytes the apiserver answered), the load generator
 * (load-clients.ts; the watchers in watch-clients.ts), and this one, which only
 * orchestrates. Every comparison runs its two sides in alternating rounds and prints
 * min/median/max of the per-round ratios (harness.ts):
 * - GET of one ConfigMap, 64 clients: apiserver vs ceiling (req/s, p99, server CPU per
 *   request from /proc);
 * - create, update (PUT), merge patch, server-side apply, 16 clients: vs ceiling (the same);
 * - LIST of BENCH_LIST_OBJECTS ConfigMaps (10,000; BENCH_LIST_LARGE=1: 100,000): JSON
 *   vs the same bytes from the ceiling's memory, protobuf vs JSON (p50 latency);
 * - watch: BENCH_WATCHERS (1,000) watchers, creates at a fixed offered rate (10/s,
 *   open loop, achieved rate printed): delivery delay p50/p99 vs the bare fan-out;
 * - unless BENCH_CLUSTER=0: GET and create on one replica of a process cluster (3 store
 *   nodes over gRPC, Redis revision stream; no load balancer) vs the embedded server,
 *   req/s and server CPU ms per request (from /proc);
 * - unless BENCH_CLUSTER=0: GET through haproxy in front of 2 replicas of a cluster as
 *   `npm run cluster` starts it vs the embedded server (req/s; CPU of both replicas);
 * - unless BENCH_SCALE_OBJECTS=0: create at scale (issue 27): two local clusters as
 *   `npm run cluster` starts them (idle-cluster.ts; 1 store node, 1 replica, the
 *   controller managers), one holding BENCH_SCALE_OBJECTS (100,000) ConfigMaps and one
 *   holding none; creates on each replica in interleaved rounds, p99 and req/s.
 * BENCH_ONLY=<parts> (comma-separated: get, writes, list, watch, cluster, lb, scale) runs
 * only those parts.
 * Absolute figures depend on the machine's load (printed before and after): compare
 * the ratios.
 */
import { readFileSync, readdirSync } from "node:fs";
import { ensurePki } from "../../services/apiserver/server/certs.ts";
import { getProfile } from "../../shared/platform/index.ts";
import { startProcessCluster } from "../support/process-cluster.ts";
import { startServerProcess } from "../support/server-process.ts";
import type { CeilingReply, CeilingRequest, CeilingRoute } from "./ceiling.ts";
import { ChildChannel } from "./child-channel.ts";
import { MIN_ROUNDS, RatioTable, alternate, cpuSeconds, interleave, machineLoad } from "./harness.ts";
import type { CallTemplate, ClosedResult, LoadReply, LoadRequest, LoadTarget, OpenResult } from "./load-clients.ts";
import { startBenchCluster, seedConfigMaps, type BenchCluster } from "./idle-cluster.ts";
import { WatchClientsProcess } from "./watch-process.ts";

export interface ApiBenchOptions {
  rounds: number;
  /** Length of one side of one round of the closed-loop comparisons. */
  roundMs: number;
  getClients: number;
  writeClients: number;
  listObjects: number;
  /** LIST calls per side and round. */
  listCalls: number;
  watchers: number;
  watchRatePerSec: number;
  watchWritesPerRound: number;
  /** Also compare a replica of a process cluster (3 store nodes, Redis) with the embedded server. */
  cluster: boolean;
  /** Stored objects of the create-at-scale comparison; 0 or unset: not run. */
  scaleObjects?: number;
  /**
   * Only these parts (BENCH_ONLY, comma-separated: get, writes, list, watch, cluster, lb, scale), e.g. for a
   * before/after of one path; unset: all of them.
   */
  only?: ReadonlySet<ApiBenchPart>;
  write: (text: string) => void;
}

/** The parts of the bench that BENCH_ONLY can choose. */
export const API_BENCH_PARTS = ["get", "writes", "list", "watch", "cluster", "lb", "scale"] as const;
export type ApiBenchPart = (typeof API_BENCH_PARTS)[number];

/** BENCH_ONLY's parts; an unknown name is an error (a typo would silently run nothing). */
export function parseBenchOnly(value: string | undefined): ReadonlySet<ApiBenchPart> | undefined {
  const names = (value ?? "").split(",").map((x) => x.trim()).filter((x) => x !== "");
  if (names.length === 0) return undefined;
  for (const n of names) if (!(API_BENCH_PARTS as readonly string[]).includes(n)) throw new Error(`BENCH_ONLY: unknown part "${n}" (known: ${API_BENCH_PARTS.join(", ")})`);
  return new Set(names as ApiBenchPart[]);
}

export function defaultApiBenchOptions(): ApiBenchOptions {
  const large = process.env.BENCH_LIST_LARGE === "1";
  return {
    rounds: Number(process.env.BENCH_ROUNDS ?? 3),
    roundMs: Number(process.env.BENCH_ROUND_MS ?? 3000),
    getClients: 64,
    writeClients: 16,
    listObjects: Number(process.env.BENCH_LIST_OBJECTS ?? (large ? 100_000 : 10_000)),
    listCalls: large ? 3 : 10,
    watchers: Number(process.env.BENCH_WATCHERS ?? 1000),
    watchRatePerSec: 10,
    watchWritesPerRound: 50,
    cluster: process.env.BENCH_CLUSTER !== "0",
    scaleObjects: Number(process.env.BENCH_SCALE_OBJECTS ?? 100_000),
    only: parseBenchOnly(process.env.BENCH_ONLY),
    write: (t) => void process.stdout.write(t),
  };
}

const NS = "bench";
const CM_PATH = `/api/v1/namespaces/${NS}/configmaps`;
const PAYLOAD = "x".repeat(700);

function configMap(name: string, labels?: Record<string, string>, data: Record<string, string> = { payload: PAYLOAD }): string {
  return JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, ...(labels ? { labels } : {}) }, data });
}

class Ceiling {
  private readonly channel = new ChildChannel<CeilingRequest, CeilingReply>(new URL("./ceiling.ts", import.meta.url));
  target?: LoadTarget;
  /** The ceiling's process, for its CPU per request. */
  pid?: number;

  async start(tls: { key: string; cert: string; ca: string }, client: { cert: string; key: string }): Promise<LoadTarget> {
    const { port, pid } = await this.channel.ask({ type: "start", tls }, "started");
    this.pid = pid;
    this.target = { url: `https://127.0.0.1:${port}`, ca: tls.ca, cert: client.cert, key: client.key };
    return this.target;
  }

  async route(route: Omit<CeilingRoute, "body">, body: Buffer): Promise<void> {
    await this.channel.ask({ type: "route", route: { ...route, body: body.toString("base64") } }, "routed");
  }

  kill(): void {
    this.channel.kill();
  }
}

class Load {
  private readonly channel = new ChildChannel<LoadRequest, LoadReply>(new URL("./load-clients.ts", import.meta.url));

  async closed(target: LoadTarget, call: CallTemplate, durationMs: number, concurrency: number, count?: number): Promise<ClosedResult> {
    return this.channel.ask({ type: "closed", target, call, durationMs, concurrency, count }, "closedDone");
  }

  async open(target: LoadTarget, call: CallTemplate, ratePerSec: number, count: number, namePrefix: string): Promise<OpenResult> {
    return this.channel.ask({ type: "open", target, call, ratePerSec, count, namePrefix }, "openDone");
  }

  kill(): void {
    this.channel.kill();
  }
}

/** One call answered by the apiserver, as the ceiling should answer it. */
async function capture(target: LoadTarget, call: CallTemplate): Promise<{ status: number; contentType: string; body: Buffer }> {
  const { request, Agent } = await import("node:https");
  const agent = new Agent({ ca: target.ca, cert: target.cert, key: target.key });
  try {
    return await new Promise((resolve, reject) => {
      const req = request(new URL(call.path.replaceAll("{n}", "0").replaceAll("{m}", "0"), target.url), { method: call.method, agent, headers: call.headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers["content-type"] ?? ""), body: Buffer.concat(chunks) }));
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end(call.body?.replaceAll("{n}", "capture").replaceAll("{m}", "0").replaceAll("{name}", "capture"));
    });
  } finally {
    agent.destroy();
  }
}

function checkClosed(label: string, r: ClosedResult, write: (t: string) => void): void {
  if (r.failures > 0) write(`  ${label}: ${r.failures} failed calls (first: ${r.firstFailure ?? "?"})\n`);
}

export async function benchApi(opts: ApiBenchOptions = defaultApiBenchOptions()): Promise<Record<string, number>> {
  const write = opts.write;
  const rounds = Math.max(MIN_ROUNDS, opts.rounds);
  write(`machine before: ${machineLoad()}\n`);
  const profile = getProfile("kubernetes");
  const server = await startServerProcess();
  const ceiling = new Ceiling();
  const load = new Load();
  const table = new RatioTable("api");
  const extra: Record<string, number> = {};
  try {
    const pki = await ensurePki(server.dir, { profile });
    const ours: LoadTarget = { url: server.url, ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem };
    const bare = await ceiling.start({ key: pki.serving.keyPem, cert: pki.serving.certPem, ca: pki.ca.certPem }, { cert: pki.admin.certPem, key: pki.admin.keyPem });
    const json = { "content-type": "application/json", accept: "application/json" };

    const ns = await capture(ours, { method: "POST", path: "/api/v1/namespaces", body: JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: NS } }), headers: json });
    if (ns.status !== 201) throw new Error(`namespace ${NS}: ${ns.status} ${ns.body.toString().slice(0, 300)}`);

    const serverPid = pidWithArg(server.dir);
    /** A closed-loop run and its server's CPU (user + system, /proc) per request. */
    const measured = async (target: LoadTarget, pid: number | undefined, call: CallTemplate, concurrency: number): Promise<ClosedResult & { cpuMs: number }> => {
      const before = cpuSeconds(pid);
      const r = await load.closed(target, call, opts.roundMs, concurrency);
      return { ...r, cpuMs: pid !== undefined && r.requests > 0 ? ((cpuSeconds(pid) - before) * 1000) / r.requests : Number.NaN };
    };
    /** A closed-loop call on both servers; the ceiling answers what the apiserver answered to `sample`. */
    const closedPair = async (key: string, label: string, call: CallTemplate, concurrency: number, sample: CallTemplate = call): Promise<void> => {
      const answer = await capture(ours, sample);
      if (answer.status !== (call.expect ?? 200)) throw new Error(`${label}: apiserver answered ${answer.status}: ${answer.body.toString().slice(0, 300)}`);
      await ceiling.route({ method: call.method, pathPrefix: call.path.split("?")[0].split("{")[0], status: answer.status, contentType: answer.contentType }, answer.body);
      const res = { a: [] as (ClosedResult & { cpuMs: number })[], b: [] as (ClosedResult & { cpuMs: number })[] };
      for (let r = 0; r < rounds; r++) {
        res.a.push(await measured(ours, serverPid, call, concurrency));
        res.b.push(await measured(bare, ceiling.pid, call, concurrency));
      }
      res.a.forEach((x) => checkClosed(`${label} apiserver`, x, write));
      res.b.forEach((x) => checkClosed(`${label} ceiling`, x, write));
      table.add({ key: `${key}_rps`, label: `${label} req/s, ${concurrency} clients`, aName: "apiserver", bName: "bare https", a: res.a.map((x) => x.rps), b: res.b.map((x) => x.rps), unit: "req/s", better: "higher" });
      table.add({ key: `${key}_p99`, label: `${label} p99, ${concurrency} clients`, aName: "apiserver", bName: "bare https", a: res.a.map((x) => x.p99), b: res.b.map((x) => x.p99), unit: "ms", better: "lower" });
      // Server CPU per request beside throughput: what the gap is made of, and steadier on a loaded machine.
      if (res.a.every((x) => Number.isFinite(x.cpuMs)) && res.b.every((x) => Number.isFinite(x.cpuMs))) {
        table.add({ key: `${key}_cpu`, label: `${label} server CPU per request`, aName: "apiserver", bName: "bare https", a: res.a.map((x) => x.cpuMs), b: res.b.map((x) => x.cpuMs), unit: "ms", better: "lower" });
      }
    };

    // GET one object.
    const runs = (part: ApiBenchPart): boolean => !opts.only || opts.only.has(part);
    // The object every GET comparison reads (the cluster and load-balancer ones read it on the embedded side).
    if (runs("get") || (opts.cluster && (runs("cluster") || runs("lb")))) await capture(ours, { method: "POST", path: CM_PATH, body: configMap("get"), headers: json });
    if (runs("get")) await closedPair("get", "GET one ConfigMap", { method: "GET", path: `${CM_PATH}/get`, headers: { accept: "application/json" } }, opts.getClients);

    // Writes: create, update, merge patch, apply (on objects u-<m>, p-<m>, a-<m>, m < 100, created first).
    const writes = runs("writes");
    if (writes) await closedPair("create", "create ConfigMap", { method: "POST", path: CM_PATH, body: configMap("c-{n}"), headers: json, expect: 201 }, opts.writeClients, {
      method: "POST",
      path: CM_PATH,
      body: configMap("c-sample"),
      headers: json,
      expect: 201,
    });
    const objects = 100;
    const prepare = { method: "POST", path: CM_PATH, headers: json, expect: 201 };
    if (writes) for (const prefix of ["u", "p", "a"]) await load.closed(ours, { ...prepare, body: configMap(`${prefix}-{m}`), modulo: objects }, 60_000, 8, objects);
    if (writes) await closedPair("update", "update (PUT) ConfigMap", { method: "PUT", path: `${CM_PATH}/u-{m}`, body: configMap("u-{m}", undefined, { payload: PAYLOAD, n: "{n}" }), headers: json, modulo: objects }, opts.writeClients);
    if (writes) await closedPair("patch", "merge patch ConfigMap", { method: "PATCH", path: `${CM_PATH}/p-{m}`, body: JSON.stringify({ data: { n: "{n}" } }), headers: { "content-type": "application/merge-patch+json", accept: "application/json" }, modulo: objects }, opts.writeClients);
    if (writes) {
      await closedPair(
        "apply",
        "server-side apply ConfigMap",
        { method: "PATCH", path: `${CM_PATH}/a-{m}?fieldManager=bench&force=true`, body: configMap("a-{m}", undefined, { payload: PAYLOAD, n: "{n}" }), headers: { "content-type": "application/apply-patch+yaml", accept: "application/json" }, modulo: objects },
        opts.writeClients,
      );
    }

    // LIST: JSON vs bytes from memory; protobuf vs JSON.
    if (runs("list")) await listBench(opts, rounds, ours, ceiling, bare, load, table, extra, serverPid);

    // Watch at a fixed offered rate vs the bare fan-out.
    if (runs("watch")) await watchBench(opts, rounds, ours, bare, load, table, extra);

    if (opts.cluster && runs("cluster")) await clusterBench(opts, rounds, ours, serverPid, load, table);
    if (opts.cluster && runs("lb")) await loadBalancedBench(opts, rounds, ours, serverPid, load, table);

    if (runs("scale") && (opts.scaleObjects ?? 0) > 0) await scaleBench(opts, rounds, load, table);
  } finally {
    load.kill();
    ceiling.kill();
    await server.close();
  }
  write(table.render());
  write(`machine after: ${machineLoad()}\n`);
  return { ...table.figures(), ...extra };
}

async function listBench(opts: ApiBenchOptions, rounds: number, ours: LoadTarget, ceiling: Ceiling, bare: LoadTarget, load: Load, table: RatioTable, extra: Record<string, number>, serverPid?: number): Promise<void> {
  const write = opts.write;
  const profile = getProfile("kubernetes");
  const listNs = "big";
  const path = `/api/v1/namespaces/${listNs}/configmaps`;
  const json = { "content-type": "application/json", accept: "application/json" };
  await capture(ours, { method: "POST", path: "/api/v1/namespaces", body: JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: listNs } }), headers: json });
  const started = Date.now();
  const filled = await load.closed(ours, { method: "POST", path, body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "o-{n}" }, data: { j: "{n}" } }), headers: json, expect: 201 }, 30 * 60_000, 32, opts.listObjects);
  write(`filled ${filled.requests} ConfigMaps in ${((Date.now() - started) / 1000).toFixed(1)} s (${filled.failures} failed)\n`);
  const jsonCall: CallTemplate = { method: "GET", path, headers: { accept: "application/json" } };
  const pbCall: CallTemplate = { method: "GET", path, headers: { accept: profile.protobufMediaType } };
  const jsonBody = await capture(ours, jsonCall);
  const pbBody = await capture(ours, pbCall);
  extra.list_json_bytes = jsonBody.body.length;
  extra.list_protobuf_bytes = pbBody.body.length;
  await ceiling.route({ method: "GET", pathPrefix: path, status: 200, contentType: jsonBody.contentType }, jsonBody.body);
  const n = opts.listObjects;
  // The apiserver's CPU per call (user + system, /proc) is kept beside the latencies: on a loaded machine it varies far less.
  const cpuMs = { json: [] as number[], protobuf: [] as number[] };
  const calls = async (target: LoadTarget, call: CallTemplate, cpu?: number[]) => {
    const before = cpuSeconds(serverPid);
    const r = await load.closed(target, call, 10 * 60_000, 1, opts.listCalls);
    if (cpu && r.requests > 0) cpu.push(((cpuSeconds(serverPid) - before) * 1000) / r.requests);
    return r;
  };
  const jsonVsBare = { a: [] as ClosedResult[], b: [] as ClosedResult[] };
  const pbVsJson = { a: [] as ClosedResult[], b: [] as ClosedResult[] };
  for (let r = 0; r < rounds; r++) {
    jsonVsBare.a.push(await calls(ours, jsonCall, cpuMs.json));
    jsonVsBare.b.push(await calls(bare, jsonCall));
    pbVsJson.a.push(await calls(ours, pbCall, cpuMs.protobuf));
    pbVsJson.b.push(await calls(ours, jsonCall, cpuMs.json));
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1] ?? Number.NaN;
  extra.list_json_server_cpu_ms = median(cpuMs.json);
  extra.list_protobuf_server_cpu_ms = median(cpuMs.protobuf);
  write(`LIST ${opts.listObjects}: apiserver CPU per call, median of rounds: JSON ${extra.list_json_server_cpu_ms.toFixed(1)} ms, protobuf ${extra.list_protobuf_server_cpu_ms.toFixed(1)} ms\n`);
  table.add({ key: "list_json", label: `LIST ${n} JSON p50`, aName: "apiserver", bName: "same bytes from memory", a: jsonVsBare.a.map((x) => x.p50), b: jsonVsBare.b.map((x) => x.p50), unit: "ms", better: "lower" });
  table.add({ key: "list_protobuf_vs_json", label: `LIST ${n} protobuf p50`, aName: "protobuf", bName: "JSON", a: pbVsJson.a.map((x) => x.p50), b: pbVsJson.b.map((x) => x.p50), unit: "ms", better: "lower" });
  write(`LIST ${n}: JSON ${jsonBody.body.length} bytes, protobuf ${pbBody.body.length} bytes\n`);
}

async function watchBench(opts: ApiBenchOptions, rounds: number, ours: LoadTarget, bare: LoadTarget, load: Load, table: RatioTable, extra: Record<string, number>): Promise<void> {
  const write = opts.write;
  const json = { "content-type": "application/json", accept: "application/json" };
  const writes = opts.watchWritesPerRound;
  type Side = { p50: number; p99: number; delivered: number; sentRate: number };
  const watcherProcesses = { ours: new WatchClientsProcess(), bare: new WatchClientsProcess() };
  const side = async (round: number, target: LoadTarget, isOurs: boolean): Promise<Side> => {
    const label = `watch-${round}`;
    const clients = isOurs ? watcherProcesses.ours : watcherProcesses.bare;
    const watchPath = isOurs ? `${CM_PATH}?watch=1&labelSelector=bench%3D${label}` : "/fanout";
    const opened = await clients.open({ url: target.url, ca: target.ca, cert: target.cert ?? "", key: target.key ?? "" }, watchPath, opts.watchers);
    if (opened !== opts.watchers) throw new Error(`only ${opened}/${opts.watchers} watches opened`);
    const call: CallTemplate = { method: "POST", path: isOurs ? CM_PATH : "/fanout", body: configMap("{name}", { bench: label }, { n: "{n}" }), headers: json, expect: 201 };
    const sent = await load.open(target, call, opts.watchRatePerSec, writes, `${isOurs ? "w" : "f"}-${round}-`);
    if (sent.failures > 0) write(`  watch writer (${isOurs ? "apiserver" : "fan-out"}): ${sent.failures} failed (first: ${sent.firstFailure ?? "?"})\n`);
    const d = await clients.collect(new Map(Object.entries(sent.sentAt)), writes, 60_000);
    write(
      `  watch round ${round} ${isOurs ? "apiserver" : "bare fan-out"}: offered ${sent.offeredRate}/s, sent ${sent.sentRate.toFixed(1)}/s, completed ${sent.completedRate.toFixed(1)}/s; ${d.delivered}/${writes * opts.watchers} events, p50 ${d.p50} ms, p99 ${d.p99} ms${d.broken ? `, ${d.broken} broken` : ""}\n`,
    );
    return { p50: d.p50, p99: d.p99, delivered: d.delivered, sentRate: sent.sentRate };
  };
  const res = { a: [] as Side[], b: [] as Side[] };
  try {
    for (let r = 0; r < rounds; r++) {
      res.a.push(await side(r, ours, true));
      res.b.push(await side(r, bare, false));
    }
  } finally {
    watcherProcesses.ours.kill();
    watcherProcesses.bare.kill();
  }
  const label = `watch ${opts.watchers}×${opts.watchRatePerSec}/s`;
  // A delay of 0 ms (same millisecond) would make a ratio infinite: floor both at 1 ms.
  const floor = (v: number) => Math.max(1, v);
  table.add({ key: "watch_p50", label: `${label} p50`, aName: "apiserver", bName: "bare fan-out", a: res.a.map((x) => floor(x.p50)), b: res.b.map((x) => floor(x.p50)), unit: "ms", better: "lower" });
  table.add({ key: "watch_p99", label: `${label} p99`, aName: "apiserver", bName: "bare fan-out", a: res.a.map((x) => floor(x.p99)), b: res.b.map((x) => floor(x.p99)), unit: "ms", better: "lower" });
  extra.watch_events_expected_per_round = writes * opts.watchers;
  extra.watch_events_delivered_min = Math.min(...res.a.map((x) => x.delivered));
  extra.watch_sent_rate_min = Math.min(...res.a.map((x) => x.sentRate), ...res.b.map((x) => x.sentRate));
}

/** The pid of the process whose command line has `arg` (the embedded server: its data dir). */
function pidWithArg(arg: string): number | undefined {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").includes(arg)) return Number(entry);
    } catch {
      // the process ended meanwhile
    }
  }
  return undefined;
}

async function clusterBench(opts: ApiBenchOptions, rounds: number, embedded: LoadTarget, embeddedPid: number | undefined, load: Load, table: RatioTable): Promise<void> {
  const write = opts.write;
  const cluster = await startProcessCluster({ stores: 3, replicas: 1, profile: "kubernetes" });
  try {
    const replica = cluster.replicas[0];
    const target: LoadTarget = { url: replica.url, ca: cluster.pki.ca.certPem, cert: cluster.pki.admin.certPem, key: cluster.pki.admin.keyPem };
    const json = { "content-type": "application/json", accept: "application/json" };
    const ns = await capture(target, { method: "POST", path: "/api/v1/namespaces", body: JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: NS } }), headers: json });
    const cm = await capture(target, { method: "POST", path: CM_PATH, body: configMap("get"), headers: json });
    if (ns.status !== 201 || cm.status !== 201) throw new Error(`cluster setup: namespace ${ns.status}, configmap ${cm.status}: ${cm.body.toString().slice(0, 300)}`);
    type Side = { rps: number; cpuMs: number };
    const side = async (t: LoadTarget, pid: number | undefined, call: CallTemplate, concurrency: number): Promise<Side> => {
      const before = cpuSeconds(pid);
      const r = await load.closed(t, call, opts.roundMs, concurrency);
      checkClosed(t === target ? "cluster replica" : "embedded", r, write);
      return { rps: r.rps, cpuMs: r.requests > 0 ? ((cpuSeconds(pid) - before) * 1000) / r.requests : Number.NaN };
    };
    const compare = async (key: string, label: string, call: CallTemplate, concurrency: number) => {
      const res = await interleave(
        rounds,
        () => side(target, replica.child?.pid, call, concurrency),
        () => side(embedded, embeddedPid, call, concurrency),
      );
      table.add({ key: `${key}_rps`, label: `${label} req/s, ${concurrency} clients`, aName: "cluster replica", bName: "embedded", a: res.a.map((x) => x.rps), b: res.b.map((x) => x.rps), unit: "req/s", better: "higher" });
      if (embeddedPid !== undefined) {
        table.add({ key: `${key}_cpu`, label: `${label} server CPU per request`, aName: "cluster replica", bName: "embedded", a: res.a.map((x) => x.cpuMs), b: res.b.map((x) => x.cpuMs), unit: "ms", better: "lower" });
      }
    };
    await compare("cluster_get", "GET one ConfigMap", { method: "GET", path: `${CM_PATH}/get`, headers: { accept: "application/json" } }, opts.getClients);
    await compare("cluster_create", "create ConfigMap", { method: "POST", path: CM_PATH, body: configMap("k-{n}"), headers: json, expect: 201 }, opts.writeClients);
  } finally {
    await cluster.stop();
  }
}

/**
 * GET throughput of two replicas behind haproxy, as `npm run cluster` starts them (3 store
 * nodes, Redis, controller managers), vs the embedded server, interleaved: the issue's
 * "2 replicas behind haproxy on 2 cores" goal. Server CPU per GET is summed over both
 * replicas (haproxy's and the store's CPU are not in it).
 */
async function loadBalancedBench(opts: ApiBenchOptions, rounds: number, embedded: LoadTarget, embeddedPid: number | undefined, load: Load, table: RatioTable): Promise<void> {
  const write = opts.write;
  const cluster = await startBenchCluster({ nodes: 3, replicas: 2 });
  try {
    const json = { "content-type": "application/json", accept: "application/json" };
    const ns = await capture(cluster.target, { method: "POST", path: "/api/v1/namespaces", body: JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: NS } }), headers: json });
    const cm = await capture(cluster.target, { method: "POST", path: CM_PATH, body: configMap("get"), headers: json });
    if (ns.status !== 201 || cm.status !== 201) throw new Error(`load-balanced setup: namespace ${ns.status}, configmap ${cm.status}: ${cm.body.toString().slice(0, 300)}`);
    const replicaPids = cluster.records.filter((r) => r.role === "apiserver").map((r) => r.pid);
    const call: CallTemplate = { method: "GET", path: `${CM_PATH}/get`, headers: { accept: "application/json" } };
    type Side = { rps: number; cpuMs: number };
    const side = async (t: LoadTarget, pids: Array<number | undefined>, label: string): Promise<Side> => {
      const cpu = () => pids.reduce((sum: number, pid) => sum + cpuSeconds(pid), 0);
      const before = cpu();
      const r = await load.closed(t, call, opts.roundMs, opts.getClients);
      checkClosed(label, r, write);
      return { rps: r.rps, cpuMs: r.requests > 0 ? ((cpu() - before) * 1000) / r.requests : Number.NaN };
    };
    // Both replicas serve the object before the first round (the second one through its watch cache).
    await load.closed(cluster.target, call, 1000, 8);
    const res = await alternate(
      rounds,
      () => side(cluster.target, replicaPids, "2 replicas behind haproxy"),
      () => side(embedded, [embeddedPid], "embedded"),
    );
    const label = `GET one ConfigMap req/s, ${opts.getClients} clients`;
    table.add({ key: "lb_get_rps", label, aName: "2 replicas + haproxy", bName: "embedded", a: res.a.map((x) => x.rps), b: res.b.map((x) => x.rps), unit: "req/s", better: "higher" });
    if (embeddedPid !== undefined && replicaPids.length === 2) {
      table.add({ key: "lb_get_cpu", label: "GET one ConfigMap server CPU per request (both replicas)", aName: "2 replicas + haproxy", bName: "embedded", a: res.a.map((x) => x.cpuMs), b: res.b.map((x) => x.cpuMs), unit: "ms", better: "lower" });
    } else {
      write(`load-balanced: replica pids ${JSON.stringify(replicaPids)}: no CPU comparison\n`);
    }
  } finally {
    await cluster.stop();
  }
}

/** Create p99 and req/s on a replica holding `opts.scaleObjects` ConfigMaps vs one holding none, interleaved. */
async function scaleBench(opts: ApiBenchOptions, rounds: number, load: Load, table: RatioTable): Promise<void> {
  const write = opts.write;
  const objects = opts.scaleObjects ?? 0;
  const namespaces = 100;
  const empty = await startBenchCluster({ nodes: 1, replicas: 1 });
  try {
    const full = await startBenchCluster({ nodes: 1, replicas: 1 });
    try {
      await seedConfigMaps(empty, "scale", namespaces, 0);
      const t0 = Date.now();
      await seedConfigMaps(full, "scale", namespaces, objects);
      write(`scale: stored ${objects} ConfigMaps in ${((Date.now() - t0) / 1000).toFixed(1)} s; machine: ${machineLoad()}\n`);
      // The replica's watch cache and the controllers take in the seeded objects first.
      await load.closed(full.replica(0), { method: "GET", path: `/api/v1/namespaces/scale-0/configmaps?limit=1`, headers: { accept: "application/json" } }, 60_000, 1, 1);
      const call: CallTemplate = {
        method: "POST",
        path: "/api/v1/namespaces/scale-{m}/configmaps",
        body: configMap("s-{n}", undefined, { n: "{n}" }),
        headers: { "content-type": "application/json", accept: "application/json" },
        expect: 201,
        modulo: namespaces,
      };
      const side = async (c: BenchCluster, label: string): Promise<ClosedResult> => {
        const r = await load.closed(c.replica(0), call, opts.roundMs, opts.writeClients);
        checkClosed(label, r, write);
        return r;
      };
      // Each side goes first in every other round: the side measured second runs beside the first one's tail of work (events, controllers).
      const res = await alternate(
        rounds,
        () => side(full, `create at ${objects}`),
        () => side(empty, "create at 0"),
      );
      table.add({ key: "scale_create_p99", label: `create ConfigMap p99, ${opts.writeClients} clients`, aName: `${objects} stored`, bName: "0 stored", a: res.a.map((x) => x.p99), b: res.b.map((x) => x.p99), unit: "ms", better: "lower" });
      table.add({ key: "scale_create_rps", label: `create ConfigMap req/s, ${opts.writeClients} clients`, aName: `${objects} stored`, bName: "0 stored", a: res.a.map((x) => x.rps), b: res.b.map((x) => x.rps), unit: "req/s", better: "higher" });
    } finally {
      await full.stop();
    }
  } finally {
    await empty.stop();
  }
}
