/**
 * Deadlines of many calls on one timer. Calls with the same timeout end in the
 * order they were started, so each timeout keeps a queue in start order; the one
 * timer is armed for the earliest pending deadline, and a call that completes is
 * only marked (no timer is made or cleared per call). When the timer fires, the
 * calls whose deadline passed are expired, finished ones are dropped from the
 * queue heads, and the timer is armed again for the next pending deadline, if any.
 * The timer never holds the process open.
 */

/** A call's deadline: `finish()` when the call ended before it. */
export interface Deadline {
  finish(): void;
}

interface Entry extends Deadline {
  at: number;
  done: boolean;
  expire: () => void;
}

/** A queue in start order (deadlines ascending), with a moving head. */
class Queue {
  items: Entry[] = [];
  head = 0;

  /** The first entry not yet done (dropping done ones), or undefined. */
  first(): Entry | undefined {
    while (this.head < this.items.length && this.items[this.head].done) this.head++;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
      return undefined;
    }
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return this.items[this.head];
  }
}

export interface Clock {
  now(): number;
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

const realClock: Clock = {
  now: () => performance.now(),
  setTimer: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimer: (h) => clearTimeout(h as NodeJS.Timeout),
};

export class Deadlines {
  private readonly queues = new Map<number, Queue>();
  private timer: unknown;
  private armedAt = Infinity;

  constructor(private readonly clock: Clock = realClock) {}

  /** Calls `expire` once `timeoutMs` have passed, unless `finish()` is called first. */
  start(timeoutMs: number, expire: () => void): Deadline {
    const entry: Entry = {
      at: this.clock.now() + timeoutMs,
      done: false,
      expire,
      finish() {
        entry.done = true;
      },
    };
    let q = this.queues.get(timeoutMs);
    if (!q) {
      q = new Queue();
      this.queues.set(timeoutMs, q);
    }
    q.items.push(entry);
    if (entry.at < this.armedAt) this.arm(entry.at);
    return entry;
  }

  /** Calls not yet finished nor expired. */
  pending(): number {
    let n = 0;
    for (const q of this.queues.values()) for (let i = q.head; i < q.items.length; i++) if (!q.items[i].done) n++;
    return n;
  }

  private arm(at: number): void {
    if (this.timer !== undefined) this.clock.clearTimer(this.timer);
    this.armedAt = at;
    this.timer = this.clock.setTimer(() => this.fire(), Math.max(0, at - this.clock.now()));
  }

  private fire(): void {
    this.timer = undefined;
    this.armedAt = Infinity;
    const now = this.clock.now();
    let next = Infinity;
    for (const [timeout, q] of this.queues) {
      for (let e = q.first(); e && e.at <= now; e = q.first()) {
        e.done = true;
        e.expire();
      }
      const e = q.first();
      if (e) next = Math.min(next, e.at);
      else this.queues.delete(timeout);
    }
    if (next !== Infinity) this.arm(next);
  }
}
