import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

describe("grpc store client txn results", () => {
  let fx: Awaited<ReturnType<typeof fixture>>;
  beforeAll(async () => {
    fx = await fixture();
  });
  afterAll(async () => {
    fx.unsubscribe();
    await fx.kv.close();
    await fx.server.close(100);
  });
  const enc = (s: string) => new TextEncoder().encode(s);
  const text = (b: Uint8Array | undefined) => (b === undefined ? undefined : new TextDecoder().decode(b));

  it("carries the previous values of puts and deletes only when the op asks for them", async () => {
    const key = "/registry/core/configmaps/prev/a";
    await fx.kv.txn([], [{ type: "put", key, value: enc("v1") }], []);
    const unasked = await fx.kv.txn([], [{ type: "put", key, value: enc("v2") }], []);
    expect(unasked.results[0].kvs).toEqual([]);
    const asked = await fx.kv.txn([], [{ type: "put", key, value: enc("v3"), prevKv: true }], []);
    expect(asked.results[0].kvs.map((kv) => text(kv.value))).toEqual(["v2"]);
    const deleted = await fx.kv.txn([], [{ type: "delete", key }], []);
    expect(deleted.results[0]).toEqual({ kvs: [], deleted: 1 });
    await fx.kv.txn([], [{ type: "put", key, value: enc("v4") }], []);
    const deletedAsked = await fx.kv.txn([], [{ type: "delete", key, prevKv: true }], []);
    expect(deletedAsked.results[0].deleted).toBe(1);
    expect(deletedAsked.results[0].kvs.map((kv) => text(kv.value))).toEqual(["v4"]);
  });
});
