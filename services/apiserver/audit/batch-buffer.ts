/**
 * The pure core of the audit backends' batch mode, as the platform's buffered backend:
 *  - `offer` puts an item in a buffer of `bufferSize`; a full buffer refuses it (the
 *    caller drops and counts it);
 *  - `due(now)` hands out the batches ready at `now`: a batch of `maxBatchSize` items as
 *    soon as that many are buffered, or what there is once `maxBatchWaitMs` has passed
 *    since the batch began (its first item, or the previous batch if items were left);
 *  - with the throttle on, each batch takes a token of a bucket filled at `throttleQps`
 *    tokens a second up to `throttleBurst` (full at start); without a token the batch
 *    waits, and the buffer fills behind it;
 *  - `due` also says when to look again (`nextAt`), so a shell needs one timer;
 *  - `drain()` empties the buffer in batches, throttle aside (shutting down).
 * No clock, no timers: times are the caller's milliseconds.
 */
import { TokenBucket } from "../../../shared/ratelimit/token-bucket.ts";

export interface AuditBatchConfig {
  bufferSize: number;
  maxBatchSize: number;
  maxBatchWaitMs: number;
  throttleEnable: boolean;
  throttleQps: number;
  throttleBurst: number;
}

/** The platform's webhook batch defaults. */
export const DEFAULT_WEBHOOK_BATCH_CONFIG: AuditBatchConfig = { bufferSize: 10_000, maxBatchSize: 400, maxBatchWaitMs: 30_000, throttleEnable: true, throttleQps: 10, throttleBurst: 15 };

/** The platform's log batch defaults: one event a batch, written as soon as it comes, no throttle. */
export const DEFAULT_LOG_BATCH_CONFIG: AuditBatchConfig = { bufferSize: 10_000, maxBatchSize: 1, maxBatchWaitMs: 0, throttleEnable: false, throttleQps: 0, throttleBurst: 0 };

export interface DueBatches<T> {
  batches: T[][];
  /** When a batch can next be due; undefined when nothing is buffered. */
  nextAt?: number;
}

export class BatchBuffer<T> {
  private items: T[] = [];
  private batchStart = 0;
  private readonly bucket: TokenBucket | undefined;

  constructor(
    private readonly config: AuditBatchConfig,
    start: number,
  ) {
    this.bucket = config.throttleEnable ? new TokenBucket(config.throttleQps, config.throttleBurst, start) : undefined;
  }

  get length(): number {
    return this.items.length;
  }

  /** False: the buffer is full and the item was not taken. */
  offer(item: T, now: number): boolean {
    if (this.items.length >= this.config.bufferSize) return false;
    if (this.items.length === 0) this.batchStart = now;
    this.items.push(item);
    return true;
  }

  due(now: number): DueBatches<T> {
    const batches: T[][] = [];
    while (this.items.length > 0) {
      const deadline = this.batchStart + this.config.maxBatchWaitMs;
      if (this.items.length < this.config.maxBatchSize && now < deadline) return { batches, nextAt: deadline };
      const wait = this.bucket?.tryTake(now) ?? 0;
      if (wait > 0) return { batches, nextAt: now + wait };
      batches.push(this.items.splice(0, this.config.maxBatchSize));
      this.batchStart = now;
    }
    return { batches };
  }

  drain(): T[][] {
    const batches: T[][] = [];
    while (this.items.length > 0) batches.push(this.items.splice(0, this.config.maxBatchSize));
    return batches;
  }
}
