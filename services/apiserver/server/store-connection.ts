/**
 * Connects a replica to its store: the embedded single-node store (in process,
 * revision feed in memory) or a remote store cluster over gRPC with the Redis
 * revision stream.
 */
import { mkdir } from "node:fs/promises";
import type { LogFn } from "../../../shared/observability/logger.ts";
import { join } from "node:path";
import { BackendKv } from "../storage/backend-kv.ts";
import type { KvStore, RevisionFeed } from "../storage/kv.ts";
import { RedisFeed } from "../storage/redis-feed.ts";
import { openEmbeddedBackend } from "./embedded-store.ts";

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

export async function openStore(opts: StoreConnectionOptions): Promise<StoreConnection> {
  if (opts.endpoints.length === 0) {
    const dir = join(opts.dataDir, "store");
    await mkdir(dir, { recursive: true });
    const backend = await openEmbeddedBackend(dir, opts.log);
    const kv = new BackendKv(backend);
    return {
      kv,
      feed: kv.feed,
      description: `embedded store in ${dir}`,
      async close() {
        await kv.close();
        await backend.close();
      },
    };
  }
  if (!opts.redisUrl) throw new Error("--redis-url is required with --store-endpoints");
  const { GrpcKv } = await import("../storage/grpc-kv.ts");
  const kv = new GrpcKv(opts.endpoints);
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
}
