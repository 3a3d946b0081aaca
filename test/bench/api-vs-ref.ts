/**
 * API benchmark against an earlier build (`npm run bench -- api-vs-ref`): the current
 * tree's server (A) and the server of a git ref (B) side by side, measured interleaved.
 * - B's tree: a temporary `git worktree add --detach` of BENCH_REF (default: the last
 *   commit before the issue 15 architecture work; the choice is printed), with this
 *   tree's node_modules symlinked in; removed with `git worktree remove --force`.
 * - Each server is started in its own process from its tree's `npm start` entry
 *   (`--data-dir`, `--secure-port 0`, `--bind-address 127.0.0.1`, `--profile kubernetes`,
 *   checked against its `--help` first), with its own data dir, generated certificates
 *   and admin client certificate (read from `<data-dir>/pki/`).
 * - The load generator (load-clients.ts) is a third process: GET of one ConfigMap
 *   (64 clients) and create (16 clients), A and B in alternating rounds (BENCH_ROUNDS,
 *   ≥ 3; BENCH_ROUND_MS per side and round, default 5,000); req/s and p99 of each and
 *   min/median/max of the per-round ratios current/ref (harness.ts), after an unmeasured
 *   warm-up of each side; load averages before and after.
 * - Both servers, the load generator, the data dirs and the worktree are removed on
 *   every exit path (failure and SIGINT/SIGTERM included).
 * - For bisection and profiling: BENCH_CURRENT_REF puts a second worktree of that ref on
 *   side A instead of the working tree; BENCH_ONLY=get|get-gzip|create (or a comma
 *   list) runs those comparisons; BENCH_GZIP=1 adds GET by a gzip client (Accept-Encoding:
 *   gzip, as kubectl and client-go send it) to the default GET and create;
 *   BENCH_CPU_PROF=<dir> starts both servers with `--cpu-prof` writing into
 *   `<dir>/<side>/` (written when the server exits on SIGTERM).
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { readFileSync, symlinkSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { request, Agent } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ChildChannel } from "./child-channel.ts";
import { MIN_ROUNDS, RatioTable, cpuSeconds, interleave, machineLoad } from "./harness.ts";
import type { CallTemplate, ClosedResult, LoadReply, LoadRequest, LoadTarget } from "./load-clients.ts";

const ROOT = join(import.meta.dirname, "..", "..");
/** Parent of 75a8f14 (request-info and negotiation move to endpoints/, issue 15 item 1), the first commit of that work. */
const DEFAULT_REF = "ea8c51dad930c363e5155bdd4d874fffb12ff194";
const DEFAULT_REF_REASON =
  "parent of 75a8f14 'apiserver: move request-info and negotiation ... to endpoints/', the first commit of the issue 15 architecture work " +
  "(the grep for 'filter chain' also matches b7daa1d, the original apiserver commit, which is not part of that work)";
const LISTENING = /API server listening on (https:\/\/127\.0\.0\.1:\d+)/;
const NS = "bench";
const CM_PATH = `/api/v1/namespaces/${NS}/configmaps`;
const PAYLOAD = "x".repeat(700);
/** Unmeasured load on each server before a comparison (JIT, caches, connections). */
const WARMUP_MS = Number(process.env.BENCH_WARMUP_MS ?? 3000);
const JSON_HEADERS = { "content-type": "application/json", accept: "application/json" };

interface Server {
  name: string;
  child: ChildProcess;
  exited: Promise<void>;
  dir: string;
  target: LoadTarget;
}

function git(args: string[]): string {
  return execFileSync("git", args, { cwd: ROOT, encoding: "utf8" }).trim();
}

/** The file `npm start` runs in a tree (`"start": "tsx <entry>"`). */
function startEntry(packageJson: string): string {
  const parsed = JSON.parse(packageJson) as { scripts?: Record<string, string> };
  const m = /^tsx\s+(\S+\.ts)$/.exec(parsed.scripts?.start ?? "");
  if (!m) throw new Error(`unexpected start script: ${parsed.scripts?.start ?? "(none)"}`);
  return m[1];
}

function configMap(name: string): string {
  return JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { payload: PAYLOAD } });
}

