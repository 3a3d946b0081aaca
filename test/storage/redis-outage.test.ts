/**
 * A Redis outage under a writer (issue 27 item 3), through HTTPS: a store (in process,
 * its leader publishing every revision to a real redis-server) under a replica whose
 * revision feed is the Redis stream (RedisFeed with the store's Watch as fallback).
 * redis-server is killed while ConfigMaps are created one after the other, and
 * started again (empty) a moment later: a watch opened before sees every create once,
 * in order; while Redis was down the feed followed the store's Watch (no history
 * polling), and once Redis was back it read the stream again.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HttpsClient } from "../support/https-client.ts";
import { startRedis, type RedisServer } from "../support/redis.ts";
import { startStreamedReplica, type StreamedReplica } from "./etcd-backend-process.ts";

let dir: string | undefined;
let redis: RedisServer | undefined;
let pipeline: StreamedReplica | undefined;
let reader: StreamedReplica["reader"] | undefined;
let admin: HttpsClient | undefined;

const cms = "/api/v1/namespaces/default/configmaps";
const cm = (name: string) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { k: name } });
type Obj = { metadata: { name: string; resourceVersion: string } };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "redis-outage-"));
  redis = await startRedis();
  pipeline = await startStreamedReplica(redis.url, dir);
  ({ reader, admin } = pipeline);
}, 60_000);

afterAll(async () => {
  await pipeline?.close();
  await redis?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function create(name: string): Promise<void> {
  const res = await admin!.post(cms, cm(name));
  expect(res.status, res.text).toBe(201);
}

async function waitUntil(cond: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
}

/** The value once it has not changed for `quietMs` (or at `timeoutMs`). */
async function settled(read: () => number, quietMs: number, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let value = read();
  let since = Date.now();
  while (Date.now() - since < quietMs && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 25));
    if (read() !== value) {
      value = read();
      since = Date.now();
    }
  }
  return value;
}

describe("a replica's revision feed while Redis is killed and restarted under a writer", () => {
  it("delivers every create once and in order, from the store's Watch while Redis is down and from the stream again after", async () => {
    const rv = (await admin!.get(cms)).json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
    const w = admin!.watch(`${cms}?watch=1&resourceVersion=${rv}`);
    const names: string[] = [];
    try {
      for (let i = 0; i < 15; i++) names.push(`before-${i}`);
      for (const n of names) await create(n);
      await waitUntil(() => reader!.stats.fromStream >= 15, 10_000);

      await redis!.stop();
      // entries already read from the stream may still be delivered: the baseline is taken once that stops
      const fromStreamBefore = await settled(() => reader!.stats.fromStream, 500, 5_000);
      for (let i = 0; i < 15; i++) {
        names.push(`down-${i}`);
        await create(`down-${i}`);
      }
      await waitUntil(() => w.events.length >= names.length, 10_000);
      expect(reader!.stats.watchStarts).toBeGreaterThanOrEqual(1);
      expect(reader!.stats.fromWatch).toBeGreaterThanOrEqual(15);
      const fromStreamDown = reader!.stats.fromStream;
      expect(fromStreamDown).toBe(fromStreamBefore);

      await redis!.start();
      for (let i = 0; i < 15; i++) {
        names.push(`back-${i}`);
        await create(`back-${i}`);
        await new Promise((r) => setTimeout(r, 30));
      }
      const events = await w.waitFor(names.length, 15_000);
      expect(events.map((e) => `${e.type} ${(e.object as Obj).metadata.name}`)).toEqual(names.map((n) => `ADDED ${n}`));
      await new Promise((r) => setTimeout(r, 300));
      expect(w.events).toHaveLength(names.length); // nothing doubled afterwards
      const rvs = events.map((e) => Number((e.object as Obj).metadata.resourceVersion));
      expect(rvs.every((r, i) => i === 0 || r > rvs[i - 1])).toBe(true);
      expect(reader!.stats.fromStream).toBeGreaterThan(fromStreamDown);
      expect(reader!.stats.fromHistory).toBe(0);
    } finally {
      w.stop();
    }
  });
});
