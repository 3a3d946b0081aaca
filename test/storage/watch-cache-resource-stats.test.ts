/**
 * The watch cache's per-resource stats for the list work estimate: the number of cached
 * objects and their average stored size follow the store through the initial load,
 * creates, updates that change the size, and deletes, each resource on its own.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryStore } from "../../services/store/embedded.ts";
import { EmbeddedKv } from "../../services/apiserver/storage/embedded-kv.ts";
import { WatchCache } from "../../services/apiserver/storage/watch-cache.ts";
import { encodeForStorage } from "../../services/apiserver/storage/object.ts";

const CONFIGMAPS = "/registry/core/configmaps/";
const SECRETS = "/registry/core/secrets/";

function value(name: string, size: number): Uint8Array {
  return encodeForStorage({ metadata: { name, namespace: "ns" }, data: { v: "x".repeat(size) } });
}

describe("watch cache resource stats", () => {
  let kv: EmbeddedKv;
  const caches: WatchCache[] = [];
  /** Stored bytes of each key, as the test wrote them. */
  const stored = new Map<string, number>();

  const put = async (key: string, size: number): Promise<number> => {
    const v = value(key.slice(key.lastIndexOf("/") + 1), size);
    stored.set(key, v.length);
    return (await kv.txn([], [{ type: "put", key, value: v }], [])).revision;
  };
  const remove = async (key: string): Promise<number> => {
    stored.delete(key);
    return (await kv.txn([], [{ type: "delete", key }], [])).revision;
  };
  const expected = (prefix: string) => {
    const sizes = [...stored].filter(([k]) => k.startsWith(prefix)).map(([, n]) => n);
    return { objects: sizes.length, averageBytes: sizes.length > 0 ? Math.floor(sizes.reduce((a, b) => a + b, 0) / sizes.length) : 0 };
  };
  const started = async (): Promise<WatchCache> => {
    const cache = new WatchCache(kv, kv.feed, { root: "/registry/" });
    caches.push(cache);
    await cache.start();
    return cache;
  };

  beforeAll(() => {
    kv = new EmbeddedKv(memoryStore(), { closeStore: true });
  });

  afterAll(async () => {
    for (const c of caches) c.stop();
    await kv.close();
  });

  it("counts what the initial load read, then follows creates, resizing updates and deletes", async () => {
    for (let i = 0; i < 10; i++) await put(`${CONFIGMAPS}ns/cm-${i}`, 100 * i);
    await put(`${SECRETS}ns/s-0`, 5000);
    const cache = await started();
    expect(cache.resourceStats(CONFIGMAPS)).toEqual(expected(CONFIGMAPS));
    expect(cache.resourceStats(SECRETS)).toEqual(expected(SECRETS));
    expect(expected(CONFIGMAPS).averageBytes).toBeGreaterThan(450);

    await cache.waitFor(await put(`${CONFIGMAPS}ns/cm-10`, 20_000)); // create
    expect(cache.resourceStats(CONFIGMAPS)).toEqual(expected(CONFIGMAPS));
    await cache.waitFor(await put(`${CONFIGMAPS}ns/cm-3`, 50_000)); // update, larger
    expect(cache.resourceStats(CONFIGMAPS)).toEqual(expected(CONFIGMAPS));
    await cache.waitFor(await put(`${CONFIGMAPS}ns/cm-10`, 10)); // update, smaller
    expect(cache.resourceStats(CONFIGMAPS)).toEqual(expected(CONFIGMAPS));
    await cache.waitFor(await remove(`${CONFIGMAPS}ns/cm-3`)); // delete
    expect(cache.resourceStats(CONFIGMAPS)).toEqual(expected(CONFIGMAPS));
    expect(cache.resourceStats(SECRETS)).toEqual(expected(SECRETS));

    for (const key of [...stored.keys()].filter((k) => k.startsWith(SECRETS))) await cache.waitFor(await remove(key));
    expect(cache.resourceStats(SECRETS)).toEqual({ objects: 0, averageBytes: 0 });
    // a cache started now loads the same figures
    const later = await started();
    expect(later.resourceStats(CONFIGMAPS)).toEqual(cache.resourceStats(CONFIGMAPS));
  });
});
