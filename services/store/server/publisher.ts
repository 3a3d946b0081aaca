/**
 * The revision stream publisher: while this node leads, every applied revision is
 * appended to the Redis stream with id `<revision>-0`, in order, exactly once.
 * Publishing never blocks consensus: applies only record that there is work; a
 * separate loop catches the stream up from the state machine's history, retrying
 * with backoff while Redis is down. A new leader starts after the stream's last id
 * (an id that already exists is skipped, never doubled). The stream is trimmed by
 * minimum id to keep at least `retainMs` of revisions.
 */
import type { ConnectionOptions } from "node:tls";
import type { Redis } from "ioredis";
import type { LogFn } from "../../../shared/observability/logger.ts";
import { redisClient } from "../../../shared/stream/redis-client.ts";
import { encodeEntry, ENTRY_FIELD, revisionOfId, streamId } from "../../../shared/stream/revision-entry.ts";
import type { MvccStore, RevisionChange } from "../mvcc/index.ts";
import { stringKeyChanges } from "../mvcc/key-changes.ts";

export interface PublisherOptions {
  /** redis:// or rediss:// (TLS), with `:password@` for AUTH. */
  url: string;
  /** TLS options of a rediss:// URL (shared/tls/redis-options.ts); read at each (re)connection. */
  tls?: ConnectionOptions;
  stream: string;
  /** Revisions younger than this stay in the stream (default 5 minutes). */
  retainMs?: number;
  /** Entries per XADD pipeline. */
  batch?: number;
  now?: () => number;
  log?: LogFn;
}

export class RevisionPublisher {
  private readonly redis: Redis;
  private leading = false;
  /** Last revision known to be in the stream (undefined: unknown, read it from Redis). */
  private published: number | undefined;
  private wake: (() => void) | undefined;
  private stopped = false;
  private loop: Promise<void> | undefined;
  /** (revision, time first seen) samples for trimming by age. */
  private readonly seen: Array<[number, number]> = [];
  readonly stats = { published: 0, skippedDuplicates: 0, errors: 0 };

  constructor(
    private readonly mvcc: MvccStore,
    private readonly opts: PublisherOptions,
  ) {
    this.redis = redisClient(opts.url, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false, retryStrategy: (n) => Math.min(100 * n, 2000), ...(opts.tls ? { tls: opts.tls } : {}) });
    this.redis.on("error", () => {
      this.stats.errors++;
    });
  }

  start(): void {
    this.redis.connect().catch(() => {});
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    this.redis.disconnect();
    await this.loop?.catch(() => {});
  }

  /** Called by the node when leadership changes. */
  setLeader(leading: boolean): void {
    if (leading && !this.leading) this.published = undefined; // re-read the stream's last id
    this.leading = leading;
    this.wake?.();
  }

  /** Called after each applied revision; cheap, never waits. */
  notify(): void {
    const now = (this.opts.now ?? Date.now)();
    const last = this.seen[this.seen.length - 1];
    if (!last || now - last[1] >= 1000) this.seen.push([this.mvcc.currentRevision, now]);
    this.wake?.();
  }

  private async sleep(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(t);
        resolve();
      };
    });
    this.wake = undefined;
  }

  private async lastStreamRevision(): Promise<number> {
    const res = (await this.redis.xrevrange(this.opts.stream, "+", "-", "COUNT", 1)) as Array<[string, string[]]>;
    return res.length === 0 ? 0 : revisionOfId(res[0][0]);
  }

  private minRetainedRevision(): number | undefined {
    const cutoff = (this.opts.now ?? Date.now)() - (this.opts.retainMs ?? 5 * 60 * 1000);
    let min: number | undefined;
    while (this.seen.length > 1 && this.seen[1][1] <= cutoff) this.seen.shift();
    if (this.seen.length > 0 && this.seen[0][1] <= cutoff) min = this.seen[0][0];
    return min;
  }

  private async publishPending(): Promise<void> {
    this.published ??= await this.lastStreamRevision();
    const current = this.mvcc.currentRevision;
    if (this.published >= current) return;
    let changes: RevisionChange[];
    try {
      changes = this.mvcc.changesSince(this.published + 1);
    } catch {
      // History compacted below the stream's end: continue from what is retained.
      changes = this.mvcc.changesSince(this.mvcc.compactRevision);
    }
    // Revisions without a change (the initial revision 1) have nothing to publish.
    if (changes.length === 0) {
      this.published = current;
      return;
    }
    const batch = this.opts.batch ?? 256;
    for (let i = 0; i < changes.length && this.leading && !this.stopped; i += batch) {
      const slice = changes.slice(i, i + batch).filter((c) => c.revision > (this.published ?? 0));
      if (slice.length === 0) continue;
      const minId = this.minRetainedRevision();
      const pipeline = this.redis.pipeline();
      for (const c of slice) {
        const data = encodeEntry({ revision: c.revision, changes: stringKeyChanges(c) });
        if (minId !== undefined) pipeline.xadd(this.opts.stream, "MINID", "~", streamId(minId), streamId(c.revision), ENTRY_FIELD, data);
        else pipeline.xadd(this.opts.stream, streamId(c.revision), ENTRY_FIELD, data);
      }
      const results = (await pipeline.exec()) ?? [];
      for (let j = 0; j < results.length; j++) {
        const [err] = results[j];
        if (err) {
          if (/equal or smaller/i.test(err.message)) {
            this.stats.skippedDuplicates++;
            continue;
          }
          throw err;
        }
        this.stats.published++;
      }
      this.published = slice[slice.length - 1].revision;
    }
  }

  private async run(): Promise<void> {
    let backoff = 100;
    while (!this.stopped) {
      if (!this.leading || (this.published !== undefined && this.published >= this.mvcc.currentRevision)) {
        await this.sleep(1000);
        continue;
      }
      try {
        const before = this.published;
        await this.publishPending();
        backoff = 100;
        // Never spin on microtasks: if nothing advanced, give the event loop a turn.
        if (this.published === before) await this.sleep(50);
      } catch (err) {
        this.published = undefined;
        this.opts.log?.("warn", "revision stream publish failed; retrying", { error: String(err), backoffMs: backoff });
        await this.sleep(backoff);
        backoff = Math.min(backoff * 2, 5000);
      }
    }
  }
}
