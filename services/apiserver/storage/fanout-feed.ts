/**
 * Fans one ordered live source of revisions out to many subscribers, each starting
 * after its own revision. A subscriber that starts behind the live position is first
 * caught up from the store's MVCC history; live revisions arriving meanwhile are
 * buffered and deduplicated, so each subscriber sees every revision once, in order.
 *
 * Contract for the producer: `push` is called with strictly consecutive revisions
 * (the producer fills its own gaps) or `fail` is called when that is impossible.
 */
import { CompactedError, type KvStore, type RevisionChange, type RevisionFeed } from "./kv.ts";

interface Subscriber {
  /** Last revision delivered to this subscriber. */
  delivered: number;
  catchingUp: boolean;
  buffer: RevisionChange[];
  onChange: (change: RevisionChange) => void;
  onError: (err: Error) => void;
  closed: boolean;
}

export class FanoutFeed implements RevisionFeed {
  private readonly subscribers = new Set<Subscriber>();
  /** Revision of the last change pushed by the producer (0 before the first). */
  private live = 0;

  constructor(private readonly kv: Pick<KvStore, "history" | "currentRevision">) {}

  /** Sets the live position without delivering anything (start-up). */
  setLivePosition(revision: number): void {
    this.live = Math.max(this.live, revision);
    for (const sub of this.subscribers) if (!sub.catchingUp && sub.delivered < this.live) void this.catchUp(sub);
  }

  get livePosition(): number {
    return this.live;
  }

  push(change: RevisionChange): void {
    if (change.revision <= this.live) return; // duplicate from the producer
    this.live = change.revision;
    for (const sub of this.subscribers) this.offer(sub, change);
  }

  /** Delivers in order: a change beyond the next expected revision first fetches the missing ones. */
  private offer(sub: Subscriber, change: RevisionChange): void {
    if (sub.catchingUp) sub.buffer.push(change);
    else if (change.revision <= sub.delivered) return;
    else if (change.revision === sub.delivered + 1) this.deliver(sub, change);
    else {
      sub.buffer.push(change);
      void this.catchUp(sub, change.revision - 1);
    }
  }

  /** The producer lost history it cannot recover: every subscriber gets the error. */
  fail(err: Error): void {
    for (const sub of [...this.subscribers]) this.end(sub, err);
  }

  subscribe(after: number, onChange: (change: RevisionChange) => void, onError: (err: Error) => void): () => void {
    const sub: Subscriber = { delivered: after, catchingUp: false, buffer: [], onChange, onError, closed: false };
    this.subscribers.add(sub);
    if (after < this.live) void this.catchUp(sub);
    return () => {
      sub.closed = true;
      this.subscribers.delete(sub);
    };
  }

  private async catchUp(sub: Subscriber, target?: number): Promise<void> {
    if (sub.catchingUp) return;
    sub.catchingUp = true;
    try {
      while (!sub.closed && sub.delivered < (target ?? this.live)) {
        const upTo = target ?? this.live;
        const changes = await this.kv.history(sub.delivered, upTo);
        for (const change of changes) this.deliver(sub, change);
        if (sub.delivered < upTo) {
          // The store had no change for some revisions only if they were compacted away.
          throw new CompactedError(sub.delivered + 1, upTo);
        }
      }
      sub.catchingUp = false;
      const buffered = sub.buffer;
      sub.buffer = [];
      for (const change of buffered) this.offer(sub, change);
    } catch (err) {
      this.end(sub, err instanceof Error ? err : new Error(String(err)));
    }
  }

  private deliver(sub: Subscriber, change: RevisionChange): void {
    if (sub.closed || change.revision <= sub.delivered) return;
    sub.delivered = change.revision;
    try {
      sub.onChange(change);
    } catch (err) {
      this.end(sub, err instanceof Error ? err : new Error(String(err)));
    }
  }

  private end(sub: Subscriber, err: Error): void {
    if (sub.closed) return;
    sub.closed = true;
    this.subscribers.delete(sub);
    sub.onError(err);
  }
}