async function startServer(name: string, tree: string, write: (t: string) => void): Promise<Server> {
  const entry = startEntry(readFileSync(join(tree, "package.json"), "utf8"));
  const help = execFileSync(process.execPath, ["--import", "tsx", entry, "--help"], { cwd: tree, encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "" } });
  for (const flag of ["--data-dir", "--secure-port", "--bind-address", "--profile"]) {
    if (!help.includes(flag)) throw new Error(`${name}: ${entry} --help does not list ${flag}`);
  }
  const dir = await mkdtemp(join(tmpdir(), `bench-avr-${name}-`));
  const profDir = process.env.BENCH_CPU_PROF;
  const profArgs = profDir ? ["--cpu-prof", "--cpu-prof-dir", join(profDir, name)] : [];
  const args = [...profArgs, "--import", "tsx", entry, "--data-dir", dir, "--secure-port", "0", "--bind-address", "127.0.0.1", "--profile", "kubernetes"];
  write(`${name}: ${tree}$ node ${args.join(" ")}\n`);
  const child = spawn(process.execPath, args, { cwd: tree, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NODE_OPTIONS: "" } });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const log: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`${name}: no listening line within 90 s:\n${log.join("").slice(-2000)}`)), 90_000);
    child.stdout?.on("data", (c: Buffer) => {
      out += c.toString();
      if (log.length < 200) log.push(c.toString());
      const m = LISTENING.exec(out);
      if (m) {
        clearTimeout(timer);
        out = "";
        resolve(m[1]);
      }
    });
    child.stderr?.on("data", (c: Buffer) => {
      if (log.length < 200) log.push(c.toString());
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${name}: exited (${code}) before listening:\n${log.join("").slice(-2000)}`));
    });
  }).catch(async (err: unknown) => {
    child.kill("SIGKILL");
    await rm(dir, { recursive: true, force: true });
    throw err;
  });
  const pki = (f: string) => readFileSync(join(dir, "pki", f), "utf8");
  return { name, child, exited, dir, target: { url, ca: pki("ca.crt"), cert: pki("admin.crt"), key: pki("admin.key") } };
}

async function stopServer(s: Server): Promise<void> {
  if (s.child.exitCode === null && s.child.signalCode === null) {
    s.child.kill("SIGTERM");
    const done = await Promise.race([s.exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 10_000))]);
    if (!done) {
      s.child.kill("SIGKILL");
      await s.exited;
    }
  }
  await rm(s.dir, { recursive: true, force: true });
}

async function call(target: LoadTarget, method: string, path: string, body: string): Promise<number> {
  const agent = new Agent({ ca: target.ca, cert: target.cert, key: target.key });
  try {
    return await new Promise<number>((resolve, reject) => {
      const req = request(new URL(path, target.url), { method, agent, headers: JSON_HEADERS }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end(body);
    });
  } finally {
    agent.destroy();
  }
}

export async function benchApiVsRef(write: (t: string) => void = (t) => void process.stdout.write(t)): Promise<Record<string, number>> {
  const rounds = Math.max(MIN_ROUNDS, Number(process.env.BENCH_ROUNDS ?? 3));
  const roundMs = Number(process.env.BENCH_ROUND_MS ?? 5000);
  const refArg = process.env.BENCH_REF ?? DEFAULT_REF;
  const ref = git(["rev-parse", "--verify", `${refArg}^{commit}`]);
  const currentRef = process.env.BENCH_CURRENT_REF ? git(["rev-parse", "--verify", `${process.env.BENCH_CURRENT_REF}^{commit}`]) : undefined;
  const only = process.env.BENCH_ONLY;
  const head = currentRef ? currentRef.slice(0, 7) : git(["rev-parse", "--short", "HEAD"]);
  const refShort = ref.slice(0, 7);
  write(`ref ${refShort} (${git(["log", "-1", "--format=%s", ref]).slice(0, 100)}): ${process.env.BENCH_REF ? "BENCH_REF" : DEFAULT_REF_REASON}\n`);
  if (currentRef) write(`current: ref ${head} (BENCH_CURRENT_REF: ${git(["log", "-1", "--format=%s", currentRef]).slice(0, 100)})\n`);
  else write(`current: working tree at ${head}${git(["status", "--porcelain", "--untracked-files=no"]) ? " (with uncommitted changes)" : ""}\n`);
  write(`machine before: ${machineLoad()}\n`);

  const scratch = await mkdtemp(join(tmpdir(), "bench-avr-tree-"));
  const worktree = join(scratch, "ref");
  const worktrees = currentRef ? [worktree, join(scratch, "current")] : [worktree];
  const servers: Server[] = [];
  let load: ChildChannel<LoadRequest, LoadReply> | undefined;
  let cleaned: Promise<void> | undefined;
  const cleanup = (): Promise<void> =>
    (cleaned ??= (async () => {
      load?.kill();
      await Promise.all(servers.map((s) => stopServer(s).catch((e: unknown) => write(`cleanup ${s.name}: ${String(e)}\n`))));
      for (const tree of worktrees) {
        try {
          git(["worktree", "remove", "--force", tree]);
        } catch (e) {
          write(`cleanup worktree: ${String(e)}\n`);
        }
      }
      await rm(scratch, { recursive: true, force: true });
    })());
  const onSignal = (sig: NodeJS.Signals) => void cleanup().finally(() => process.exit(sig === "SIGINT" ? 130 : 143));
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const table = new RatioTable(`api: current (${head}) vs ref (${refShort})`);
  try {
    const refs = currentRef ? [ref, currentRef] : [ref];
    refs.forEach((r, i) => {
      git(["worktree", "add", "--detach", worktrees[i], r]);
      symlinkSync(join(ROOT, "node_modules"), join(worktrees[i], "node_modules"));
    });
    servers.push(await startServer("current", currentRef ? worktrees[1] : ROOT, write));
    servers.push(await startServer(`ref-${refShort}`, worktree, write));
    const [a, b] = servers;
    for (const s of servers) {
      const ns = await call(s.target, "POST", "/api/v1/namespaces", JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: NS } }));
      const cm = await call(s.target, "POST", CM_PATH, configMap("get"));
      if (ns !== 201 || cm !== 201) throw new Error(`${s.name} setup: namespace ${ns}, configmap ${cm}`);
    }
    const channel = new ChildChannel<LoadRequest, LoadReply>(new URL("./load-clients.ts", import.meta.url));
    load = channel;
    /** A round's result and the server's CPU milliseconds per request in it (less sensitive to the machine's load than req/s). */
    const closed = (s: Server, c: CallTemplate, concurrency: number) => async (round: number): Promise<ClosedResult & { cpuMsPerRequest: number }> => {
      const cpuBefore = cpuSeconds(s.child.pid);
      const r = await channel.ask({ type: "closed", target: s.target, call: c, durationMs: roundMs, concurrency }, "closedDone");
      const cpuMsPerRequest = ((cpuSeconds(s.child.pid) - cpuBefore) * 1000) / Math.max(1, r.requests);
      write(`  round ${round} ${s.name}: ${r.rps.toFixed(0)} req/s, p99 ${r.p99.toFixed(1)} ms, ${cpuMsPerRequest.toFixed(3)} ms CPU/request${r.failures ? `, ${r.failures} failed (first: ${r.firstFailure ?? "?"})` : ""}\n`);
      return { ...r, cpuMsPerRequest };
    };
    const compare = async (key: string, label: string, c: CallTemplate, concurrency: number): Promise<void> => {
      write(`${label}, ${concurrency} clients, ${rounds} rounds of ${roundMs} ms a side (after an unmeasured ${WARMUP_MS} ms warm-up of each):\n`);
      for (const s of servers) await channel.ask({ type: "closed", target: s.target, call: c, durationMs: WARMUP_MS, concurrency }, "closedDone");
      const res = await interleave(rounds, closed(a, c, concurrency), closed(b, c, concurrency));
      const names = { aName: "current", bName: `ref ${refShort}` };
      table.add({ key: `${key}_rps`, label: `${label} req/s, ${concurrency} clients`, ...names, a: res.a.map((x) => x.rps), b: res.b.map((x) => x.rps), unit: "req/s", better: "higher" });
      table.add({ key: `${key}_p99`, label: `${label} p99, ${concurrency} clients`, ...names, a: res.a.map((x) => x.p99), b: res.b.map((x) => x.p99), unit: "ms", better: "lower" });
      table.add({ key: `${key}_cpu`, label: `${label} server CPU per request, ${concurrency} clients`, ...names, a: res.a.map((x) => x.cpuMsPerRequest), b: res.b.map((x) => x.cpuMsPerRequest), unit: "ms", better: "lower" });
    };
    const runs = (key: string) => (only ? only.split(",").includes(key) : key !== "get-gzip" || process.env.BENCH_GZIP === "1");
    if (runs("get")) await compare("get", "GET one ConfigMap", { method: "GET", path: `${CM_PATH}/get`, headers: { accept: "application/json" } }, 64);
    // The public clients (kubectl, client-go) send Accept-Encoding: gzip on every request.
    if (runs("get-gzip")) await compare("get_gzip", "GET one ConfigMap, gzip client", { method: "GET", path: `${CM_PATH}/get`, headers: { accept: "application/json", "accept-encoding": "gzip" } }, 64);
    if (runs("create")) await compare("create", "create ConfigMap", { method: "POST", path: CM_PATH, body: configMap("c-{n}"), headers: JSON_HEADERS, expect: 201 }, 16);
  } finally {
    await cleanup();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  write(table.size > 0 ? table.render() : "no figures\n");
  write(`machine after: ${machineLoad()}\n`);
  return table.figures();
}
