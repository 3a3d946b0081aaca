/**
 * A 3-node store cluster of real processes (services/store/main.ts) publishing to a
 * real redis-server, on loopback random ports in a temp dir, with the faults the
 * chaos tests inject: SIGKILL, SIGSTOP/SIGCONT, graceful restart with the node's
 * data, Redis restart. Each node's last output lines are kept for failure reports.
 *
 * With `peerProxies`, every member's peer port sits behind a PeerProxy of ours
 * (peer-proxy.ts): --initial-cluster names the proxies, so `partition(i)` cuts
 * member i off from the others (both directions) and `delayPeers(i, ms)` slows
 * the traffic into it, until `heal()`.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnStoreNode, stopChild, storeStatus, waitForMembers, waitForStore, type StoreNodeSpec } from "../../services/store/server/node-process.ts";
import { freePort } from "../support/ports.ts";
import { PeerProxy } from "./peer-proxy.ts";
import { startRedis, type RedisServer } from "../support/redis.ts";

export const STREAM = "revisions";

/** SIGKILL; resolves once the process is gone (at once when there is none). */
export async function killChild(c: ChildProcess | undefined): Promise<void> {
  if (c === undefined || c.exitCode !== null || c.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => c.once("exit", () => resolve()));
  c.kill("SIGKILL");
  await exited;
}

export interface StoreNode {
  spec: StoreNodeSpec;
  endpoint: string;
  child: ChildProcess | undefined;
  paused: boolean;
  output: string[];
}

export interface StoreClusterOptions {
  /** Put a PeerProxy in front of every member's peer port. */
  peerProxies?: boolean;
}

export class StoreCluster {
  /** The proxy in front of each member's peer port (empty without `peerProxies`). */
  readonly proxies: PeerProxy[] = [];

  private constructor(
    readonly dir: string,
    readonly redis: RedisServer,
    readonly nodes: StoreNode[],
  ) {}

  get endpoints(): string[] {
    return this.nodes.map((n) => n.endpoint);
  }

  static async start(size = 3, opts: StoreClusterOptions = {}): Promise<StoreCluster> {
    const dir = await mkdtemp(join(tmpdir(), "store-chaos-"));
    const redis = await startRedis();
    const ports = await Promise.all(Array.from({ length: 2 * size }, () => freePort()));
    const holder: { cluster?: StoreCluster } = {};
    const pids = () => (holder.cluster?.nodes ?? []).flatMap((n) => (n.child?.pid === undefined ? [] : [n.child.pid]));
    const proxies = opts.peerProxies ? await Promise.all(Array.from({ length: size }, (_, i) => PeerProxy.start({ host: "127.0.0.1", port: ports[2 * i + 1] }, pids))) : [];
    const peerUrl = (i: number) => proxies[i]?.url ?? `http://127.0.0.1:${ports[2 * i + 1]}`;
    const initialCluster = Array.from({ length: size }, (_, i) => `s${i}=${peerUrl(i)}`).join(",");
    const nodes: StoreNode[] = Array.from({ length: size }, (_, i) => ({
      spec: { name: `s${i}`, clientPort: ports[2 * i], peerPort: ports[2 * i + 1], dataDir: join(dir, `s${i}`), initialCluster, redisUrl: redis.url, revisionStream: STREAM },
      endpoint: `127.0.0.1:${ports[2 * i]}`,
      child: undefined,
      paused: false,
      output: [],
    }));
    const cluster = new StoreCluster(dir, redis, nodes);
    holder.cluster = cluster;
    cluster.proxies.push(...proxies);
    try {
      for (let i = 0; i < size; i++) cluster.spawn(i);
      await Promise.all(nodes.map((n) => waitForStore(n.endpoint, 60_000, n.child)));
      await waitForMembers(nodes[0].endpoint, size);
    } catch (err) {
      await cluster.stop();
      throw err;
    }
    return cluster;
  }

  private spawn(i: number): void {
    const node = this.nodes[i];
    const child = spawnStoreNode(node.spec, { stdio: ["ignore", "pipe", "pipe"] });
    const keep = (d: Buffer) => {
      node.output.push(d.toString());
      if (node.output.length > 200) node.output.splice(0, node.output.length - 200);
    };
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    node.child = child;
    node.paused = false;
  }

  /** Index of the node that the live nodes agree leads, or -1. */
  async leader(): Promise<number> {
    const statuses = await Promise.all(this.nodes.map((n) => (n.child !== undefined && !n.paused ? storeStatus(n.endpoint, 1000).catch(() => undefined) : undefined)));
    for (let i = 0; i < statuses.length; i++) {
      const s = statuses[i];
      if (s !== undefined && s.leader !== "0" && s.leader === s.header.member_id) return i;
    }
    return -1;
  }

  async waitForLeader(timeoutMs = 20_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const i = await this.leader();
      if (i >= 0) return i;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`no leader within ${timeoutMs} ms`);
  }

  async kill(i: number): Promise<void> {
    const c = this.nodes[i].child;
    this.nodes[i].child = undefined;
    await killChild(c);
  }

  /** Starts a stopped node again with its data and waits until it serves with a leader. */
  async restart(i: number): Promise<void> {
    const node = this.nodes[i];
    if (node.child !== undefined) await stopChild(node.child, 5000);
    node.child = undefined;
    this.spawn(i);
    await waitForStore(node.endpoint, 30_000, node.child);
  }

  pause(i: number): void {
    this.nodes[i].child?.kill("SIGSTOP");
    this.nodes[i].paused = true;
  }

  resume(i: number): void {
    this.nodes[i].child?.kill("SIGCONT");
    this.nodes[i].paused = false;
  }

  /** Store revision according to the leader (Maintenance Status). */
  async revision(): Promise<number> {
    const i = await this.waitForLeader();
    return Number((await storeStatus(this.nodes[i].endpoint)).header.revision);
  }

  /** Waits until the revision has not moved for `quietMs` (late commits of timed-out writes are in). */
  async waitForQuiet(quietMs = 1500, timeoutMs = 20_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    let last = await this.revision();
    let since = Date.now();
    while (Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      const rev = await this.revision();
      if (rev !== last) [last, since] = [rev, Date.now()];
      else if (Date.now() - since >= quietMs) return rev;
    }
    throw new Error(`store revision still moving after ${timeoutMs} ms`);
  }

  /** Cuts member i off from the other members, both ways (needs `peerProxies`). */
  partition(i: number): void {
    const pid = this.nodes[i].child?.pid;
    this.proxies.forEach((p, j) => p.block(j === i ? "all" : pid === undefined ? "none" : [pid]));
  }

  /** Slows every peer message into member i by `ms` (needs `peerProxies`). */
  delayPeers(i: number, ms: number): void {
    this.proxies[i]?.delay(ms);
  }

  /** Ends partitions and delays. */
  heal(): void {
    for (const p of this.proxies) p.pass();
  }

  outputTail(lines = 20): string {
    return this.nodes.map((n) => `--- ${n.spec.name}\n${n.output.join("").split("\n").slice(-lines).join("\n")}`).join("\n");
  }

  async stop(): Promise<void> {
    for (let i = 0; i < this.nodes.length; i++) {
      const c = this.nodes[i].child;
      if (c === undefined) continue;
      if (this.nodes[i].paused) this.resume(i);
      await stopChild(c, 3000);
      this.nodes[i].child = undefined;
    }
    await Promise.all(this.proxies.map((p) => p.stop()));
    await this.redis.stop();
    await rm(this.dir, { recursive: true, force: true });
  }
}
