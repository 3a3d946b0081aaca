/**
 * A bounded queue of watch events consumed through `next()`. A consumer that falls
 * more than `capacity` events behind is closed (reason "slow consumer") instead of
 * stalling the producer and every other watcher; the client re-watches from the last
 * resourceVersion it saw.
 *
 * Memory: an idle queue (the common case: one per open watch) holds no array; the
 * array is made when an event has to wait for its consumer and dropped once drained.
 * `stopped()` runs once when the queue closes (a subclass may override it instead of
 * passing `onStop`). A consumer may wait without a promise (`takeOrWait`): the queue
 * then keeps only a reference to it.
 */
import type { WatchEvent, Watcher } from "./interface.ts";

/** Receives the next event (undefined: the queue closed and is drained), once per `takeOrWait` that returned WAITING. */
export interface EventConsumer {
  deliver(ev: WatchEvent | undefined): void;
}

/** `takeOrWait`'s answer when no event is queued yet. */
export const WAITING: unique symbol = Symbol("waiting");

type Waiter = ((ev: WatchEvent | undefined) => void) | EventConsumer;

function wake(w: Waiter, ev: WatchEvent | undefined): void {
  if (typeof w === "function") w(ev);
  else w.deliver(ev);
}

export class EventQueue implements Watcher {
  private items: WatchEvent[] | undefined;
  private head = 0;
  private waiter: Waiter | undefined;
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
      wake(w, ev);
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
    if (this.hasQueued()) return Promise.resolve(this.take());
    if (this.closed) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  /**
   * The next queued event, or undefined when the queue is closed and drained; when no
   * event is queued yet, returns WAITING and calls `consumer.deliver` once with the next
   * event (or undefined when the queue closes first).
   */
  takeOrWait(consumer: EventConsumer): WatchEvent | undefined | typeof WAITING {
    if (this.hasQueued()) return this.take();
    if (this.closed) return undefined;
    this.waiter = consumer;
    return WAITING;
  }

  private hasQueued(): boolean {
    return this.items !== undefined && this.head < this.items.length;
  }

  private take(): WatchEvent {
    const items = this.items as WatchEvent[];
    const ev = items[this.head++];
    if (this.head === items.length) {
      this.items = undefined;
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > items.length) {
      items.splice(0, this.head);
      this.head = 0;
    }
    return ev;
  }

  /** Ends the stream after the queued events are consumed. */
  close(reason?: string): void {
    if (this.closed) return;
    this.closed = true;
    this.closedReason = reason;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      wake(w, undefined);
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
