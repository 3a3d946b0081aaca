/**
 * One linearizable revision read shared by every caller waiting at the same moment
 * (the batching of etcd's ReadIndex, done on the client side).
 *
 * Contract: the revision a caller receives comes from a read that was sent after the
 * caller asked. So a write acknowledged before `current()` is called is always at or
 * below the revision it returns (linearizability), while at most one read is in flight
 * and at most one more is queued, however many callers there are:
 * - no read in flight: one is sent at once for this caller;
 * - a read in flight: it was sent before this caller asked, so it may miss writes the
 *   caller saw acknowledged; the caller joins the queued next read, sent as soon as
 *   the one in flight settles, and every caller arriving meanwhile joins that same read.
 * Under load that is one read per store round trip, whatever the number of callers.
 * A failed read fails the callers it serves; the next caller starts afresh.
 */
export class RevisionReadBatcher {
  private inFlight: Promise<number> | undefined;
  private queued: Promise<number> | undefined;
  private sent = 0;

  constructor(private readonly read: () => Promise<number>) {}

  /** How many reads were sent so far. */
  get readsSent(): number {
    return this.sent;
  }

  current(): Promise<number> {
    if (this.queued) return this.queued;
    const running = this.inFlight;
    if (!running) return this.send();
    const settled = running.then(
      () => undefined,
      () => undefined,
    );
    const next = settled.then(() => {
      this.queued = undefined;
      return this.send();
    });
    this.queued = next;
    return next;
  }

  private send(): Promise<number> {
    this.sent++;
    const read = this.read().finally(() => {
      if (this.inFlight === read) this.inFlight = undefined;
    });
    this.inFlight = read;
    return read;
  }
}
