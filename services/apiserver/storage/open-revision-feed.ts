/**
 * Chooses a replica's revision feed: with a Redis URL, the Redis revision stream
 * (RedisFeed), which follows the store's Watch while Redis is down; without one,
 * the store's Watch alone (EtcdWatchFeed), as on a real etcd cluster that publishes
 * no revision stream. `watchPool` reaches the same members as `kv`.
 */
import type { ConnectionOptions } from "node:tls";
import type { LogFn } from "../../../shared/observability/logger.ts";
import type { EndpointPool } from "./etcd-kv-pool.ts";
import { EtcdWatchFeed } from "./etcd-watch-feed.ts";
import type { KvStore, RevisionFeed } from "./kv.ts";
import { RedisFeed } from "./redis-feed.ts";

export interface RevisionFeedOptions {
  redisUrl?: string;
  /** TLS options of a rediss:// URL. */
  redisTls?: ConnectionOptions;
  stream: string;
  /** Store key prefix of the registry that the store's Watch follows (default "/registry/"). */
  watchPrefix?: string;
  log?: LogFn;
}

export interface OpenedRevisionFeed {
  feed: RevisionFeed;
  description: string;
  stop(): Promise<void>;
}

export async function openRevisionFeed(kv: KvStore, watchPool: EndpointPool, opts: RevisionFeedOptions): Promise<OpenedRevisionFeed> {
  if (opts.redisUrl === undefined || opts.redisUrl === "") {
    const watch = new EtcdWatchFeed(kv, watchPool, { prefix: opts.watchPrefix, log: opts.log });
    await watch.start();
    return { feed: watch.feed, description: "the store's Watch as revision feed", stop: async () => watch.stop() };
  }
  const reader = new RedisFeed(kv, { url: opts.redisUrl, tls: opts.redisTls, stream: opts.stream, watchPool, watchPrefix: opts.watchPrefix, log: opts.log });
  await reader.start();
  return { feed: reader.feed, description: `revision stream ${opts.stream}`, stop: () => reader.stop() };
}
