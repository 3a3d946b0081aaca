/**
 * Graceful termination of apiserver replica processes (server/shutdown.ts), over a
 * real store member and Redis (test/support/process-cluster.ts):
 *
 * - one replica with `--shutdown-delay-duration 1s --shutdown-send-retry-after
 *   --shutdown-watch-termination-grace-period 2s`, SIGTERMed while a create is in
 *   flight (its body still arriving): during the delay readyz fails with
 *   `[-]shutdown failed: reason withheld`, livez and the API are served; after it new
 *   requests get 429 with `Retry-After: 5` and `Connection: close`; the in-flight
 *   create completes (201), the watch ends cleanly, the process exits 0 after logging
 *   the lifecycle signals in order, and the port refuses connections;
 * - a rolling restart behind the local haproxy (deploy/local/haproxy-config.ts): of two
 *   replicas, one (LONG=1: each in turn, twice over) SIGTERMed and started again, while a writer creates and a
 *   reader lists through haproxy (a new connection per request) and a watcher follows
 *   through haproxy, resuming from its last resourceVersion whenever its stream ends:
 *   zero failed requests (an answer with Retry-After is sent again after it, as the
 *   platform's clients do: it was not applied), every create seen exactly once, no
 *   watch cut. These replicas have a shutdown delay of 3 s: haproxy takes a replica
 *   out on its failing /readyz and keeps its open sessions, so in-flight requests finish
 *   and new connections go elsewhere before the listener closes.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { request as httpsRequest, Agent, type RequestOptions } from "node:https";
import type { ClientRequest, IncomingMessage } from "node:http";
import { connect } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { haproxyConfig } from "../../deploy/local/haproxy-config.ts";
import { REPO_ROOT, stopChild } from "../../services/store/server/node-process.ts";
import { HttpsClient } from "../support/https-client.ts";
import { freePort } from "../support/ports.ts";
import { startProcessCluster, type ProcessCluster } from "../support/process-cluster.ts";

const APISERVER_MAIN = join(REPO_ROOT, "services", "apiserver", "main.ts");
const CONFIGMAPS = "/api/v1/namespaces/default/configmaps";
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface ReplicaProcess {
  port: number;
  child: ChildProcess;
  output: string[];
  exit: Promise<number | null>;
}

let cluster: ProcessCluster;
const running = new Set<ChildProcess>();

async function waitReady(client: HttpsClient, child: ChildProcess, output: string[]): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`apiserver exited with ${child.exitCode}: ${output.join("").slice(-2000)}`);
    const res = await client.get("/readyz", { connection: "close" }).catch(() => undefined);
    if (res?.status === 200) return;
    await sleep(150);
  }
  throw new Error(`apiserver not ready: ${output.join("").slice(-2000)}`);
}

/** Starts one replica process on `port` with the given extra flags and waits until /readyz passes. */
async function startReplica(port: number, flags: string[]): Promise<ReplicaProcess> {
  const args = ["--import", "tsx", APISERVER_MAIN, "--data-dir", join(cluster.dir, "apiserver"), "--secure-port", String(port), "--store-endpoints", cluster.storeEndpoints.join(","), "--redis-url", cluster.redis.url, ...flags];
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LOG_LEVEL: "info" } });
  running.add(child);
  const output: string[] = [];
  child.stdout?.on("data", (d: Buffer) => output.push(d.toString()));
  child.stderr?.on("data", (d: Buffer) => output.push(d.toString()));
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => {
    running.delete(child);
    resolve(code);
  }));
  const client = replicaClient(port);
  try {
    await waitReady(client, child, output);
  } finally {
    client.close();
  }
  return { port, child, output, exit };
}

function replicaClient(port: number): HttpsClient {
  const { pki } = cluster;
  return new HttpsClient(`https://127.0.0.1:${port}`, { ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem });
}

function tlsOptions(): Pick<RequestOptions, "ca" | "cert" | "key"> {
  const { pki } = cluster;
  return { ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem };
}

/** Whether a TCP connection to the port is refused. */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(true));
  });
}

