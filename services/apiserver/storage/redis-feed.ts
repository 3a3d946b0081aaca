/**
 * The replica's single reader of the revision stream. It follows the stream with
 * XREAD BLOCK from the last revision it delivered and pushes revisions, strictly in
 * order, into a FanoutFeed. Gaps (a missed or trimmed entry) are filled from the
 * store's MVCC history; while Redis is unreachable, or the stream stalls behind the
 * store, it polls the store's history instead, so no revision is lost or repeated.
 * If the history is compacted away, subscribers are failed (they relist).
 */
import { Redis } from "ioredis";
import type { LogFn } from "../../../shared/observability/logger.ts";
import { decodeEntry, ENTRY_FIELD, revisionOfId, streamId } from "../../../shared/stream/revision-entry.ts";
import { FanoutFeed } from "./fanout-feed.ts";
import { CompactedError, type KvStore, type RevisionChange } from "./kv.ts";

export interface RedisFeedOptions {
  url: string;
  stream: string;
  /** XREAD BLOCK timeout. */
  blockMs?: number;
  /** Progress check against the store when the stream brings nothing. */
  stallCheckMs?: number;
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
  /** Counters for tests and metrics. */
  readonly stats = { fromStream: 0, fromHistory: 0, redisErrors: 0, resets: 0 };

  constructor(
    private readonly kv: KvStore,
    private readonly opts: RedisFeedOptions,
  ) {
    this.feed = new FanoutFeed(kv);
    this.redis = new Redis(opts.url, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false, retryStrategy: (n) => Math.min(50 * n, 1000) });
    this.redis.on("error", () => {
      this.stats.redisErrors++;
    });
  }

  /** Starts at the store's current revision (subscribers catch up from history). */
  async start(): Promise<void> {
    this.last = await this.kv.currentRevision();
    this.feed.setLivePosition(this.last);
    this.redis.connect().catch(() => {});
    this.loop = this.run();
    this.stallTimer = setInterval(() => void this.checkStall(), this.opts.stallCheckMs ?? 1000);
    this.stallTimer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.stallTimer) clearInterval(this.stallTimer);
    this.redis.disconnect();
    const settle = (p: Promise<unknown> | undefined) => Promise.race([p?.catch(() => {}), new Promise((r) => setTimeout(r, 1000))]);
    await settle(this.loop);
    await settle(this.filling);
  }

  get position(): number {
    return this.last;
  }

  private deliver(change: RevisionChange): void {
    if (change.revision !== this.last + 1) return;
    this.last = change.revision;
    this.lastProgressMs = Date.now();
    this.feed.push(change);
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
        this.stats.resets++;
        this.opts.log?.("warn", "revision history compacted: subscribers relist", { last: this.last, upTo });
        this.feed.fail(err);
        this.last = await this.kv.currentRevision();
        this.feed.setLivePosition(this.last);
      }
    });
    return this.filling;
  }

  private async checkStall(): Promise<void> {
    if (this.stopped || Date.now() - this.lastProgressMs < (this.opts.stallCheckMs ?? 1000)) return;
    try {
      const current = await this.kv.currentRevision();
      if (current > this.last) await this.fillTo(current);
      else this.lastProgressMs = Date.now();
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
      } catch {
        if (this.stopped) return;
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      if (!reply) continue;
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
