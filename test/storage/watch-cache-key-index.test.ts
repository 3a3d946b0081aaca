/**
 * The watch cache's sorted key index follows creates and deletes in place: lists made
 * between writes see exactly the stored keys, in order, whatever the mix of writes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryStore } from "../../services/store/embedded.ts";
import { EmbeddedKv } from "../../services/apiserver/storage/embedded-kv.ts";
import { WatchCache } from "../../services/apiserver/storage/watch-cache.ts";
import { encodeForStorage } from "../../services/apiserver/storage/object.ts";

const PREFIX = "/registry/core/configmaps/";

describe("watch cache key index", () => {
  let kv: EmbeddedKv;
  let cache: WatchCache;

  beforeAll(async () => {
    kv = new EmbeddedKv(memoryStore(), { closeStore: true });
    cache = new WatchCache(kv, kv.feed, { root: "/registry/" });
    await cache.start();
  });

  afterAll(async () => {
    cache.stop();
    await kv.close();
  });

  it("lists the stored keys in order after every create and delete", async () => {
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const stored = new Set<string>();
    for (let step = 0; step < 300; step++) {
      const ns = `ns-${random(3)}`;
      const key = `${PREFIX}${ns}/cm-${random(40)}`;
      const del = stored.has(key) && random(3) === 0;
      const op = del ? { type: "delete" as const, key } : { type: "put" as const, key, value: encodeForStorage({ metadata: { name: key.slice(key.lastIndexOf("/") + 1), namespace: ns } }) };
      const res = await kv.txn([], [op], []);
      if (del) stored.delete(key);
      else stored.add(key);
      await cache.waitFor(res.revision);
      if (step % 3 === 0) {
        const expected = [...stored].sort();
        expect(cache.listPrefix(PREFIX).map(([k]) => k)).toEqual(expected);
        expect(cache.listPrefix(`${PREFIX}${ns}/`).map(([k]) => k)).toEqual(expected.filter((k) => k.startsWith(`${PREFIX}${ns}/`)));
      }
    }
    expect(cache.listPrefix(PREFIX).map(([k]) => k)).toEqual([...stored].sort());
  });
});
