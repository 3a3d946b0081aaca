/**
 * In-flight seats as the platform's max-in-flight filter counts them (APF off): two
 * pools, read-only and mutating (`0` = unlimited), each request that is not long-running
 * occupying one seat of its pool whatever its work (work estimates belong to API
 * Priority and Fairness). Admission: a request takes a seat when its pool has one free;
 * otherwise a member of the privileged group (`system:masters`) is admitted without a
 * seat (never refused), and any other request is refused with 429 TooManyRequests and
 * `Retry-After: 1`. There is no per-user share: the platform's filter has none, and
 * fairness between users is what API Priority and Fairness adds.
 * Pure bookkeeping: no clock.
 */
import { tooManyRequests } from "../../../../shared/api/status.ts";

export type PoolKind = "readOnly" | "mutating";

export interface SeatRequest {
  pool: PoolKind;
  /** `system:masters`: never refused. */
  privileged: boolean;
}

export interface LimiterOptions {
  maxReadOnly: number;
  maxMutating: number;
}

class Pool {
  /** Seats held (at most `max`). */
  used = 0;
  /** Requests in flight, with or without a seat. */
  requests = 0;

  constructor(readonly max: number) {}

  /** Seats taken (1, or 0: admitted without a seat), or undefined when refused. */
  admit(privileged: boolean): number | undefined {
    if (this.max <= 0) return 0;
    if (this.used < this.max) return 1;
    return privileged ? 0 : undefined;
  }
}

export class InFlightLimiter {
  private readonly pools: Record<PoolKind, Pool>;

  constructor(o: LimiterOptions) {
    this.pools = { readOnly: new Pool(o.maxReadOnly), mutating: new Pool(o.maxMutating) };
  }

  /** Takes the request's seat or throws 429; returns the release function (idempotent). */
  acquire(r: SeatRequest): () => void {
    const pool = this.pools[r.pool];
    const seats = pool.admit(r.privileged);
    if (seats === undefined) throw tooManyRequests();
    pool.requests++;
    pool.used += seats;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      pool.requests--;
      pool.used -= seats;
    };
  }

  /** Requests in flight per pool (the `apiserver_current_inflight_requests` gauge). */
  get counts(): { readOnly: number; mutating: number } {
    return { readOnly: this.pools.readOnly.requests, mutating: this.pools.mutating.requests };
  }

  /** Seats held in a pool. */
  seatsInUse(pool: PoolKind): number {
    return this.pools[pool].used;
  }
}
