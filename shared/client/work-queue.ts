/**
 * A work queue of keys with the platform's semantics: a key is queued at most once, a
 * key added while it is being processed is processed again afterwards (never two
 * workers on one key), failures are retried after a per-key exponential delay (5 ms
 * doubling to 1000 s like the platform's default rate limiter, capped lower here by
 * `maxDelayMs`), and success forgets the key's failures. A key waiting to be added
 * later holds one timer, at the earliest time asked for (the platform's delaying queue),
 * so controllers may ask for a recheck on every sync without piling up timers. With `metrics`, the queue
 * reports adds, depth, time waited, time worked, retries and the items in progress
 * (the platform's `workqueue_*` metrics under the queue's name).
 */
/** What a queue tells its metrics; `unfinished` reports the start times (ms) of the items in progress. */
export interface QueueMetrics {
  added(): void;
  depth(n: number): void;
  waited(seconds: number): void;
  worked(seconds: number): void;
  retried(): void;
  inProgress(startTimesMs: () => readonly number[]): void;
}

export interface WorkQueueOptions {
  workers?: number;
  metrics?: QueueMetrics;
  baseDelayMs?: number;
  maxDelayMs?: number;
  log?: (msg: string, fields: Record<string, unknown>) => void;
}

export class WorkQueue<K> {
  private readonly queue: K[] = [];
  private readonly queued = new Set<K>();
  private readonly processing = new Set<K>();
  private readonly dirty = new Set<K>();
  private readonly failures = new Map<K, number>();
  /** Keys waiting to be added later: their one timer and when it fires (ms since the epoch). */
  private readonly waiting = new Map<K, { timer: NodeJS.Timeout; at: number }>();
  private readonly addedAt = new Map<K, number>();
  private readonly startedAt = new Map<K, number>();
  private active = 0;
  private running = false;
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly process: (key: K) => Promise<void>,
    private readonly opts: WorkQueueOptions = {},
  ) {
    opts.metrics?.inProgress(() => [...this.startedAt.values()]);
  }

  get length(): number {
    return this.queue.length;
  }

  start(): void {
    this.running = true;
    this.pump();
  }

  stop(): void {
    this.running = false;
    for (const w of this.waiting.values()) clearTimeout(w.timer);
    this.waiting.clear();
  }

  add(key: K): void {
    if (this.processing.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.queue.push(key);
    this.addedAt.set(key, Date.now());
    this.opts.metrics?.added();
    this.opts.metrics?.depth(this.queue.length);
    this.pump();
  }

  addAfter(key: K, ms: number): void {
    const at = Date.now() + Math.max(0, ms);
    const pending = this.waiting.get(key);
    if (pending && pending.at <= at) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.waiting.delete(key);
      if (this.running) this.add(key);
    }, Math.max(0, ms));
    timer.unref();
    this.waiting.set(key, { timer, at });
  }

  /** Resolves when nothing is queued or being processed (delayed retries do not count). */
  idle(): Promise<void> {
    if (this.queue.length === 0 && this.active === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private pump(): void {
    const workers = this.opts.workers ?? 4;
    while (this.running && this.active < workers && this.queue.length > 0) {
      const key = this.queue.shift() as K;
      this.queued.delete(key);
      const now = Date.now();
      this.opts.metrics?.waited((now - (this.addedAt.get(key) ?? now)) / 1000);
      this.opts.metrics?.depth(this.queue.length);
      this.addedAt.delete(key);
      this.startedAt.set(key, now);
      this.processing.add(key);
      this.active++;
      void this.run(key);
    }
    if (this.queue.length === 0 && this.active === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  private async run(key: K): Promise<void> {
    try {
      await this.process(key);
      this.failures.delete(key);
    } catch (err) {
      const n = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, n);
      const delay = Math.min((this.opts.baseDelayMs ?? 5) * 2 ** (n - 1), this.opts.maxDelayMs ?? 30_000);
      this.opts.metrics?.retried();
      this.opts.log?.("work item failed, retrying", { key: String(key), attempt: n, delayMs: delay, error: String(err) });
      if (this.running) this.addAfter(key, delay);
    } finally {
      this.opts.metrics?.worked((Date.now() - (this.startedAt.get(key) ?? Date.now())) / 1000);
      this.startedAt.delete(key);
      this.processing.delete(key);
      this.active--;
      if (this.dirty.delete(key)) this.add(key);
      this.pump();
    }
  }
}
