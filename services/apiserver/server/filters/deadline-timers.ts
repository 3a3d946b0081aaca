/**
 * Request deadlines without a timer each: every deadline of the same duration is
 * kept in one FIFO queue (they expire in the order they were scheduled), and one
 * timer per duration in use wakes up at the earliest deadline still pending.
 * Contract:
 * - `schedule(ms, deadline)` arranges `deadline.expireNow()` at (or up to one timer
 *   tick after) now + ms, unless `deadline.settle()` is called first;
 * - a settled deadline costs nothing more: it is dropped when the queue's timer next
 *   runs, which under steady traffic is about once per duration;
 * - timers are unref'd: pending deadlines never keep a process alive (the sockets
 *   of the requests they belong to do).
 * The per-request cost is one array push; a setTimeout, clearTimeout and timer
 * list entry per request is what this replaces.
 */

/** What a queue holds: a deadline that can be expired, and that says when it no longer needs to be. */
export interface Expirable {
  /** Absolute time (Date.now()) of the deadline. */
  readonly expiresAt: number;
  /** True once the request finished or the deadline expired. */
  readonly settled: boolean;
  expireNow(): void;
}

class DurationQueue {
  private items: Expirable[] = [];
  private head = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly onEmpty: () => void) {}

  push(d: Expirable): void {
    this.items.push(d);
    if (!this.timer) this.arm(d.expiresAt);
  }

  private arm(at: number): void {
    this.timer = setTimeout(() => this.run(), Math.max(0, at - Date.now()));
    this.timer.unref();
  }

  private run(): void {
    this.timer = undefined;
    const now = Date.now();
    while (this.head < this.items.length) {
      const d = this.items[this.head];
      if (!d.settled && d.expiresAt > now) break;
      this.head++;
      if (!d.settled) d.expireNow();
    }
    if (this.head >= this.items.length) {
      this.items = [];
      this.head = 0;
      this.onEmpty();
      return;
    }
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    this.arm(this.items[this.head].expiresAt);
  }
}

export class DeadlineTimers {
  private readonly queues = new Map<number, DurationQueue>();

  /** Expires `d` after `ms` (its `expiresAt`) unless it settles first. */
  schedule(ms: number, d: Expirable): void {
    let q = this.queues.get(ms);
    if (!q) {
      q = new DurationQueue(() => this.queues.delete(ms));
      this.queues.set(ms, q);
    }
    q.push(d);
  }

  /** Durations with a queue (pending or not yet dropped deadlines). */
  get durations(): number {
    return this.queues.size;
  }
}
