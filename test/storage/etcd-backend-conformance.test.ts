/**
 * The storage conformance suite against a real etcd 3.4 cluster of 3 members (started once for the
 * file; every case writes under a prefix of its own) with the production revision
 * feed of a replica on etcd: EtcdWatchFeed, one Watch over the registry prefix
 * (services/apiserver/storage/etcd-watch-feed.ts), as `--storage-backend etcd3`
 * without a Redis URL runs. StoreStorage alone and behind the watch cache.
 */
import { afterAll } from "vitest";
import { CachedStorage } from "../../services/apiserver/storage/cached-storage.ts";
import { EtcdKv } from "../../services/apiserver/storage/etcd-kv.ts";
import { EndpointPool, grpcMembers } from "../../services/apiserver/storage/etcd-kv-pool.ts";
import { EtcdWatchFeed } from "../../services/apiserver/storage/etcd-watch-feed.ts";
import { StoreStorage } from "../../services/apiserver/storage/store-storage.ts";
import { storageConformance } from "../../services/apiserver/storage/testing/conformance.ts";
import { WatchCache } from "../../services/apiserver/storage/watch-cache.ts";
import { startEtcdCluster, type EtcdCluster } from "../support/etcd.ts";

let cluster: Promise<EtcdCluster> | undefined;
afterAll(async () => {
  if (cluster) await (await cluster).stop();
});

/** A client and a started Watch feed over the file's etcd (started by the first case). */
async function fixture() {
  const { endpoints } = await (cluster ??= startEtcdCluster(3));
  const kv = new EtcdKv(endpoints);
  const pool = new EndpointPool(grpcMembers(endpoints));
  const live = new EtcdWatchFeed(kv, pool, { progressIntervalMs: 200 });
  await live.start();
  const close = async () => {
    live.stop();
    pool.close();
    await kv.close();
  };
  return { kv, feed: live.feed, close };
}

storageConformance("etcd 3.4 with the etcd Watch feed", async () => {
  const { kv, feed, close } = await fixture();
  return { kv, storage: new StoreStorage(kv, feed), close };
});

storageConformance("etcd 3.4 with the etcd Watch feed and watch cache", async () => {
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
