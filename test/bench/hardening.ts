/**
 * Hardening benchmark (`npm run bench -- hardening`): the apiserver (`main.ts`, the
 * embedded default) in its own process, the clients in another (hardening-clients.ts),
 * and this process sampling the server's RSS (/proc/<pid>/status) and timing
 * `GET /livez`:
 * - 20 concurrent lists of a namespace of ~100 MB (1,000 ConfigMaps of 100 KiB):
 *   peak RSS above the idle server, /livez latency meanwhile (goals < 1 GiB, < 100 ms);
 * - 10,000 idle watches: RSS and JS heap per watch (after full GCs), and per idle TLS
 *   connection (1,000 of them, opened well within the 32 s header timeout: the
 *   transport's floor that every HTTP/1.1 watch pays), so the watch's own cost is the
 *   difference.
 *
 * `npm run bench -- livez-lists` and `npm run bench -- watch-memory` run one half each.
 *
 * `HARDENING_ROOT=<checkout>` runs the server of another checkout (with its own or a
 * linked node_modules) for a before/after comparison on the same machine.
 * `HARDENING_LISTS`, `HARDENING_WATCHES`, `HARDENING_CONNECTIONS`, `HARDENING_OBJECTS` scale the runs.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { Agent, request } from "node:https";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ChildChannel } from "./child-channel.ts";
import { InspectorClient, inspectorUrl } from "./inspector-client.ts";
import type { ClientTarget, HardeningReply, HardeningRequest } from "./hardening-clients.ts";
import { percentile } from "./watch-clients.ts";

const LISTENING = /API server listening on (https:\/\/127\.0\.0\.1:\d+)/;

interface ServerChild {
  child: ChildProcess;
  url: string;
  inspector: InspectorClient;
  target: ClientTarget;
  close(): Promise<void>;
}

export async function startServer(root: string, extraNodeArgs: string[] = []): Promise<ServerChild> {
  const dir = await mkdtemp(join(tmpdir(), "bench-hardening-"));
  // The single-process entry; builds before services/embedded/ ran it from the apiserver's main.
  const embedded = join(root, "services", "embedded", "main.ts");
  const main = existsSync(embedded) ? embedded : join(root, "services", "apiserver", "main.ts");
  const args = [...extraNodeArgs, "--inspect=127.0.0.1:0", "--import", "tsx", main, "--data-dir", dir, "--secure-port", "0", "--bind-address", "127.0.0.1", "--profile", "kubernetes"];
  const child = spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NODE_OPTIONS: "" } });
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  let inspectorRef: InspectorClient | undefined;
  const close = async (): Promise<void> => {
    inspectorRef?.close();
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const done = await Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 10_000))]);
      if (!done) {
        child.kill("SIGKILL");
        await exited;
      }
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    let stderr = "";
    child.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
    const url = await new Promise<string>((resolveUrl, reject) => {
      let out = "";
      const timer = setTimeout(() => reject(new Error(`apiserver did not start within 60 s:\n${out}`)), 60_000);
      child.stdout?.on("data", (c: Buffer) => {
        out += c.toString();
        const m = LISTENING.exec(out);
        if (m) {
          clearTimeout(timer);
          resolveUrl(m[1]);
        }
      });
      child.stderr?.on("data", (c: Buffer) => (out += c.toString()));
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`apiserver exited (${code}):\n${out}`));
      });
    });
    child.stdout?.resume();
    const pki = (f: string) => readFileSync(join(dir, "pki", f), "utf8");
    const inspector = await InspectorClient.connect(inspectorUrl(stderr) ?? "");
    inspectorRef = inspector;
    return { child, url, inspector, target: { url, ca: pki("ca.crt"), cert: pki("admin.crt"), key: pki("admin.key") }, close };
  } catch (err) {
    await close();
    throw err;
  }
}

function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) * 1024 : 0;
}

function call(agent: Agent, base: string, method: string, path: string, body?: unknown): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((done, reject) => {
    const req = request(new URL(path, base), { method, agent, headers: body ? { "content-type": "application/json" } : {} }, (res) => {
      res.on("data", () => {});
      res.on("end", () => done({ status: res.statusCode ?? 0, ms: performance.now() - started }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

/** Samples the server's RSS every 50 ms and times sequential /livez calls until stopped. */
export function monitor(pid: number, agent: Agent, base: string): { stop(): Promise<{ peakRss: number; livez: number[] }> } {
  let running = true;
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssBytes(pid))), 50);
  const livez: number[] = [];
  const prober = (async () => {
    while (running) {
      livez.push((await call(agent, base, "GET", "/livez")).ms);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return {
    async stop() {
      running = false;
      clearInterval(sampler);
      await prober;
      return { peakRss: Math.max(peakRss, rssBytes(pid)), livez };
    },
  };
}

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MiB = 1024 * 1024;

export async function fillNamespace(agent: Agent, base: string, objects: number): Promise<void> {
  await call(agent, base, "POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "big" } });
  const value = "x".repeat(100 * 1024);
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < objects) {
        const i = next++;
        const r = await call(agent, base, "POST", "/api/v1/namespaces/big/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `big-${i}` }, data: { v: value } });
        if (r.status !== 201) throw new Error(`create big-${i}: ${r.status}`);
      }
    }),
  );
}

export type HardeningPart = "lists" | "watches";

