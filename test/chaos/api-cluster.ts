/**
 * The whole local topology as the chaos suite needs it, every part a real process
 * on loopback random ports: the store cluster of store-cluster.ts (3 members, each
 * peer port behind a PeerProxy, publishing to a real redis-server), N apiserver
 * replicas (services/apiserver/main.ts) sharing one PKI, and haproxy in front of
 * them with the configuration `npm run cluster` generates (deploy/local/haproxy-config.ts).
 *
 * Replicas are started with store compaction off (the after-run checks read the
 * store's whole MVCC history), `--shutdown-delay-duration` so that a SIGTERM fails
 * /readyz before the listener closes, and the clock-offset preload, so that
 * `setClockOffset(i, ms)` jumps replica i's wall clock. Faults: `killReplica`
 * (SIGKILL), `restartReplica` (SIGTERM, wait, start again), plus the store's.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { haproxyConfig } from "../../deploy/local/haproxy-config.ts";
import { ensurePki, type Pki } from "../../services/apiserver/server/certs.ts";
import { REPO_ROOT, stopChild } from "../../services/store/server/node-process.ts";
import { getProfile } from "../../shared/platform/index.ts";
import { HttpsClient } from "../support/https-client.ts";
import { freePort } from "../support/ports.ts";
import { killChild, StoreCluster, STREAM } from "./store-cluster.ts";

const APISERVER_MAIN = join(REPO_ROOT, "services", "apiserver", "main.ts");
const CLOCK_PRELOAD = join(import.meta.dirname, "clock-offset-preload.ts");

export interface Replica {
  name: string;
  port: number;
  url: string;
  clockFile: string;
  child: ChildProcess | undefined;
  output: string[];
}

export interface ApiClusterOptions {
  replicas: number;
  /** --shutdown-delay-duration of every replica. */
  shutdownDelay: string;
}

function keepTail(lines: string[]): (d: Buffer) => void {
  return (d) => {
    lines.push(d.toString());
    if (lines.length > 200) lines.splice(0, lines.length - 200);
  };
}

export class ApiCluster {
  private haproxy: ChildProcess | undefined;
  readonly haproxyOutput: string[] = [];

  private constructor(
    readonly store: StoreCluster,
    readonly pki: Pki,
    readonly replicas: Replica[],
    readonly loadBalancerPort: number,
    private readonly opts: ApiClusterOptions,
  ) {}

  get loadBalancerUrl(): string {
    return `https://127.0.0.1:${this.loadBalancerPort}`;
  }

  /** TLS material of the admin identity (client certificate) and the cluster CA. */
  get adminIdentity(): { ca: string; cert: string; key: string } {
    return { ca: this.pki.ca.certPem, cert: this.pki.admin.certPem, key: this.pki.admin.keyPem };
  }

  static async start(opts: ApiClusterOptions): Promise<ApiCluster> {
    const store = await StoreCluster.start(3, { peerProxies: true });
    let cluster: ApiCluster | undefined;
    try {
      const pki = await ensurePki(join(store.dir, "apiserver"), { profile: getProfile("plat") });
      const replicas: Replica[] = [];
      for (let i = 0; i < opts.replicas; i++) {
        const port = await freePort();
        const clockFile = join(store.dir, `clock-offset-${i}`);
        writeFileSync(clockFile, "0");
        replicas.push({ name: `apiserver-${i}`, port, url: `https://127.0.0.1:${port}`, clockFile, child: undefined, output: [] });
      }
      cluster = new ApiCluster(store, pki, replicas, await freePort(), opts);
      await Promise.all(replicas.map((_, i) => (cluster as ApiCluster).startReplica(i)));
      await cluster.startHaproxy();
      return cluster;
    } catch (err) {
      if (cluster !== undefined) await cluster.stop();
      else await store.stop();
      throw err;
    }
  }

