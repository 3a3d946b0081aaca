import { afterEach, describe, expect, it } from "vitest";
import { startRedis, type RedisServer } from "../support/redis.ts";
import { memoryStore } from "../../services/store/embedded.ts";
import { RevisionPublisher } from "../../services/store/server/publisher.ts";
import { EmbeddedKv } from "../../services/apiserver/storage/embedded-kv.ts";
import type { WatchEvent } from "../../services/apiserver/storage/interface.ts";
import { meta } from "../../services/apiserver/storage/object.ts";
import { RedisFeed } from "../../services/apiserver/storage/redis-feed.ts";
import { StoreStorage } from "../../services/apiserver/storage/store-storage.ts";
import { WatchCache } from "../../services/apiserver/storage/watch-cache.ts";

/** Store (no replication) → publisher → Redis → one reader → watch cache, as in a replica. */
async function pipeline(redisUrl: string) {
  const store = memoryStore();
  const backend = store.backend;
  const kv = new EmbeddedKv(store, { closeStore: true });
  const publisher = new RevisionPublisher(backend.mvcc, { url: redisUrl, stream: "revisions" });
  backend.onApplied(() => publisher.notify());
  publisher.setLeader(true);
  publisher.start();
  const reader = new RedisFeed(kv, { url: redisUrl, stream: "revisions", blockMs: 200, stallCheckMs: 60_000 });
  await reader.start();
  const cache = new WatchCache(kv, reader.feed, { root: "/registry/" });
  await cache.start();
  const storage = new StoreStorage(kv, kv.feed);
  return {
    backend,
    kv,
    publisher,
    reader,
    cache,
    storage,
    async close() {
      cache.stop();
      await reader.stop();
      await publisher.stop();
      await kv.close();
    },
  };
}

async function collect(next: () => Promise<WatchEvent | undefined>, n: number, timeoutMs = 15_000): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  const deadline = Date.now() + timeoutMs;
  while (out.length < n && Date.now() < deadline) {
    const ev = await Promise.race([next(), new Promise<undefined>((r) => setTimeout(() => r(undefined), 500))]);
    if (ev) out.push(ev);
  }
  return out;
}

const cm = (name: string) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "ns" } });

describe("revision stream through Redis", () => {
  let redis: RedisServer | undefined;
  let pipe: Awaited<ReturnType<typeof pipeline>> | undefined;
  afterEach(async () => {
    await pipe?.close();
    await redis?.stop();
  });

  it("delivers every revision once and in order through the stream", async () => {
    redis = await startRedis();
    pipe = await pipeline(redis.url);
    const w = pipe.cache.watch("/registry/core/configmaps/", { from: pipe.cache.revision });
    for (let i = 0; i < 50; i++) await pipe.storage.create(`/registry/core/configmaps/ns/c${i}`, cm(`c${i}`));
    const evs = await collect(() => w.next(), 50);
    expect(evs.map((e) => meta(e.object).name)).toEqual(Array.from({ length: 50 }, (_, i) => `c${i}`));
    expect(pipe.reader.stats.fromStream).toBeGreaterThan(0);
  });

  it("loses and doubles nothing across a Redis restart (gap filled from the store)", async () => {
    redis = await startRedis();
    pipe = await pipeline(redis.url);
    const w = pipe.cache.watch("/registry/core/configmaps/", { from: pipe.cache.revision });
    for (let i = 0; i < 10; i++) await pipe.storage.create(`/registry/core/configmaps/ns/a${i}`, cm(`a${i}`));
    await redis.restart(); // the stream is gone: the new one starts after a gap
    for (let i = 0; i < 10; i++) await pipe.storage.create(`/registry/core/configmaps/ns/b${i}`, cm(`b${i}`));
    const evs = await collect(() => w.next(), 20);
    const names = evs.map((e) => meta(e.object).name);
    expect(names).toEqual([...Array.from({ length: 10 }, (_, i) => `a${i}`), ...Array.from({ length: 10 }, (_, i) => `b${i}`)]);
    const revs = evs.map((e) => e.revision);
    expect(new Set(revs).size).toBe(revs.length);
  });

  it("fills a trimmed stream from the store's history", async () => {
    redis = await startRedis();
    pipe = await pipeline(redis.url);
    await pipe.reader.stop(); // the reader falls behind while entries are trimmed away
    for (let i = 0; i < 20; i++) await pipe.storage.create(`/registry/core/configmaps/ns/t${i}`, cm(`t${i}`));
    await new Promise((r) => setTimeout(r, 500));
    const { Redis } = await import("ioredis");
    const client = new Redis(redis.url);
    await client.xtrim("revisions", "MAXLEN", 3);
    client.disconnect();
    const reader = new RedisFeed(pipe.kv, { url: redis.url, stream: "revisions", blockMs: 200, stallCheckMs: 60_000 });
    // Start behind: subscribers after revision 1 must still see all 20 creates exactly once.
    const seen: number[] = [];
    reader.feed.subscribe(1, (c) => seen.push(c.revision), () => {});
    await reader.start();
    for (let i = 20; i < 25; i++) await pipe.storage.create(`/registry/core/configmaps/ns/t${i}`, cm(`t${i}`));
    const deadline = Date.now() + 10_000;
    while (seen.length < 25 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    await reader.stop();
    expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => i + 2));
  });
});
