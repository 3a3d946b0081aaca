// Linearizable read barriers through Raft's ReadIndex (Raft thesis §6.4).
//
// Callers that arrive between two turns of the node's loop share one ReadIndex
// request (one heartbeat round on the leader). While a request is in flight,
// new callers wait and share the next one, sent when its answer comes (etcd's
// linearizable read loop): under many concurrent reads one heartbeat round
// serves all that arrived during the previous round, instead of a round per
// loop turn. A request unanswered for retryMs no longer holds new callers back.
// A request whose answer does not come back (lost message, leader change) is
// sent again every retryMs with the same context until the caller's deadline.
// Once the read index is known, the callers wait until the state machine
// applied up to it.
//
// Contract with the node: flush() is called in the loop before ready(), once
// per turn of the event loop in which callers arrived or an answer came
// (the node gathers a turn's callers, see RaftNode.scheduleReads), and on
// ticks while requests are in flight; onReadState() for each ReadState of a
// Ready, release(applied) after applying, sweep() on every tick.

import { Writer } from "../transport/binary.ts";
import type { ReadState } from "../raft/index.ts";
import { noLeader, timedOut } from "./errors.ts";

interface Waiter {
  deadline: number;
  resolve: () => void;
  reject: (e: unknown) => void;
}

interface InFlight {
  ctx: Uint8Array;
  /** First sent (new callers wait while this is recent), and last sent (for retries). */
  firstSentAt: number;
  sentAt: number;
  waiters: Waiter[];
}

export interface ReadIndexSender {
  /** Sends a ReadIndex request; throws when no leader is known. */
  readIndex(ctx: Uint8Array): void;
  hasLeader(): boolean;
}

function key(ctx: Uint8Array): string {
  return Buffer.from(ctx.buffer, ctx.byteOffset, ctx.byteLength).toString("hex");
}

export class ReadIndexQueue {
  private queued: Waiter[] = [];
  private readonly inFlight = new Map<string, InFlight>();
  /** Read indexes known, waiting for apply; kept in arrival order. */
  private awaitingApply: { index: number; waiters: Waiter[] }[] = [];
  private counter = 0;

  constructor(
    private readonly nonce: number,
    private readonly timeoutMs: number,
    private readonly retryMs: number,
    private readonly now: () => number,
  ) {}

  /** A new barrier; resolves once applied >= a read index obtained after this call. */
  wait(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queued.push({ deadline: this.now() + this.timeoutMs, resolve, reject });
    });
  }

  get hasQueued(): boolean {
    return this.queued.length > 0;
  }

  /** Whether a flush has anything to send or retry. */
  get hasWork(): boolean {
    return this.queued.length > 0 || this.inFlight.size > 0;
  }

  /** Requests sent (retries not counted). */
  get rounds(): number {
    return this.counter;
  }

  /** Whether a request sent less than retryMs ago is still unanswered. */
  private awaitingAnswer(now: number): boolean {
    for (const f of this.inFlight.values()) if (now - f.firstSentAt < this.retryMs) return true;
    return false;
  }

  /** Sends one request for all queued callers unless one is awaiting its answer (and retries overdue ones). */
  flush(sender: ReadIndexSender): void {
    const now = this.now();
    if (this.queued.length > 0 && (!sender.hasLeader() || !this.awaitingAnswer(now))) {
      const waiters = this.queued;
      this.queued = [];
      if (!sender.hasLeader()) {
        for (const w of waiters) w.reject(noLeader());
      } else {
        const w = new Writer(16);
        w.uvarint(this.nonce);
        w.uvarint(++this.counter);
        const ctx = w.finish();
        const f: InFlight = { ctx, firstSentAt: now, sentAt: now, waiters };
        this.inFlight.set(key(ctx), f);
        this.send(sender, f);
      }
    }
    for (const f of this.inFlight.values()) {
      if (now - f.sentAt >= this.retryMs && sender.hasLeader()) {
        f.sentAt = now;
        this.send(sender, f);
      }
    }
  }

  private send(sender: ReadIndexSender, f: InFlight): void {
    try {
      sender.readIndex(f.ctx);
    } catch {
      // No leader right now: retried on a later flush until the deadline.
    }
  }

  onReadState(rs: ReadState): void {
    const k = key(rs.requestCtx);
    const f = this.inFlight.get(k);
    if (!f) return;
    this.inFlight.delete(k);
    this.awaitingApply.push({ index: rs.index, waiters: f.waiters });
  }

  /** Resolves the callers whose read index is applied. */
  release(applied: number): void {
    if (this.awaitingApply.length === 0) return;
    const keep: { index: number; waiters: Waiter[] }[] = [];
    for (const a of this.awaitingApply) {
      if (a.index <= applied) for (const w of a.waiters) w.resolve();
      else keep.push(a);
    }
    this.awaitingApply = keep;
  }

  /** Rejects overdue callers: "no leader" when none is known, otherwise a timeout. */
  sweep(hasLeader: boolean): void {
    const now = this.now();
    const err = hasLeader ? timedOut("read barrier") : noLeader();
    const expire = (ws: Waiter[]): Waiter[] =>
      ws.filter((w) => {
        if (w.deadline > now) return true;
        w.reject(err);
        return false;
      });
    for (const [k, f] of this.inFlight) {
      f.waiters = expire(f.waiters);
      if (f.waiters.length === 0) this.inFlight.delete(k);
    }
    this.awaitingApply = this.awaitingApply.map((a) => ({ index: a.index, waiters: expire(a.waiters) })).filter((a) => a.waiters.length > 0);
  }

  rejectAll(err: unknown): void {
    const all = [...this.queued, ...[...this.inFlight.values()].flatMap((f) => f.waiters), ...this.awaitingApply.flatMap((a) => a.waiters)];
    this.queued = [];
    this.inFlight.clear();
    this.awaitingApply = [];
    for (const w of all) w.reject(err);
  }
}