  private async startHaproxy(): Promise<void> {
    const config = join(this.store.dir, "haproxy.cfg");
    writeFileSync(config, haproxyConfig({ bind: `127.0.0.1:${this.loadBalancerPort}`, backends: this.replicas.map((r) => ({ name: r.name, address: `127.0.0.1:${r.port}` })) }));
    const child = spawn("haproxy", ["-f", config, "-db"], { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout?.on("data", keepTail(this.haproxyOutput));
    child.stderr?.on("data", keepTail(this.haproxyOutput));
    this.haproxy = child;
    await this.waitReady(this.loadBalancerUrl, child, this.haproxyOutput, 20_000);
  }

  /** Starts replica i (again) and waits until its /readyz answers 200. */
  async startReplica(i: number): Promise<void> {
    const r = this.replicas[i];
    const args = [
      "--import",
      "tsx",
      "--import",
      CLOCK_PRELOAD,
      APISERVER_MAIN,
      "--data-dir",
      join(this.store.dir, "apiserver"),
      "--bind-address",
      "127.0.0.1",
      "--secure-port",
      String(r.port),
      "--profile",
      "plat",
      "--store-endpoints",
      this.store.endpoints.join(","),
      "--redis-url",
      this.store.redis.url,
      "--revision-stream",
      STREAM,
      "--etcd-compaction-interval",
      "0",
      "--shutdown-delay-duration",
      this.opts.shutdownDelay,
    ];
    const child = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LOG_LEVEL: "warn", CHAOS_CLOCK_OFFSET_FILE: r.clockFile } });
    child.stdout?.on("data", keepTail(r.output));
    child.stderr?.on("data", keepTail(r.output));
    r.child = child;
    // Generous: a replica starting under tsx on a loaded machine can take minutes.
    await this.waitReady(r.url, child, r.output, 240_000);
  }

  private async waitReady(url: string, child: ChildProcess, output: string[], timeoutMs: number): Promise<void> {
    const client = new HttpsClient(url, this.adminIdentity);
    const deadline = Date.now() + timeoutMs;
    try {
      while (Date.now() < deadline) {
        if (child.exitCode !== null) throw new Error(`${url}: process exited with ${child.exitCode}: ${output.join("").slice(-2000)}`);
        const status = await client.get("/readyz").then(
          (res) => res.status,
          () => 0,
        );
        if (status === 200) return;
        await new Promise((r) => setTimeout(r, 200));
      }
      throw new Error(`${url} not ready after ${timeoutMs} ms: ${output.join("").slice(-2000)}`);
    } finally {
      client.close();
    }
  }

  /** SIGKILL of replica i; resolves once it is gone. */
  async killReplica(i: number): Promise<void> {
    const c = this.replicas[i].child;
    this.replicas[i].child = undefined;
    await killChild(c);
  }

  /** SIGTERM (graceful shutdown; SIGKILL after `graceMs`), then start again and wait until ready. */
  async restartReplica(i: number, graceMs = 70_000): Promise<void> {
    const c = this.replicas[i].child;
    this.replicas[i].child = undefined;
    if (c !== undefined) await stopChild(c, graceMs);
    await this.startReplica(i);
  }

  setClockOffset(i: number, ms: number): void {
    writeFileSync(this.replicas[i].clockFile, String(ms));
  }

  outputTail(lines = 15): string {
    const tail = (name: string, out: string[]) => `--- ${name}\n${out.join("").split("\n").slice(-lines).join("\n")}`;
    return [this.store.outputTail(lines), ...this.replicas.map((r) => tail(r.name, r.output)), tail("haproxy", this.haproxyOutput)].join("\n");
  }

  async stop(): Promise<void> {
    if (this.haproxy !== undefined) await stopChild(this.haproxy, 2000);
    await Promise.all(this.replicas.map(async (r) => (r.child === undefined ? undefined : stopChild(r.child, 5000))));
    await this.store.stop();
  }
}
