/**
 * Connects a replica to its store: the store cluster of `--store-endpoints` (or a
 * real etcd cluster, `--storage-backend etcd3 --etcd-servers`) over gRPC. The
 * revision feed is the Redis revision stream of `--redis-url` (the store's Watch
 * while Redis is down), or without a Redis URL the store's Watch alone. An entry
 * point may bring its own connector (the embedded default serves from a store in process).
 */
import type { LogFn } from "../../../shared/observability/logger.ts";
import { EtcdKv } from "../storage/etcd-kv.ts";
import { EndpointPool, grpcMembers } from "../storage/etcd-kv-pool.ts";
import type { KvStore, RevisionFeed } from "../storage/kv.ts";
import { openRevisionFeed } from "../storage/open-revision-feed.ts";
import { DEFAULT_ETCD_PREFIX, KeyPrefix, PrefixedKv, prefixedFeed } from "../storage/prefixed-kv.ts";
import { openStoreClientTls, type StoreClientTlsFiles } from "../storage/store-tls-options.ts";

export interface StoreConnection {
  kv: KvStore;
  feed: RevisionFeed;
  description: string;
  close(): Promise<void>;
}

export interface StoreConnectionOptions {
  dataDir: string;
  endpoints: string[];
  /** `--storage-backend`: etcd3 (the default) is the one backend. */
  storageBackend?: string;
  /** `--etcd-prefix`: the store key prefix of the registry (default /registry). */
  etcdPrefix?: string;
  redisUrl?: string;
  /** TLS files of the store's channels (`--etcd-cafile/--etcd-certfile/--etcd-keyfile`) and of a rediss:// Redis. */
  tls?: StoreClientTlsFiles;
  stream: string;
  log?: LogFn;
}

/** Opens the store an entry point serves from. */
export type StoreConnector = (opts: StoreConnectionOptions) => Promise<StoreConnection>;

/** The remote store cluster; --store-endpoints (or --etcd-servers) is required. */
export const openStore: StoreConnector = async (opts) => {
  const backend = opts.storageBackend ?? "etcd3";
  if (backend !== "etcd3") throw new Error(`--storage-backend invalid, allowed values: etcd3. If not specified, it will default to 'etcd3'`);
  if (opts.endpoints.length === 0) throw new Error("--store-endpoints or --etcd-servers is required (the single-process default with an embedded store is `npm start`, services/embedded/main.ts)");
  const tls = openStoreClientTls(opts.tls, opts.redisUrl, (err) => opts.log?.("warn", "certificate files changed but cannot be used; keeping the previous ones", { err: err.message }));
  const prefix = new KeyPrefix(opts.etcdPrefix ?? DEFAULT_ETCD_PREFIX);
  const kv = new EtcdKv(grpcMembers(opts.endpoints, tls.channel));
  const watchPool = new EndpointPool(grpcMembers(opts.endpoints, tls.channel));
  const feed = await openRevisionFeed(kv, watchPool, { redisUrl: opts.redisUrl, redisTls: tls.redis.options.tls, stream: opts.stream, watchPrefix: `${prefix.storePrefix}/`, log: opts.log });
  return {
    kv: prefix.identity ? kv : new PrefixedKv(kv, prefix),
    feed: prefix.identity ? feed.feed : prefixedFeed(feed.feed, prefix),
    description: `store ${opts.endpoints.join(",")} with ${feed.description}`,
    async close() {
      await feed.stop();
      watchPool.close();
      await kv.close();
      tls.close();
    },
  };
};
