/**
 * The storage conformance suite against a real etcd 3.4 cluster (3 members, started
 * once for the file; every case writes under a prefix of its own): StoreStorage, and
 * StoreStorage behind the watch cache, over the same EtcdKv that replicas use against
 * the store, with the live revisions from etcd's own Watch. Proves the client speaks
 * etcd v3 as etcd does, not only as our store does.
 */
import { afterAll } from "vitest";
import { startEtcdCluster, etcdFeed, type EtcdCluster } from "../support/etcd.ts";
import { CachedStorage } from "../../services/apiserver/storage/cached-storage.ts";
import { storageConformance } from "../../services/apiserver/storage/testing/conformance.ts";
import { EtcdKv } from "../../services/apiserver/storage/etcd-kv.ts";
import { StoreStorage } from "../../services/apiserver/storage/store-storage.ts";
import { WatchCache } from "../../services/apiserver/storage/watch-cache.ts";

let cluster: Promise<EtcdCluster> | undefined;
afterAll(async () => {
  if (cluster) await (await cluster).stop();
});

/** A client and a live feed over the file's cluster (started by the first case). */
async function fixture() {
  const { endpoints } = await (cluster ??= startEtcdCluster(3));
  const kv = new EtcdKv(endpoints);
  const live = await etcdFeed(endpoints[0], kv);
  const close = async () => {
    live.close();
    await kv.close();
  };
  return { kv, feed: live.feed, close };
}

storageConformance("etcd 3.4 cluster", async () => {
  const { kv, feed, close } = await fixture();
  return { kv, storage: new StoreStorage(kv, feed), close };
});

storageConformance("etcd 3.4 cluster with watch cache", async () => {
  const { kv, feed, close } = await fixture();
  const cache = new WatchCache(kv, feed, { root: "/registry/", maxHistory: 2 });
  await cache.start();
  return {
    kv,
    storage: new CachedStorage(new StoreStorage(kv, feed), cache),
    close: async () => {
      cache.stop();
      await close();
    },
  };
});
