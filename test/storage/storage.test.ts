import { memoryStore } from "../../services/store/embedded.ts";
import { EmbeddedKv } from "../../services/apiserver/storage/embedded-kv.ts";
import { CachedStorage } from "../../services/apiserver/storage/cached-storage.ts";
import { storageConformance } from "../../services/apiserver/storage/testing/conformance.ts";
import { StoreStorage } from "../../services/apiserver/storage/store-storage.ts";
import { WatchCache } from "../../services/apiserver/storage/watch-cache.ts";

storageConformance("embedded store in process", async () => {
  const kv = new EmbeddedKv(memoryStore(), { closeStore: true });
  return { kv, storage: new StoreStorage(kv, kv.feed), close: () => kv.close() };
});

storageConformance("embedded store in process with watch cache", async () => {
  const kv = new EmbeddedKv(memoryStore(), { closeStore: true });
  // History window of the cache is tiny here so that compaction cases are visible.
  const cache = new WatchCache(kv, kv.feed, { root: "/registry/", maxHistory: 2 });
  await cache.start();
  const storage = new CachedStorage(new StoreStorage(kv, kv.feed), cache);
  return {
    kv,
    storage,
    close: async () => {
      cache.stop();
      await kv.close();
    },
  };
});
