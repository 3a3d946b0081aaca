/**
 * The revision stream through Redis Sentinel (issue 27 item 3): a real redis-server
 * master, a replica of it and a redis-sentinel (`redis-server --sentinel`) watching
 * them, all on loopback random ports. The store's publisher and a replica's feed both
 * use `redis+sentinel://127.0.0.1:<port>/<master>`. A SENTINEL FAILOVER in the middle
 * of an HTTPS writer: a watch opened before sees every create once and in order, the
 * publisher goes on writing the stream on the promoted replica and the feed reads it there.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HttpsClient } from "../support/https-client.ts";
import { freePort } from "../support/ports.ts";
import { startStreamedReplica, type StreamedReplica } from "./etcd-backend-process.ts";

const MASTER_NAME = "revisions-master";
const children: ChildProcess[] = [];
let dir: string | undefined;
let ports: { master: number; replica: number; sentinel: number };
let pipeline: StreamedReplica | undefined;
let reader: StreamedReplica["reader"] | undefined;
let publisher: StreamedReplica["publisher"] | undefined;
let admin: HttpsClient | undefined;

const cms = "/api/v1/namespaces/default/configmaps";
const cm = (name: string) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { k: name } });
type Obj = { metadata: { name: string; resourceVersion: string } };

/** A fresh directory under the file's temporary dir for the server on `port`. */
function ownDir(port: number): string {
  const d = join(dir!, `redis-${port}`);
  mkdirSync(d, { recursive: true });
  return d;
}

/**
 * Starts redis-server on a free port and checks that the server answering there is
 * this process (by its pid): a port taken meanwhile by another test's server is not
 * mistaken for ours, the next port is tried.
 */
async function redisServer(args: (port: number) => string[]): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const child = spawn("redis-server", args(port), { stdio: "ignore" });
    children.push(child);
    const ours = await eventually(`redis-server on ${port}`, async () => {
      if (child.exitCode !== null) return false;
      return (await ask(port, (r) => r.info("server"))).includes(`process_id:${child.pid}\r`) ? true : undefined;
    }).catch(() => false);
    if (ours) return port;
    child.kill("SIGKILL");
    if (attempt >= 3) throw new Error(`redis-server ${args(port).join(" ")} did not start`);
  }
}

/** A short-lived client of one Redis port (no retries: the caller polls). */
async function ask<T>(port: number, fn: (r: Redis) => Promise<T>): Promise<T> {
  const r = new Redis({ port, host: "127.0.0.1", lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  r.on("error", () => undefined);
  try {
    await r.connect();
    return await fn(r);
  } finally {
    r.disconnect();
  }
}

async function eventually<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not happen within ${timeoutMs} ms (${String(last)}; feed ${JSON.stringify(reader?.stats)}, publisher ${JSON.stringify(publisher?.stats)})`);
}

const info = (port: number) => ask(port, (r) => r.info("replication"));
const masterOf = () => ask(ports.sentinel, (r) => r.call("SENTINEL", "get-master-addr-by-name", MASTER_NAME) as Promise<[string, string] | null>);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "redis-sentinel-"));
  // Each server in a directory of its own: a replica's full sync writes the master's snapshot to its dir
  // (dump.rdb), which every redis-server later started there would load.
  const common = (port: number) => ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", ownDir(port)];
  const master = await redisServer((port) => ["--port", String(port), ...common(port)]);
  const replicaPort = await redisServer((port) => ["--port", String(port), ...common(port), "--replicaof", "127.0.0.1", String(master)]);
  await eventually("replica in sync", async () => ((await info(replicaPort)).includes("master_link_status:up") ? true : undefined));
  const sentinelDir = dir;
  const sentinel = await redisServer((port) => {
    const conf = join(sentinelDir, `sentinel-${port}.conf`);
    writeFileSync(
      conf,
      [
        `port ${port}`,
        "bind 127.0.0.1",
        `dir ${ownDir(port)}`,
        `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${master} 1`,
        `sentinel down-after-milliseconds ${MASTER_NAME} 2000`,
        `sentinel failover-timeout ${MASTER_NAME} 10000`,
        "",
      ].join("\n"),
    );
    return [conf, "--sentinel"];
  });
  ports = { master, replica: replicaPort, sentinel };
  await eventually("sentinel knows the replica", async () => {
    const replicas = await ask(ports.sentinel, (r) => r.call("SENTINEL", "replicas", MASTER_NAME) as Promise<string[][]>);
    return replicas.some((fields) => fields.includes(String(ports.replica))) ? true : undefined;
  });

  const url = `redis+sentinel://127.0.0.1:${ports.sentinel}/${MASTER_NAME}`;
  pipeline = await startStreamedReplica(url, dir);
  ({ reader, publisher, admin } = pipeline);
}, 60_000);