/** The replica of the first test: a shutdown delay, Retry-After answers and a watch grace period. */
const PHASES_FLAGS = ["--shutdown-delay-duration", "1s", "--shutdown-send-retry-after", "--shutdown-watch-termination-grace-period", "2s"];
/** The replicas behind haproxy: the delay outlasts haproxy's check (2 failures 250 ms apart, slower on a loaded machine), so no new connection comes once the listener closes. */
const ROLLING_FLAGS = ["--shutdown-delay-duration", "3s", "--shutdown-watch-termination-grace-period", "2s"];
let phasesReplica: ReplicaProcess;
let rollingReplicas: ReplicaProcess[];

beforeAll(async () => {
  cluster = await startProcessCluster({ stores: 1, replicas: 0 });
  const ports = await Promise.all([freePort(), freePort(), freePort()]);
  [phasesReplica, ...rollingReplicas] = await Promise.all([startReplica(ports[0], PHASES_FLAGS), startReplica(ports[1], ROLLING_FLAGS), startReplica(ports[2], ROLLING_FLAGS)]);
}, 240_000);

afterAll(async () => {
  for (const child of running) await stopChild(child, 2000);
  await cluster?.stop();
}, 60_000);

describe("SIGTERM with --shutdown-delay-duration, --shutdown-send-retry-after and a watch grace period", () => {
  it("fails readiness first, refuses new requests with 429 after the delay, finishes the in-flight create, ends the watch and exits 0", async () => {
    const replica = phasesReplica;
    const client = replicaClient(replica.port);
    try {
      // A watch, and a create whose body is still arriving when the signal comes.
      const watch = await openWatch(`https://127.0.0.1:${replica.port}${CONFIGMAPS}?watch=1`);
      const body = JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "in-flight" }, data: { k: "v" } });
      const slow = startRequest(`https://127.0.0.1:${replica.port}${CONFIGMAPS}`, "POST", { "content-type": "application/json", "content-length": String(body.length) });
      slow.req.write(body.slice(0, 10));
      await sleep(200);
      const signalledAt = Date.now();
      replica.child.kill("SIGTERM");
      await sleep(200);

      const readyz = await client.get("/readyz?verbose", { connection: "close" });
      expect(readyz.status).toBe(500);
      expect(readyz.text).toContain("[-]shutdown failed: reason withheld");
      expect((await client.get("/livez", { connection: "close" })).status).toBe(200);
      expect((await client.get(CONFIGMAPS, { connection: "close" })).status).toBe(200);
      expect(Date.now() - signalledAt).toBeLessThan(1000);

      await sleep(Math.max(0, signalledAt + 1300 - Date.now()));
      const refusedRequest = await client.get(CONFIGMAPS);
      expect(refusedRequest.status).toBe(429);
      expect(refusedRequest.headers["retry-after"]).toBe("5");
      expect(refusedRequest.headers.connection).toBe("close");
      expect(refusedRequest.text).toBe("The apiserver is shutting down, please try again later.\n");
      expect((await client.get("/readyz", { connection: "close" })).status).toBe(500); // health probes are never refused

      slow.req.end(body.slice(10));
      const created = await slow.response;
      expect(created.status).toBe(201);
      expect(await watch.ended).toBe("clean");
      expect(await replica.exit).toBe(0);
      expect(await refused(replica.port)).toBe(true);
      const events = [...replica.output.join("").matchAll(/"name":"(\w+)"[^\n]*"msg":"\[graceful-termination\] shutdown event"|"msg":"\[graceful-termination\] shutdown event"[^\n]*"name":"(\w+)"/g)].map((m) => m[1] ?? m[2]);
      expect(events).toEqual(["ShutdownInitiated", "AfterShutdownDelayDuration", "InFlightRequestsDrained", "NotAcceptingNewRequest", "HTTPServerStoppedListening"]);
    } finally {
      client.close();
    }
  }, 60_000);
});

interface StartedRequest {
  req: ClientRequest;
  response: Promise<{ status: number; text: string }>;
}

function startRequest(url: string, method: string, headers: Record<string, string>, agent?: Agent): StartedRequest {
  let req!: ClientRequest;
  const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
    req = httpsRequest(url, { method, headers, agent: agent ?? false, ...tlsOptions() }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
  });
  return { req, response };
}

interface OpenWatch {
  events: Array<{ type: string; object: { metadata?: { name?: string; resourceVersion?: string } } }>;
  /** "clean" when the server ended the stream, "cut" when the connection broke. */
  ended: Promise<"clean" | "cut">;
  stop(): void;
}

