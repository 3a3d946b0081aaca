/**
 * The storage conformance list cases against the watch cache path with snapshots kept
 * (ListFromCacheSnapshot): exact-revision lists and continue tokens are answered from the
 * snapshots where the cache keeps them, from the store otherwise, with the same results
 * and errors. Compactions reach the cache as the replica's compactor reports them. One
 * store serves every case (each writes under its own prefix).
 */
import { afterAll, describe, expect, it } from "vitest";
import { memoryStore } from "../../services/store/embedded.ts";
import { CachedStorage } from "../../services/apiserver/storage/cached-storage.ts";
import { EmbeddedKv } from "../../services/apiserver/storage/embedded-kv.ts";
import type { KvStore } from "../../services/apiserver/storage/kv.ts";
import { StoreStorage } from "../../services/apiserver/storage/store-storage.ts";
import { WatchCache } from "../../services/apiserver/storage/watch-cache.ts";
import { freshPrefix, type ConformanceCase, type StorageFixture } from "../../services/apiserver/storage/testing/conformance-support.ts";
import { listCases } from "../../services/apiserver/storage/testing/conformance-list.ts";

const kv = new EmbeddedKv(memoryStore(), { closeStore: true });
const cache = new WatchCache(kv, kv.feed, { root: "/registry/", snapshotRetentionMs: 75_000 });
const storage = new CachedStorage(new StoreStorage(kv, kv.feed), cache);
/** The store client as the cases see it: a compaction is also reported to the cache, as the compactor does. */
const reportingKv: KvStore = {
  range: (key, options) => kv.range(key, options),
  txn: (compares, success, failure) => kv.txn(compares, success, failure),
  currentRevision: () => kv.currentRevision(),
  leaseGrant: (ttl) => kv.leaseGrant(ttl),
  history: (after, upTo) => kv.history(after, upTo),
  close: () => kv.close(),
  compact: async (revision) => {
    await kv.compact(revision);
    cache.compacted(revision);
  },
};
/** Lists the snapshots answered. */
let fromSnapshots = 0;
const listPrefixAt = cache.listPrefixAt.bind(cache);
cache.listPrefixAt = (prefix, revision, startKey) => {
  const entries = listPrefixAt(prefix, revision, startKey);
  if (entries) fromSnapshots++;
  return entries;
};
const fixture: StorageFixture = { kv: reportingKv, storage, close: async () => {} };

afterAll(async () => {
  cache.stop();
  await kv.close();
});

describe("storage conformance: watch cache with snapshots", () => {
  let prefix = "";
  const c: ConformanceCase = {
    async setup() {
      await cache.start();
      prefix = freshPrefix();
      return storage;
    },
    fixture: () => fixture,
    prefix: () => prefix,
    excluded: {},
  };
  describe("list", () => listCases(c));
  it("answered the exact and continued lists of those cases from snapshots", () => {
    expect(fromSnapshots).toBeGreaterThanOrEqual(8);
  });
});
