// Requests waiting for their entry to be applied, keyed by a sequence number
// that travels in the entry (see entry-data.ts). Deadlines are checked by
// sweep() (the node calls it on every tick), not by one timer per request:
// all requests share one timeout, so the map's insertion order is deadline
// order and a sweep stops at the first request still in time.

import { timedOut } from "./errors.ts";

interface Waiter<T> {
  deadline: number;
  resolve: (v: T) => void;
  reject: (e: unknown) => void;
}

export class PendingRequests<T> {
  private readonly waiting = new Map<number, Waiter<T>>();
  private seq = 0;

  constructor(
    private readonly timeoutMs: number,
    private readonly now: () => number,
    private readonly what = "request",
  ) {}

  /** A new request: its sequence number and the promise of its outcome. */
  register(): { seq: number; promise: Promise<T> } {
    const seq = ++this.seq;
    const promise = new Promise<T>((resolve, reject) => {
      this.waiting.set(seq, { deadline: this.now() + this.timeoutMs, resolve, reject });
    });
    return { seq, promise };
  }

  resolve(seq: number, value: T): boolean {
    const w = this.waiting.get(seq);
    if (!w) return false;
    this.waiting.delete(seq);
    w.resolve(value);
    return true;
  }

  reject(seq: number, err: unknown): void {
    const w = this.waiting.get(seq);
    if (!w) return;
    this.waiting.delete(seq);
    w.reject(err);
  }

  /** Rejects every request whose deadline passed with a timeout error. */
  sweep(): void {
    const now = this.now();
    for (const [seq, w] of this.waiting) {
      if (w.deadline > now) break;
      this.waiting.delete(seq);
      w.reject(timedOut(this.what));
    }
  }

  rejectAll(err: unknown): void {
    const all = [...this.waiting.values()];
    this.waiting.clear();
    for (const w of all) w.reject(err);
  }

  get size(): number {
    return this.waiting.size;
  }
}
