/**
 * Linearizable revision reads shared by the callers that ask at the same moment (the
 * batching of etcd's ReadIndex, done on the client side).
 *
 * Contract: the revision a caller receives comes from a read that was sent after the
 * caller asked. So a write acknowledged before `current()` is called is always at or
 * below the revision it returns (linearizability). A read already in flight was sent
 * before the caller asked, so it may miss writes the caller saw acknowledged: a caller
 * never joins it.
 *
 * Rule: callers join the one batch not sent yet. The batch is sent at the end of the
 * event-loop turn in which its first caller asked (setImmediate: after the poll phase's
 * I/O callbacks), or, while `maxInFlight` reads are out, at the end of the turn in which
 * one of them settles; either way after every one of its callers asked. So every
 * request that arrived in that turn, on any connection, shares the read, and at most
 * `maxInFlight` reads are out whatever the number of callers.
 *
 * `maxInFlight` trades store work for waiting: with one read out, a caller arriving
 * while it is in flight waits for its rest and then a whole round trip; with k out, a
 * new read can leave at the end of the caller's turn (about one round trip), but up
 * to k times as many reads are sent. A read of a remote store costs its members and
 * this client far more CPU than serving a GET from the watch cache, so the default is 1.
 * A failed read fails the callers it serves; the next batch is sent as usual.
 */
export interface RevisionReadBatcherOptions {
  /** Reads in flight at once (at least 1; default 1). */
  maxInFlight?: number;
  /**
   * Runs `fn` at the end of the current event-loop turn (default setImmediate). A store
   * in the same process, which batches its own reads per turn, may run it at once: a
   * batch is then sent as soon as there is room.
   */
  endOfTurn?: (fn: () => void) => void;
}

interface Batch {
  promise: Promise<number>;
  resolve(revision: number): void;
  reject(err: unknown): void;
}

function newBatch(): Batch {
  let resolve!: (revision: number) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<number>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export const DEFAULT_REVISION_READS_IN_FLIGHT = 1;

export class RevisionReadBatcher {
  private readonly maxInFlight: number;
  private readonly endOfTurn: (fn: () => void) => void;
  /** Callers waiting for a read not sent yet. */
  private waiting: Batch | undefined;
  private flushScheduled = false;
  private inFlight = 0;
  private sent = 0;

  constructor(
    private readonly read: () => Promise<number>,
    options: RevisionReadBatcherOptions = {},
  ) {
    this.maxInFlight = Math.max(1, Math.floor(options.maxInFlight ?? DEFAULT_REVISION_READS_IN_FLIGHT));
    this.endOfTurn = options.endOfTurn ?? setImmediate;
  }

  /** How many reads were sent so far. */
  get readsSent(): number {
    return this.sent;
  }

  current(): Promise<number> {
    if (this.waiting) return this.waiting.promise;
    const batch = newBatch();
    this.waiting = batch;
    if (this.inFlight < this.maxInFlight) this.scheduleFlush();
    return batch.promise;
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    this.endOfTurn(() => {
      this.flushScheduled = false;
      this.flush();
    });
  }

  /** Sends the waiting batch's read if there is room; its callers all asked before this point. */
  private flush(): void {
    const batch = this.waiting;
    if (!batch || this.inFlight >= this.maxInFlight) return;
    this.waiting = undefined;
    this.sent++;
    this.inFlight++;
    let read: Promise<number>;
    try {
      read = this.read();
    } catch (err) {
      read = Promise.reject(err);
    }
    read.then(batch.resolve, batch.reject).finally(() => {
      this.inFlight--;
      if (this.waiting) this.scheduleFlush();
    });
  }
}