export async function benchHardening(parts: HardeningPart[] = ["lists", "watches"]): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const root = resolve(process.env.HARDENING_ROOT ?? join(import.meta.dirname, "..", ".."));
  const lists = Number(process.env.HARDENING_LISTS ?? 20);
  const watches = Number(process.env.HARDENING_WATCHES ?? 10_000);
  const objects = Number(process.env.HARDENING_OBJECTS ?? 1000);
  // Idle connections that never send a request are closed after the 32 s header timeout:
  // the floor is measured with as many as open well within it.
  const connections = Math.min(watches, Number(process.env.HARDENING_CONNECTIONS ?? 1000));
  const server = await startServer(root);
  const clients = new ChildChannel<HardeningRequest, HardeningReply>(new URL("./hardening-clients.ts", import.meta.url));
  const pid = server.child.pid as number;
  const t = server.target;
  const agent = new Agent({ ca: t.ca, cert: t.cert, key: t.key, keepAlive: true, maxSockets: 32 });
  try {
    process.stdout.write(`server ${root} (pid ${pid}) at ${server.url}\n`);
    if (parts.includes("lists")) await listsPart();
    if (parts.includes("watches")) await watchesPart();
  } finally {
    agent.destroy();
    clients.kill();
    await server.close();
  }
  return out;

  async function listsPart(): Promise<void> {
    const started = Date.now();
    await fillNamespace(agent, server.url, objects);
    process.stdout.write(`filled namespace big: ${objects} ConfigMaps of 100 KiB in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);

    // Lists: one to warm up, then `lists` at once while /livez is timed.
    const warm = await clients.ask({ type: "lists", target: t, path: "/api/v1/namespaces/big/configmaps", count: 1 }, "listed");
    out.list_bytes = warm.bytes;
    await settle(1000);
    await server.inspector.heapUsedAfterGc();
    await settle(1000);
    const idleRss = rssBytes(pid);
    const idleLivez = monitor(pid, agent, server.url);
    await settle(2000);
    const idle = await idleLivez.stop();
    const m = monitor(pid, agent, server.url);
    const listed = await clients.ask({ type: "lists", target: t, path: "/api/v1/namespaces/big/configmaps", count: lists }, "listed");
    const during = await m.stop();
    const sorted = [...during.livez].sort((a, b) => a - b);
    out.idle_rss_mib = idleRss / MiB;
    out.lists_ok = listed.ok;
    out.lists_ms = listed.ms;
    out.lists_peak_extra_rss_mib = (during.peakRss - idleRss) / MiB;
    out.livez_idle_max_ms = Math.max(...idle.livez);
    out.livez_during_lists_p50_ms = percentile(sorted, 50);
    out.livez_during_lists_p99_ms = percentile(sorted, 99);
    out.livez_during_lists_max_ms = sorted[sorted.length - 1] ?? 0;
    process.stdout.write(
      `${listed.ok}/${lists} concurrent lists of ${(warm.bytes / MiB).toFixed(1)} MiB in ${listed.ms} ms: server RSS +${out.lists_peak_extra_rss_mib.toFixed(0)} MiB at peak (idle ${out.idle_rss_mib.toFixed(0)} MiB); /livez meanwhile p50 ${out.livez_during_lists_p50_ms.toFixed(1)} ms, p99 ${out.livez_during_lists_p99_ms.toFixed(1)} ms, max ${out.livez_during_lists_max_ms.toFixed(1)} ms (${sorted.length} calls; idle max ${out.livez_idle_max_ms.toFixed(1)} ms)\n`,
    );
  }

  async function watchesPart(): Promise<void> {
    // Idle TLS connections (the transport's floor), then idle watches; each measured after a full GC.
    const measure = async (): Promise<{ rss: number; heap: number }> => {
      const heap = await server.inspector.heapUsedAfterGc();
      await settle(500);
      return { heap, rss: rssBytes(pid) };
    };
    const phase = async (label: string, open: () => Promise<number>): Promise<{ n: number; rssKib: number; heapKib: number }> => {
      await settle(2000);
      const before = await measure();
      const at = Date.now();
      const n = await open();
      await settle(2000);
      const after = await measure();
      const still = (await clients.ask({ type: "close" }, "closed")).stillOpen;
      const per = { n, rssKib: (after.rss - before.rss) / 1024 / Math.max(1, n), heapKib: (after.heap - before.heap) / 1024 / Math.max(1, n) };
      process.stdout.write(`${n} ${label} (opened in ${((Date.now() - at) / 1000).toFixed(1)} s, ${still} still open when measured): RSS ${per.rssKib.toFixed(1)} KiB, JS heap ${per.heapKib.toFixed(1)} KiB each\n`);
      return per;
    };
    const conns = await phase("idle TLS connections", async () => (await clients.ask({ type: "connect", target: t, count: connections }, "connected")).open);
    const watchPath = "/api/v1/namespaces/default/configmaps?watch=1&allowWatchBookmarks=true&labelSelector=bench%3Didle";
    const w = await phase("idle watches", async () => (await clients.ask({ type: "watch", target: t, path: watchPath, count: watches }, "watching")).open);
    out.idle_connections = conns.n;
    out.idle_connection_rss_kib = conns.rssKib;
    out.idle_connection_heap_kib = conns.heapKib;
    out.idle_watches = w.n;
    out.idle_watch_rss_kib = w.rssKib;
    out.idle_watch_heap_kib = w.heapKib;
    out.idle_watch_rss_above_connection_kib = w.rssKib - conns.rssKib;
    out.idle_watch_heap_above_connection_kib = w.heapKib - conns.heapKib;
    process.stdout.write(
      `an idle watch costs ${w.rssKib.toFixed(1)} KiB RSS (${out.idle_watch_rss_above_connection_kib.toFixed(1)} KiB above its TLS connection), ${w.heapKib.toFixed(1)} KiB JS heap (${out.idle_watch_heap_above_connection_kib.toFixed(1)} KiB above)\n`,
    );
  }
}