afterAll(async () => {
  await pipeline?.close();
  await Promise.all(
    children.map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.exitCode !== null || c.signalCode !== null) return resolve();
          c.once("exit", () => resolve());
          c.kill("SIGKILL");
        }),
    ),
  );
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("the revision stream through Redis Sentinel", () => {
  it("loses and doubles no event across a SENTINEL FAILOVER under a writer; publisher and feed follow the new master", async () => {
    const rv = (await admin!.get(cms)).json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
    const w = admin!.watch(`${cms}?watch=1&resourceVersion=${rv}`);
    const names: string[] = [];
    const create = async (name: string) => {
      names.push(name);
      const res = await admin!.post(cms, cm(name));
      expect(res.status, res.text).toBe(201);
    };
    try {
      const fromStreamAtStart = reader!.stats.fromStream;
      for (let i = 0; i < 10; i++) await create(`before-${i}`);
      await eventually("entries read from the stream", async () => (reader!.stats.fromStream > fromStreamAtStart ? true : undefined));
      expect(await masterOf()).toEqual(["127.0.0.1", String(ports.master)]);

      expect(await ask(ports.sentinel, (r) => r.call("SENTINEL", "FAILOVER", MASTER_NAME))).toBe("OK");
      for (let i = 0; i < 20; i++) {
        await create(`during-${i}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      await eventually("the replica promoted", async () => ((await masterOf())?.[1] === String(ports.replica) ? true : undefined));
      // Until Sentinel demotes the old master it still takes writes (Redis replicates asynchronously): entries
      // written there are dropped when it resyncs from the new master. The reader has them already, or
      // fills them from the store's history; the stream itself continues on the new master.
      await eventually("the old master demoted", async () => ((await info(ports.master)).includes("role:slave") ? true : undefined));
      const fromStreamAtFailover = reader!.stats.fromStream;
      for (let i = 0; i < 10; i++) {
        await create(`after-${i}`);
        await new Promise((r) => setTimeout(r, 30));
      }

      const events = await w.waitFor(names.length, 20_000);
      expect(events.map((e) => `${e.type} ${(e.object as Obj).metadata.name}`), JSON.stringify(events.find((e) => e.type === "ERROR"))).toEqual(names.map((n) => `ADDED ${n}`));
      await new Promise((r) => setTimeout(r, 300));
      expect(w.events).toHaveLength(names.length);
      const lastRevision = Number((events.at(-1)?.object as Obj).metadata.resourceVersion);
      // The publisher writes to the promoted replica, and the feed reads from it.
      const top = await eventually("the last revision on the new master's stream", async () => {
        const entries = await ask(ports.replica, (r) => r.xrevrange(pipeline!.stream, "+", "-", "COUNT", 1));
        const id = Number(entries[0]?.[0].split("-")[0] ?? 0);
        return id >= lastRevision ? id : undefined;
      });
      expect(top).toBeGreaterThanOrEqual(lastRevision);
      await eventually("stream entries read after the failover", async () => (reader!.stats.fromStream > fromStreamAtFailover ? true : undefined));
    } finally {
      w.stop();
    }
  });
});
