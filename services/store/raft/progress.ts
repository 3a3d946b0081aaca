// The leader's view of one follower (or learner): how far its log matches,
// what to send next, and the flow-control state.
//
//   Probe:     the leader does not know where the follower's log ends; it sends
//              at most one MsgApp per heartbeat interval and waits for the answer.
//   Replicate: the follower is caught up to `match`; the leader streams entries
//              optimistically (next moves ahead of match), bounded by `inflights`.
//   Snapshot:  the follower needs a snapshot; appends stop until it is reported.

export const ProgressState = {
  Probe: 0,
  Replicate: 1,
  Snapshot: 2,
} as const;
export type ProgressState = (typeof ProgressState)[keyof typeof ProgressState];

export function progressStateName(s: ProgressState): string {
  return ["Probe", "Replicate", "Snapshot"][s] ?? `State(${s})`;
}

/**
 * A sliding window of the last indexes of the MsgApps sent to one follower
 * and not yet acknowledged. A ring buffer of fixed capacity.
 */
export class Inflights {
  private start = 0;
  private countValue = 0;
  private readonly buffer: number[];
  readonly size: number;

  constructor(size: number) {
    if (!(size > 0)) throw new RangeError(`inflights size must be positive, got ${size}`);
    this.size = size;
    this.buffer = new Array<number>(size).fill(0);
  }

  get count(): number {
    return this.countValue;
  }

  /** Records a MsgApp whose last entry has index `inflight`. Indexes must increase. */
  add(inflight: number): void {
    if (this.full()) throw new Error("cannot add into a full inflights window");
    let next = this.start + this.countValue;
    if (next >= this.size) next -= this.size;
    this.buffer[next] = inflight;
    this.countValue++;
  }

  /** Frees every inflight message whose index is <= to. */
  freeLE(to: number): void {
    if (this.countValue === 0 || to < this.buffer[this.start]) return;
    let idx = this.start;
    let i = 0;
    for (; i < this.countValue; i++) {
      if (to < this.buffer[idx]) break;
      idx++;
      if (idx >= this.size) idx -= this.size;
    }
    this.countValue -= i;
    this.start = idx;
    if (this.countValue === 0) this.start = 0;
  }

  freeFirstOne(): void {
    if (this.countValue === 0) return;
    this.freeLE(this.buffer[this.start]);
  }

  full(): boolean {
    return this.countValue === this.size;
  }

  reset(): void {
    this.countValue = 0;
    this.start = 0;
  }
}

export class Progress {
  /** Highest index known to be replicated on the follower. */
  match: number;
  /** Index of the next entry to send. Invariant: match < next. */
  next: number;
  state: ProgressState = ProgressState.Probe;
  /** In Snapshot state, the index of the snapshot being sent. */
  pendingSnapshot = 0;
  /** Heard from since the last check-quorum round (always true for the leader itself). */
  recentActive: boolean;
  /** In Probe state: a probe is outstanding, so further appends wait. */
  probeSent = false;
  inflights: Inflights;
  isLearner: boolean;
  /**
   * The highest commit index sent to the follower that it can act on: an append's
   * commit capped at the last index the append leaves it holding, a heartbeat's
   * capped at match. Optimistic (a lost message is not noticed); heartbeats repeat
   * the commit index regardless.
   */
  sentCommit = 0;

  constructor(opts: { match: number; next: number; maxInflight: number; isLearner: boolean; recentActive?: boolean }) {
    this.match = opts.match;
    this.next = opts.next;
    this.inflights = new Inflights(opts.maxInflight);
    this.isLearner = opts.isLearner;
    this.recentActive = opts.recentActive ?? false;
  }

  /** A copy sharing nothing mutable except by explicit choice (the inflights window is copied by reference on purpose: conf changes keep flow control). */
  clone(): Progress {
    const p = new Progress({ match: this.match, next: this.next, maxInflight: this.inflights.size, isLearner: this.isLearner, recentActive: this.recentActive });
    p.state = this.state;
    p.pendingSnapshot = this.pendingSnapshot;
    p.probeSent = this.probeSent;
    p.sentCommit = this.sentCommit;
    p.inflights = this.inflights;
    return p;
  }

  private resetState(state: ProgressState): void {
    this.probeSent = false;
    this.pendingSnapshot = 0;
    this.state = state;
    this.inflights.reset();
  }

  becomeProbe(): void {
    if (this.state === ProgressState.Snapshot) {
      // Probe from the snapshot index: the follower has (or will have) it.
      const pending = this.pendingSnapshot;
      this.resetState(ProgressState.Probe);
      this.next = Math.max(this.match + 1, pending + 1);
    } else {
      this.resetState(ProgressState.Probe);
      this.next = this.match + 1;
    }
  }

  becomeReplicate(): void {
    this.resetState(ProgressState.Replicate);
    this.next = this.match + 1;
  }

  becomeSnapshot(snapshotIndex: number): void {
    this.resetState(ProgressState.Snapshot);
    this.pendingSnapshot = snapshotIndex;
  }

  /** Records an acknowledgement up to n; returns whether match advanced. */
  maybeUpdate(n: number): boolean {
    let updated = false;
    if (this.match < n) {
      this.match = n;
      updated = true;
      this.probeSent = false;
    }
    this.next = Math.max(this.next, n + 1);
    return updated;
  }

  /** In Replicate state, entries up to n were sent: continue after them. */
  optimisticUpdate(n: number): void {
    this.next = n + 1;
  }

  /**
   * Handles a rejection of the MsgApp whose previous index was `rejected`;
   * `matchHint` is where the logs are guessed to match. Returns false for a
   * stale rejection (which must be ignored).
   */
  maybeDecrTo(rejected: number, matchHint: number): boolean {
    if (this.state === ProgressState.Replicate) {
      if (rejected <= this.match) return false;
      this.next = this.match + 1;
      return true;
    }
    if (this.next - 1 !== rejected) return false;
    this.next = Math.max(Math.min(rejected, matchHint + 1), this.match + 1);
    this.probeSent = false;
    return true;
  }

  /** Whether sending appends to this follower should wait. */
  isPaused(): boolean {
    switch (this.state) {
      case ProgressState.Probe:
        return this.probeSent;
      case ProgressState.Replicate:
        return this.inflights.full();
      default:
        return true;
    }
  }

  toString(): string {
    let s = `${progressStateName(this.state)} match=${this.match} next=${this.next}`;
    if (this.isLearner) s += " learner";
    if (this.isPaused()) s += " paused";
    if (this.pendingSnapshot > 0) s += ` pendingSnap=${this.pendingSnapshot}`;
    if (!this.recentActive) s += " inactive";
    if (this.inflights.count > 0) s += ` inflight=${this.inflights.count}${this.inflights.full() ? "[full]" : ""}`;
    return s;
  }
}
