/**
 * The replica's single reader of the revision stream. It follows the stream with
 * XREAD BLOCK from the last revision it delivered and pushes revisions, strictly in
 * order, into a FanoutFeed. Gaps (a missed or trimmed entry) are filled from the
 * store's MVCC history. While Redis is unreachable, or the stream stalls behind the
 * store, it follows the store's Watch from the last revision it delivered (given a
 * `watchPool`; without one it polls the store's history), and returns to the stream
 * once the stream brings entries again. One position (`last`) is shared by all
 * three sources and only its successor is delivered, so no revision is lost or
 * repeated across the switches. If the history is compacted away, subscribers are
 * failed (they relist).
 *
 * The URL is redis://, rediss:// or redis+sentinel://host:port[,host:port]/master
 * (shared/stream/redis-client.ts).
 */
import type { ConnectionOptions } from "node:tls";
import type { Redis } from "ioredis";
import type { LogFn } from "../../../shared/observability/logger.ts";
import { redisClient } from "../../../shared/stream/redis-client.ts";
import { decodeEntry, ENTRY_FIELD, revisionOfId, streamId } from "../../../shared/stream/revision-entry.ts";
import type { EndpointPool } from "./etcd-kv-pool.ts";
import { EtcdRevisionWatch } from "./etcd-watch-feed.ts";
import { FanoutFeed } from "./fanout-feed.ts";
import { CompactedError, type KvStore, type RevisionChange } from "./kv.ts";

export interface RedisFeedOptions {
  /** redis:// or rediss:// (TLS), with `:password@` for AUTH. */
  url: string;
  /** TLS options of a rediss:// URL (shared/tls/redis-options.ts); read at each (re)connection. */
  tls?: ConnectionOptions;
  stream: string;
  /** XREAD BLOCK timeout. */
  blockMs?: number;
  /** Progress check against the store when the stream brings nothing. */
  stallCheckMs?: number;
  /** The store members whose Watch is followed while Redis is down (omitted: poll the history). */
  watchPool?: EndpointPool;
  /** Progress request period of that Watch. */
  watchProgressIntervalMs?: number;
  /** Key prefix that Watch follows (default "/registry/"). */
  watchPrefix?: string;
  log?: LogFn;
}

export class RedisFeed {
  readonly feed: FanoutFeed;
  private readonly redis: Redis;
  private last = 0;
  private stopped = false;
  private loop: Promise<void> | undefined;
  private lastProgressMs = Date.now();
  private filling: Promise<void> = Promise.resolve();
  private stallTimer: NodeJS.Timeout | undefined;
  private readonly watch: EtcdRevisionWatch | undefined;
  /** Counters for tests and metrics. */
  readonly stats = { fromStream: 0, fromHistory: 0, fromWatch: 0, watchStarts: 0, redisErrors: 0, resets: 0 };

