/**
 * A work queue of keys with the platform's semantics: a key is queued at most once, a
 * key added while it is being processed is processed again afterwards (never two
 * workers on one key), failures are retried after a per-key exponential delay (5 ms
 * doubling to 1000 s like the platform's default rate limiter, capped lower here by
 * `maxDelayMs`), and success forgets the key's failures.
 */
export interface WorkQueueOptions {
  workers?: number;
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
  private readonly timers = new Set<NodeJS.Timeout>();
  private active = 0;
  private running = false;
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly process: (key: K) => Promise<void>,
    private readonly opts: WorkQueueOptions = {},
  ) {}

  get length(): number {
    return this.queue.length;
  }

  start(): void {
    this.running = true;
    this.pump();
  }

  stop(): void {
    this.running = false;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  add(key: K): void {
    if (this.processing.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.queue.push(key);
    this.pump();
  }

  addAfter(key: K, ms: number): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (this.running) this.add(key);
    }, ms);
    t.unref();
    this.timers.add(t);
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
      this.opts.log?.("work item failed, retrying", { key: String(key), attempt: n, delayMs: delay, error: String(err) });
      if (this.running) this.addAfter(key, delay);
    } finally {
      this.processing.delete(key);
      this.active--;
      if (this.dirty.delete(key)) this.add(key);
      this.pump();
    }
  }
}
