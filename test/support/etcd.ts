/**
 * A real etcd cluster (Debian's etcd-server, 3.4) of N members on loopback random
 * ports with temporary data dirs, for running the apiserver's store client against
 * etcd itself. Always stopped (SIGKILL after a grace period) and removed by stop().
 * A replica's revision feed on etcd is the production EtcdWatchFeed
 * (services/apiserver/storage/etcd-watch-feed.ts).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EtcdClient } from "../../shared/etcd/client.ts";
import { freePort } from "./ports.ts";

export interface EtcdCluster {
  endpoints: string[];
  stop(): Promise<void>;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 3000);
  await exited;
  clearTimeout(timer);
}

async function waitForLeader(endpoint: string, children: ChildProcess[], timeoutMs: number): Promise<void> {
  const client = new EtcdClient(endpoint);
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  try {
    while (Date.now() < deadline) {
      const dead = children.find((c) => c.exitCode !== null);
      if (dead !== undefined) throw new Error(`etcd exited with code ${dead.exitCode}`);
      try {
        const s = await client.unary("Status", {}, { deadline: Date.now() + 1000 });
        if (String(s.leader) !== "0") return;
      } catch (err) {
        last = err;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    client.close();
  }
  throw new Error(`etcd at ${endpoint} has no leader after ${timeoutMs} ms: ${String(last)}`);
}

export async function startEtcdCluster(size = 3): Promise<EtcdCluster> {
  const dir = await mkdtemp(join(tmpdir(), "etcd-cluster-"));
  const ports = await Promise.all(Array.from({ length: 2 * size }, () => freePort()));
  const peer = (i: number) => `http://127.0.0.1:${ports[2 * i + 1]}`;
  const client = (i: number) => `http://127.0.0.1:${ports[2 * i]}`;
  const initialCluster = Array.from({ length: size }, (_, i) => `e${i}=${peer(i)}`).join(",");
  const children: ChildProcess[] = [];
  const log: string[] = [];
  const stop = async () => {
    await Promise.all(children.map(stopChild));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < size; i++) {
      const args = [
        `--name=e${i}`,
        `--data-dir=${join(dir, `e${i}`)}`,
        `--listen-client-urls=${client(i)}`,
        `--advertise-client-urls=${client(i)}`,
        `--listen-peer-urls=${peer(i)}`,
        `--initial-advertise-peer-urls=${peer(i)}`,
        `--initial-cluster=${initialCluster}`,
        "--initial-cluster-state=new",
        `--initial-cluster-token=test-${ports[0]}`,
        "--heartbeat-interval=50",
        "--election-timeout=500",
        "--logger=zap",
        "--log-level=error",
      ];
      const child = spawn("etcd", args, { stdio: ["ignore", "ignore", "pipe"] });
      child.stderr?.on("data", (chunk: Buffer) => log.push(chunk.toString()));
      children.push(child);
    }
    const endpoints = Array.from({ length: size }, (_, i) => `127.0.0.1:${ports[2 * i]}`);
    await Promise.all(endpoints.map((e) => waitForLeader(e, children, 30_000)));
    return { endpoints, stop };
  } catch (err) {
    await stop();
    throw new Error(`${err instanceof Error ? err.message : String(err)}\n${log.join("")}`, { cause: err });
  }
}
