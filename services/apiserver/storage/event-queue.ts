/**
 * A bounded queue of watch events consumed through `next()`. A consumer that falls
 * more than `capacity` events behind is closed (reason "slow consumer") instead of
 * stalling the producer and every other watcher; the client re-watches from the last
 * resourceVersion it saw.
 *
 * Memory: an idle queue (the common case: one per open watch) holds no array; the
 * array is made when an event has to wait for its consumer and dropped once drained.
 * `stopped()` runs once when the queue closes (a subclass may override it instead of
 * passing `onStop`).
 */
import type { WatchEvent, Watcher } from "./interface.ts";

export class EventQueue implements Watcher {
  private items: WatchEvent[] | undefined;
  private head = 0;
  private waiter: ((ev: WatchEvent | undefined) => void) | undefined;
  private closed = false;
  closedReason?: string;

  constructor(
    private readonly capacity = 10_000,
    private readonly onStop?: () => void,
  ) {}

  get isClosed(): boolean {
    return this.closed;
  }

  /** Adds an event; returns false (and closes the queue) when the consumer is too slow. */
  push(ev: WatchEvent): boolean {
    if (this.closed) return false;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      w(ev);
      return true;
    }
    const items = (this.items ??= []);
    if (items.length - this.head >= this.capacity) {
      this.close("slow consumer");
      return false;
    }
    items.push(ev);
    return true;
  }

  next(): Promise<WatchEvent | undefined> {
    const items = this.items;
    if (items && this.head < items.length) {
      const ev = items[this.head++];
      if (this.head === items.length) {
        this.items = undefined;
        this.head = 0;
      } else if (this.head > 1024 && this.head * 2 > items.length) {
        items.splice(0, this.head);
        this.head = 0;
      }
      return Promise.resolve(ev);
    }
    if (this.closed) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  /** Ends the stream after the queued events are consumed. */
  close(reason?: string): void {
    if (this.closed) return;
    this.closed = true;
    this.closedReason = reason;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      w(undefined);
    }
    this.stopped();
  }

  stop(): void {
    this.items = undefined;
    this.head = 0;
    this.close();
  }

  /** Called once when the queue closes. */
  protected stopped(): void {
    this.onStop?.();
  }
}