/** One watch stream (200 expected); resolves once its headers arrived. */
function openWatch(url: string): Promise<OpenWatch> {
  return new Promise((resolve, reject) => {
    const events: OpenWatch["events"] = [];
    let settle!: (how: "clean" | "cut") => void;
    const ended = new Promise<"clean" | "cut">((r) => {
      let done = false;
      settle = (how) => {
        if (!done) r(how);
        done = true;
      };
    });
    const req = httpsRequest(url, { agent: false, headers: { connection: "close" }, ...tlsOptions() }, (res: IncomingMessage) => {
      if (res.statusCode !== 200) {
        reject(new Error(`watch answered ${res.statusCode}`));
        res.resume();
        return;
      }
      let buf = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        buf += chunk;
        for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
          const line = buf.slice(0, nl).trim();
          buf = buf.slice(nl + 1);
          if (line) events.push(JSON.parse(line) as OpenWatch["events"][number]);
        }
      });
      res.on("end", () => settle(res.complete ? "clean" : "cut"));
      res.on("aborted", () => settle("cut"));
      res.on("error", () => settle("cut"));
      resolve({ events, ended, stop: () => req.destroy() });
    });
    req.on("error", (err) => {
      settle("cut");
      reject(err);
    });
    req.end();
  });
}

/** A watcher that reopens its stream from its last resourceVersion whenever it ends. */
class ResumingWatcher {
  readonly added = new Map<string, number>();
  readonly errors: string[] = [];
  clean = 0;
  cut = 0;
  private stopped = false;
  private current: OpenWatch | undefined;
  private readonly loop: Promise<void>;

  constructor(
    private readonly baseUrl: string,
    private resourceVersion: string,
  ) {
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let watch: OpenWatch;
      try {
        watch = await openWatch(`${this.baseUrl}${CONFIGMAPS}?watch=1&allowWatchBookmarks=true&resourceVersion=${this.resourceVersion}`);
      } catch (err) {
        this.errors.push(`open: ${String(err)}`);
        await sleep(100);
        continue;
      }
      this.current = watch;
      const how = await watch.ended;
      for (const ev of watch.events) {
        const rv = ev.object.metadata?.resourceVersion;
        if (rv) this.resourceVersion = rv;
        if (ev.type === "ERROR") this.errors.push(JSON.stringify(ev.object));
        if (ev.type === "ADDED") {
          const name = String(ev.object.metadata?.name);
          this.added.set(name, (this.added.get(name) ?? 0) + 1);
        }
      }
      if (this.stopped) return;
      if (how === "clean") this.clean++;
      else this.cut++;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.current?.stop();
    await this.loop;
  }
}

/** haproxy's view of its servers through the stats socket: the `status` column of every server of the backend. */
function serverStates(socketPath: string): Promise<string[]> {
  return new Promise((resolve) => {
    let text = "";
    const socket = connect(socketPath);
    socket.on("connect", () => socket.write("show stat\n"));
    socket.on("data", (d: Buffer) => (text += d.toString()));
    socket.on("error", () => resolve([]));
    socket.on("close", () => {
      const [header, ...rows] = text.split("\n").filter((l) => l.trim() !== "");
      const columns = (header ?? "").replace(/^# /, "").split(",");
      const [svname, status] = [columns.indexOf("svname"), columns.indexOf("status")];
      resolve(rows.map((r) => r.split(",")).filter((r) => r[svname] !== "FRONTEND" && r[svname] !== "BACKEND").map((r) => r[status]));
    });
  });
}

async function waitAllUp(socketPath: string, count: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const states = await serverStates(socketPath);
    if (states.length === count && states.every((s) => s === "UP")) return;
    if (Date.now() > deadline) throw new Error(`haproxy servers not all up: ${states.join(",")}`);
    await sleep(100);
  }
}

interface Answer {
  status: number;
  text: string;
  headers?: Record<string, string | string[] | undefined>;
}

/**
 * Sends a request as the platform's clients do: an answer 429 or 5xx carrying
 * `Retry-After` is sent again after that many seconds (it was not applied); counted in `retried`.
 */
