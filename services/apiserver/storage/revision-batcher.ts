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
 *
 * Regrouping: the callers a read served usually ask again soon (a client's next
 * request), a moment after the read settled. Sent at once, the next read would leave
 * without them, and they would wait for the whole of it and then another read: under a
 * steady load the callers split into two groups that each get every other read. So
 * after a read settles, the next one waits until as many callers wait as that read
 * served plus those that were already waiting, or at most half that read's latency
 * (and `regroupMaxMs`), whichever comes first; then it leaves at the end of the turn
 * as usual. A lone caller that asks again is sent at once (it is all that was
 * expected); a caller with no read settled just before is not held at all.
 * Measured with 2 replicas behind haproxy, 64 GET clients, against the batcher without
 * it (4 rounds interleaved, load 5.9-7.0): req/s 1.00 / 1.29 / 1.34, cluster CPU per GET
 * 515-925 us vs 591-1228 us. A lone sequential GET client beside a flood of lists that
 * share its reads (which do not come back soon) is not held back by it: `bench -- apf`
 * against regroupMaxMs 0 (APF_BASELINE, 1,500 GETs, 3 rounds) gave the client's p99
 * under the flood 0.75 / 0.92 / 1.10 and its growth over unloaded 0.72 / 0.86 / 1.26.
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
  /** Longest wait for the callers of a settled read to ask again (default 10 ms; 0: no regrouping). */
  regroupMaxMs?: number;
  /** Runs `fn` after `ms` (default an unreferenced setTimeout); returns its cancel. */
  after?: (fn: () => void, ms: number) => () => void;
  now?: () => number;
}

interface Batch {
  callers: number;
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
  return { callers: 0, promise, resolve, reject };
}

export const DEFAULT_REVISION_READS_IN_FLIGHT = 1;
export const DEFAULT_REGROUP_MAX_MS = 10;

function unrefTimeout(fn: () => void, ms: number): () => void {
  const t = setTimeout(fn, ms);
  t.unref();
  return () => clearTimeout(t);
}

export class RevisionReadBatcher {
  private readonly maxInFlight: number;
  private readonly endOfTurn: (fn: () => void) => void;
  /** Callers waiting for a read not sent yet. */
  private waiting: Batch | undefined;
  private flushScheduled = false;
  private inFlight = 0;
  private sent = 0;
  private readonly regroupMaxMs: number;
  private readonly after: (fn: () => void, ms: number) => () => void;
  private readonly now: () => number;
  /** While regrouping: the waiting callers that release the next read early, and the cancel of its deadline. */
  private hold: { until: number; cancel: () => void } | undefined;

  constructor(
    private readonly read: () => Promise<number>,
    options: RevisionReadBatcherOptions = {},
  ) {
    this.maxInFlight = Math.max(1, Math.floor(options.maxInFlight ?? DEFAULT_REVISION_READS_IN_FLIGHT));
    this.endOfTurn = options.endOfTurn ?? setImmediate;
    this.regroupMaxMs = options.regroupMaxMs ?? DEFAULT_REGROUP_MAX_MS;
    this.after = options.after ?? unrefTimeout;
    this.now = options.now ?? performance.now.bind(performance);
  }

  /** How many reads were sent so far. */
  get readsSent(): number {
    return this.sent;
  }

  current(): Promise<number> {
    const batch = (this.waiting ??= newBatch());
    batch.callers++;
    if (this.hold) {
      if (batch.callers < this.hold.until) return batch.promise;
      this.release();
    }
    if (this.inFlight < this.maxInFlight) this.scheduleFlush();
    return batch.promise;
  }

  /** Ends the regrouping wait: the next read leaves at the end of the turn. */
  private release(): void {
    this.hold?.cancel();
    this.hold = undefined;
  }

  /** A read served `served` callers in `latencyMs`: the next one waits for them to come back (see Regrouping). */
  private regroup(served: number, latencyMs: number): void {
    this.release();
    const holdMs = Math.min(this.regroupMaxMs, latencyMs / 2);
    if (holdMs <= 0 || served === 0) {
      if (this.waiting) this.scheduleFlush();
      return;
    }
    const hold = {
      until: served + (this.waiting?.callers ?? 0),
      cancel: this.after(() => {
        if (this.hold !== hold) return;
        this.hold = undefined;
        if (this.waiting) this.scheduleFlush();
      }, holdMs),
    };
    this.hold = hold;
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
    if (!batch || this.inFlight >= this.maxInFlight || this.hold) return;
    this.waiting = undefined;
    this.sent++;
    this.inFlight++;
    let read: Promise<number>;
    try {
      read = this.read();
    } catch (err) {
      read = Promise.reject(err);
    }
    const sentAt = this.now();
    read.then(batch.resolve, batch.reject).finally(() => {
      this.inFlight--;
      this.regroup(batch.callers, this.now() - sentAt);
    });
  }
}
