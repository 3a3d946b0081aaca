import { memoryStore } from "../../services/store/embedded.ts";
import { StoreGrpcServer } from "../../services/store/server/grpc-server.ts";
import { CachedStorage } from "../../services/apiserver/storage/cached-storage.ts";
import { storageConformance } from "../../services/apiserver/storage/testing/conformance.ts";
import { EtcdKv } from "../../services/apiserver/storage/etcd-kv.ts";
import { FanoutFeed } from "../../services/apiserver/storage/fanout-feed.ts";
import { StoreStorage } from "../../services/apiserver/storage/store-storage.ts";
import { WatchCache } from "../../services/apiserver/storage/watch-cache.ts";

/**
 * The storage conformance suite over the gRPC store client: StoreStorage over
 * EtcdKv over the store's gRPC server over a store without replication. Live
 * revisions come from the in-process store (the replica's Redis feed is tested on
 * its own); every catch-up of the feed goes through EtcdKv.history over gRPC.
 */
async function fixture() {
  const store = memoryStore();
  const server = new StoreGrpcServer(store.backend);
  const port = await server.listen("127.0.0.1:0");
  const kv = new EtcdKv([`127.0.0.1:${port}`]);
  const feed = new FanoutFeed(kv);
  feed.setLivePosition(store.currentRevision());
  const unsubscribe = store.onRevision((entry) => feed.push(entry));
  return { server, kv, feed, unsubscribe };
}

storageConformance("grpc store client", async () => {
  const { server, kv, feed, unsubscribe } = await fixture();
  return {
    kv,
    storage: new StoreStorage(kv, feed),
    close: async () => {
      unsubscribe();
      await kv.close();
      await server.close(100);
    },
  };
});

storageConformance("grpc store client with watch cache", async () => {
  const { server, kv, feed, unsubscribe } = await fixture();
  const cache = new WatchCache(kv, feed, { root: "/registry/", maxHistory: 2 });
  await cache.start();
  return {
    kv,
    storage: new CachedStorage(new StoreStorage(kv, feed), cache),
    close: async () => {
      cache.stop();
      unsubscribe();
      await kv.close();
      await server.close(100);
    },
  };
});
