/**
 * In-flight seats with per-user fairness. Two pools as the platform's max-in-flight
 * filter has (read-only and mutating, `0` = unlimited); a request occupies `seats`
 * (1, or more for a large list) of its pool. Admission, in order:
 *  - a member of the privileged group takes seats when the pool has room and is
 *    otherwise admitted without seats: it is never refused;
 *  - the pool must have room for the request's seats (a request wider than the
 *    pool is clamped to the pool);
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
  seats: number;
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

  /** Seats taken (0: admitted without seats), or undefined when refused. */
  admit(r: SeatRequest): number | undefined {
    if (this.max <= 0) return 0;
    const seats = Math.min(Math.max(1, Math.ceil(r.seats)), this.max);
    const room = this.used + seats <= this.max;
    if (r.privileged) return room ? seats : 0;
    if (!room) return undefined;
    const held = this.byUser.get(r.user) ?? 0;
    if (held > 0 && held + seats > this.fairShare(r.user)) return undefined;
    return seats;
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

  /** Takes the seats or throws 429; returns the release function (idempotent). */
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