async function sendRetrying(send: () => Promise<Answer>, retried: { count: number }): Promise<Answer> {
  for (let attempt = 0; ; attempt++) {
    const res = await send().catch((err: unknown): Answer => ({ status: 0, text: String(err) }));
    const retryAfter = res.headers?.["retry-after"];
    if (attempt >= 10 || typeof retryAfter !== "string" || (res.status !== 429 && res.status < 500)) return res;
    retried.count++;
    await sleep(Number(retryAfter) * 1000);
  }
}

/**
 * Every replica is restarted in turn (LONG=1: twice over): the watch sits on
 * whichever replica haproxy's round robin gave it, and it must end cleanly and
 * resume at least once.
 */
const LONG = process.env.LONG === "1";

describe("rolling restart behind haproxy", () => {
  it("costs no request, and the watcher sees every create once", async () => {
    const replicas = rollingReplicas;
    const ports = replicas.map((r) => r.port);
    const lbPort = await freePort();
    const config = join(cluster.dir, "haproxy.cfg");
    const statsSocket = join(cluster.dir, "haproxy.sock");
    // The local configuration, with a stats socket to see when haproxy has a restarted replica up again.
    const text = haproxyConfig({ bind: `127.0.0.1:${lbPort}`, backends: ports.map((p, i) => ({ name: `apiserver-${i}`, address: `127.0.0.1:${p}` })) });
    writeFileSync(config, text.replace("global\n", `global\n  stats socket ${statsSocket}\n`));
    const haproxy = spawn("haproxy", ["-f", config, "-db"], { stdio: "ignore" });
    running.add(haproxy);
    const lbUrl = `https://127.0.0.1:${lbPort}`;
    const lb = new HttpsClient(lbUrl, tlsOptions() as { ca: string; cert: string; key: string });
    try {
      await waitReady(lb, haproxy, []);
      await waitAllUp(statsSocket, ports.length);
      const list = await lb.get(CONFIGMAPS, { connection: "close" });
      const watcher = new ResumingWatcher(lbUrl, String(list.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion));

      let stopLoad = false;
      const failures: string[] = [];
      const created: string[] = [];
      let reads = 0;
      const retried = { count: 0 };
      const writer = (async () => {
        for (let i = 0; !stopLoad; i++) {
          const name = `rolling-${i}`;
          const res = await sendRetrying(() => lb.request("POST", CONFIGMAPS, { body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name } }, headers: { connection: "close" } }), retried);
          if (res.status === 201) created.push(name);
          else failures.push(`create ${name}: ${res.status} ${res.text.slice(0, 200)}`);
        }
      })();
      const reader = (async () => {
        while (!stopLoad) {
          const res = await sendRetrying(() => lb.get(`${CONFIGMAPS}?limit=10`, { connection: "close" }), retried);
          if (res.status === 200) reads++;
          else failures.push(`list: ${res.status} ${res.text.slice(0, 200)}`);
        }
      })();

      await sleep(500);
      for (let round = 0; round < (LONG ? 2 : 1); round++) {
        for (const [i, replica] of replicas.entries()) {
          replica.child.kill("SIGTERM");
          expect(await replica.exit).toBe(0);
          replicas[i] = await startReplica(replica.port, ROLLING_FLAGS);
          await waitAllUp(statsSocket, ports.length); // haproxy has it up again before the next one goes
        }
      }
      stopLoad = true;
      await Promise.all([writer, reader]);

      // The watcher has seen every acknowledged create exactly once.
      const deadline = Date.now() + 10_000;
      while (created.some((n) => !watcher.added.has(n)) && Date.now() < deadline) await sleep(100);
      await watcher.stop();
      process.stdout.write(`rolling restart: ${created.length} creates, ${reads} lists, ${failures.length} failed, ${retried.count} answers with Retry-After retried; watch resumed ${watcher.clean} times after a clean end, ${watcher.cut} after a cut\n`);
      expect(failures).toEqual([]);
      expect(created.length).toBeGreaterThan(10);
      expect(created.filter((n) => watcher.added.get(n) !== 1)).toEqual([]);
      expect([...watcher.added.values()].every((count) => count === 1)).toBe(true);
      expect(watcher.errors).toEqual([]);
      expect(watcher.cut).toBe(0);
      expect(watcher.clean).toBeGreaterThanOrEqual(1);
    } finally {
      lb.close();
      await stopChild(haproxy, 1000);
    }
  }, LONG ? 900_000 : 240_000);
});
