/**
 * Connects a replica to its store: the store cluster of `--store-endpoints` over
 * gRPC, with the Redis revision stream of `--redis-url`. An entry point may bring
 * its own connector (the embedded default serves from a store in process).
 */
import type { LogFn } from "../../../shared/observability/logger.ts";
import { EtcdKv } from "../storage/etcd-kv.ts";
import type { KvStore, RevisionFeed } from "../storage/kv.ts";
import { RedisFeed } from "../storage/redis-feed.ts";

export interface StoreConnection {
  kv: KvStore;
  feed: RevisionFeed;
  description: string;
  close(): Promise<void>;
}

export interface StoreConnectionOptions {
  dataDir: string;
  endpoints: string[];
  redisUrl?: string;
  stream: string;
  log?: LogFn;
}

/** Opens the store an entry point serves from. */
export type StoreConnector = (opts: StoreConnectionOptions) => Promise<StoreConnection>;

/** The remote store cluster; --store-endpoints and --redis-url are required. */
export const openStore: StoreConnector = async (opts) => {
  if (opts.endpoints.length === 0) throw new Error("--store-endpoints is required (the single-process default with an embedded store is `npm start`, services/embedded/main.ts)");
  if (!opts.redisUrl) throw new Error("--redis-url is required with --store-endpoints");
  const kv = new EtcdKv(opts.endpoints);
  const reader = new RedisFeed(kv, { url: opts.redisUrl, stream: opts.stream, log: opts.log });
  await reader.start();
  return {
    kv,
    feed: reader.feed,
    description: `store ${opts.endpoints.join(",")} with revision stream ${opts.stream}`,
    async close() {
      await reader.stop();
      await kv.close();
    },
  };
};
