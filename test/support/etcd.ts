/**
 * A real etcd cluster (Debian's etcd-server, 3.4) of N members on loopback random
 * ports with temporary data dirs, for running the apiserver's store client against
 * etcd itself. Always stopped (SIGKILL after a grace period) and removed by stop().
 *
 * etcdFeed: a revision feed over etcd's own Watch (etcd publishes no revision
 * stream): one watcher over every key with previous values, from the revision after
 * the current one, each response's events grouped by revision into FanoutFeed. It
 * returns once etcd has registered the watcher (one still being created while a test
 * writes and compacts would start unsynced behind the compaction and be canceled), and a
 * cancellation fails the feed (410 for its subscribers) instead of leaving it silent.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EtcdClient } from "../../shared/etcd/client.ts";
import type { PbEvent } from "../../shared/etcd/wire.ts";
import type { EtcdKv } from "../../services/apiserver/storage/etcd-kv.ts";
import { FanoutFeed } from "../../services/apiserver/storage/fanout-feed.ts";
import { CompactedError, type KeyChange, type RevisionChange } from "../../services/apiserver/storage/kv.ts";
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

function keyChange(e: PbEvent): KeyChange {
  return {
    type: e.type,
    key: Buffer.from(e.kv.key).toString(),
    value: e.type === "PUT" ? new Uint8Array(e.kv.value) : undefined,
    prevValue: e.prev_kv === undefined || e.prev_kv === null ? undefined : new Uint8Array(e.prev_kv.value),
    createRevision: Number(e.kv.create_revision),
    modRevision: Number(e.kv.mod_revision),
    version: Number(e.kv.version),
  };
}

/** A live revision feed from etcd's Watch for `kv` (which serves the feed's catch-ups). */
export async function etcdFeed(endpoint: string, kv: EtcdKv): Promise<{ feed: FanoutFeed; close(): void }> {
  const feed = new FanoutFeed(kv);
  const start = await kv.currentRevision();
  feed.setLivePosition(start);
  const client = new EtcdClient(endpoint);
  const stream = client.stream("Watch");
  let closed = false;
  let onCreated: ((err?: Error) => void) | undefined;
  const created = new Promise<void>((resolve, reject) => {
    onCreated = (err) => (err ? reject(err) : resolve());
  });
  stream.on("data", (res) => {
    if (res.created) onCreated?.();
    if (res.canceled) {
      const compact = Number(res.compact_revision ?? 0);
      const err = compact > 0 ? new CompactedError(start + 1, compact) : new Error(`etcd feed watch canceled: ${res.cancel_reason}`);
      onCreated?.(err);
      if (!closed) feed.fail(err);
      return;
    }
    const byRevision = new Map<number, KeyChange[]>();
    for (const e of res.events ?? []) {
      const rev = Number(e.kv.mod_revision);
      byRevision.set(rev, [...(byRevision.get(rev) ?? []), keyChange(e)]);
    }
    for (const [revision, changes] of [...byRevision].sort((a, b) => a[0] - b[0])) {
      const change: RevisionChange = { revision, changes };
      feed.push(change);
    }
  });
  stream.on("error", (err) => {
    onCreated?.(err);
    if (!closed) feed.fail(err);
  });
  stream.on("end", () => undefined);
  const all = Buffer.from([0]);
  stream.write({ request_union: "create_request", create_request: { key: all, range_end: all, start_revision: start + 1, prev_kv: true } });
  try {
    await created;
  } catch (err) {
    stream.cancel();
    client.close();
    throw err;
  }
  return {
    feed,
    close() {
      closed = true;
      stream.cancel();
      client.close();
    },
  };
}
