/**
 * In-flight seats with per-user fairness. Two pools as the platform's max-in-flight
 * filter has (read-only and mutating, `0` = unlimited); every request occupies one
 * seat of its pool, whatever its work (the platform's filter counts requests, and
 * sizes none: work estimates belong to API Priority and Fairness). Admission, in order:
 *  - a member of the privileged group takes a seat when the pool has room and is
 *    otherwise admitted without one: it is never refused;
 *  - the pool must have a free seat;
 *  - a user that already holds seats may hold at most its fair share,
 *    `max(min(minUserSeats, floor(pool / 2)), floor(pool / (activeUsers + 1)))`: one
 *    share stays free for a user that is not active yet, so one user cannot starve
 *    the others, however small the pool.
 * Refusals are 429 TooManyRequests with `Retry-After: 1`. Pure bookkeeping: no clock.
 */
import { tooManyRequests } from "../../../../shared/api/status.ts";

export type PoolKind = "readOnly" | "mutating";

export interface SeatRequest {
  pool: PoolKind;
  /** Fairness key: the acting user's name. */
  user: string;
  /** `system:masters`: never refused. */
  privileged: boolean;
}

export interface LimiterOptions {
  maxReadOnly: number;
  maxMutating: number;
  /** Seats a user may always hold when its pool has room (default 4). */
  minUserSeats?: number;
}

class Pool {
  used = 0;
  requests = 0;
  readonly byUser = new Map<string, number>();

  constructor(
    readonly max: number,
    private readonly minUserSeats: number,
  ) {}

  fairShare(user: string): number {
    const active = this.byUser.size + (this.byUser.has(user) ? 0 : 1);
    const floor = Math.min(this.minUserSeats, Math.max(1, Math.floor(this.max / 2)));
    return Math.max(floor, Math.floor(this.max / (active + 1)));
  }

  /** Seats taken (1, or 0: admitted without a seat), or undefined when refused. */
  admit(r: SeatRequest): number | undefined {
    if (this.max <= 0) return 0;
    const room = this.used < this.max;
    if (r.privileged) return room ? 1 : 0;
    if (!room) return undefined;
    const held = this.byUser.get(r.user) ?? 0;
    if (held > 0 && held + 1 > this.fairShare(r.user)) return undefined;
    return 1;
  }

  take(user: string, seats: number): void {
    this.requests++;
    if (seats === 0) return;
    this.used += seats;
    this.byUser.set(user, (this.byUser.get(user) ?? 0) + seats);
  }

  give(user: string, seats: number): void {
    this.requests--;
    if (seats === 0) return;
    this.used -= seats;
    const left = (this.byUser.get(user) ?? 0) - seats;
    if (left > 0) this.byUser.set(user, left);
    else this.byUser.delete(user);
  }
}

export class InFlightLimiter {
  private readonly pools: Record<PoolKind, Pool>;

  constructor(o: LimiterOptions) {
    const min = o.minUserSeats ?? 4;
    this.pools = { readOnly: new Pool(o.maxReadOnly, min), mutating: new Pool(o.maxMutating, min) };
  }

  /** Takes the request's seat or throws 429; returns the release function (idempotent). */
  acquire(r: SeatRequest): () => void {
    const pool = this.pools[r.pool];
    const seats = pool.admit(r);
    if (seats === undefined) throw tooManyRequests();
    pool.take(r.user, seats);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      pool.give(r.user, seats);
    };
  }

  /** Requests in flight per pool (the `apiserver_current_inflight_requests` gauge). */
  get counts(): { readOnly: number; mutating: number } {
    return { readOnly: this.pools.readOnly.requests, mutating: this.pools.mutating.requests };
  }

  /** Seats held in a pool, in total or by one user. */
  seatsInUse(pool: PoolKind, user?: string): number {
    const p = this.pools[pool];
    return user === undefined ? p.used : (p.byUser.get(user) ?? 0);
  }
}
