/**
 * A bounded queue of watch events consumed through `next()`. A consumer that falls
 * more than `capacity` events behind is closed (reason "slow consumer") instead of
 * stalling the producer and every other watcher; the client re-watches from the last
 * resourceVersion it saw.
 */
import type { WatchEvent, Watcher } from "./interface.ts";

export class EventQueue implements Watcher {
  private readonly items: WatchEvent[] = [];
  private head = 0;
  private waiter: ((ev: WatchEvent | undefined) => void) | undefined;
  private closed = false;
  closedReason?: string;
  private readonly onStop: () => void;

  constructor(
    private readonly capacity = 10_000,
    onStop: () => void = () => {},
  ) {
    this.onStop = onStop;
  }

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
    if (this.items.length - this.head >= this.capacity) {
      this.close("slow consumer");
      return false;
    }
    this.items.push(ev);
    return true;
  }

  next(): Promise<WatchEvent | undefined> {
    if (this.head < this.items.length) {
      const ev = this.items[this.head++];
      if (this.head > 1024 && this.head * 2 > this.items.length) {
        this.items.splice(0, this.head);
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
    this.onStop();
  }

  stop(): void {
    this.items.length = 0;
    this.head = 0;
    this.close();
  }
}