  constructor(
    private readonly kv: KvStore,
    private readonly opts: RedisFeedOptions,
  ) {
    this.feed = new FanoutFeed(kv);
    this.redis = redisClient(opts.url, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false, retryStrategy: (n) => Math.min(50 * n, 1000), ...(opts.tls ? { tls: opts.tls } : {}) });
    this.redis.on("error", () => {
      this.stats.redisErrors++;
    });
    if (opts.watchPool) {
      this.watch = new EtcdRevisionWatch(
        opts.watchPool,
        {
          position: () => this.last,
          deliver: (change) => {
            if (this.deliver(change)) this.stats.fromWatch++;
          },
          lost: (err) => this.relist(err),
        },
        { prefix: opts.watchPrefix, progressIntervalMs: opts.watchProgressIntervalMs, log: opts.log },
      );
    }
  }

  /** Starts at the store's current revision (subscribers catch up from history). */
  async start(): Promise<void> {
    this.last = await this.kv.currentRevision();
    this.feed.setLivePosition(this.last);
    // Connected before the first XREAD (a command before that fails, and would start the Watch); a Redis down at start is not waited for.
    await Promise.race([this.redis.connect().catch(() => {}), new Promise((r) => setTimeout(r, 2000).unref())]);
    this.loop = this.run();
    this.stallTimer = setInterval(() => void this.checkStall(), this.opts.stallCheckMs ?? 1000);
    this.stallTimer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.stallTimer) clearInterval(this.stallTimer);
    this.watch?.stop();
    this.redis.disconnect();
    const settle = (p: Promise<unknown> | undefined) => Promise.race([p?.catch(() => {}), new Promise((r) => setTimeout(r, 1000))]);
    await settle(this.loop);
    await settle(this.filling);
  }

  get position(): number {
    return this.last;
  }

  /** Delivers the successor of `last` (anything else is a duplicate or early: dropped). */
  private deliver(change: RevisionChange): boolean {
    if (change.revision !== this.last + 1) return false;
    this.last = change.revision;
    this.lastProgressMs = Date.now();
    this.feed.push(change);
    return true;
  }

  /** Redis is down or the stream stalls: follow the store's Watch from `last`. */
  private followWatch(reason: string): void {
    if (!this.watch || this.watch.running || this.stopped) return;
    this.stats.watchStarts++;
    this.opts.log?.("warn", "revision stream unavailable: following the store's Watch", { reason, last: this.last });
    void this.watch.start();
  }

  /** The stream brings entries again: the Watch is no longer needed. */
  private leaveWatch(): void {
    if (!this.watch?.running) return;
    this.watch.stop();
    this.opts.log?.("info", "revision stream is back: the store's Watch is closed", { last: this.last });
  }

  /** History after `last` is lost: subscribers relist and the feed restarts at the current revision. */
  private async relist(err: Error): Promise<void> {
    this.stats.resets++;
    this.opts.log?.("warn", "revision history compacted: subscribers relist", { last: this.last, error: err.message });
    this.feed.fail(err);
    this.last = await this.kv.currentRevision();
    this.feed.setLivePosition(this.last);
  }

  /** Serializes history fills with stream deliveries: one writer of `last`. */
  private fillTo(upTo: number): Promise<void> {
    this.filling = this.filling.then(async () => {
      if (upTo <= this.last) return;
      try {
        const changes = await this.kv.history(this.last, upTo);
        for (const c of changes) {
          this.stats.fromHistory++;
          this.deliver(c);
        }
        if (this.last < upTo) throw new CompactedError(this.last + 1, upTo);
      } catch (err) {
        if (!(err instanceof CompactedError)) throw err;
        await this.relist(err);
      }
    });
    return this.filling;
  }

  /**
   * Idle or stalled: reads the store's revision. A serializable read (the member's own
   * applied revision, no quorum round) is enough: every revision it shows is committed,
   * so a revision above `last` is a real stall; a lagging member only shows one later.
   * It spares the store a read-index round per replica every check while the cluster idles.
   */
  private async checkStall(): Promise<void> {
    if (this.stopped || Date.now() - this.lastProgressMs < (this.opts.stallCheckMs ?? 1000)) return;
    try {
      const current = (await this.kv.range("/", { countOnly: true, limit: 1, serializable: true })).revision;
      if (current <= this.last) this.lastProgressMs = Date.now();
      else if (this.watch) this.followWatch("stream stalled behind the store");
      else await this.fillTo(current);
    } catch (err) {
      this.opts.log?.("warn", "store history poll failed", { error: String(err) });
    }
  }

  private async run(): Promise<void> {
    const block = this.opts.blockMs ?? 2000;
    while (!this.stopped) {
      let reply: Array<[Buffer, Array<[Buffer, Buffer[]]>]> | null;
      try {
        await this.filling;
        reply = (await this.redis.xreadBuffer("COUNT", 1000, "BLOCK", block, "STREAMS", this.opts.stream, streamId(this.last))) as typeof reply;
      } catch (err) {
        if (this.stopped) return;
        this.followWatch(err instanceof Error ? err.message : String(err));
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      if (!reply) continue;
      if (reply.some(([, entries]) => entries.length > 0)) this.leaveWatch();
      for (const [, entries] of reply) {
        for (const [idBuf, fields] of entries) {
          const revision = revisionOfId(idBuf.toString());
          if (!Number.isFinite(revision) || revision <= this.last) continue;
          if (revision > this.last + 1) await this.fillTo(revision - 1);
          await this.filling;
          const data = fieldValue(fields, ENTRY_FIELD);
          if (!data) continue;
          try {
            const entry = decodeEntry(data);
            this.stats.fromStream++;
            this.deliver({ revision: entry.revision, changes: entry.changes });
          } catch (err) {
            this.opts.log?.("warn", "undecodable stream entry: reading it from the store", { revision, error: String(err) });
            await this.fillTo(revision);
          }
        }
      }
    }
  }
}

function fieldValue(fields: Buffer[], name: string): Buffer | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i].toString() === name) return fields[i + 1];
  return undefined;
}
