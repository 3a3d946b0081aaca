import type { LeaseId, LeaseInfo } from "./types.ts";

/**
 * Lease deadlines as the leader tracks them. Not replicated state: the store only
 * knows granted TTLs; the leader decides expiry from its own clock and proposes a
 * leaseRevoke entry for each expired lease. Pure: the caller passes the time.
 *
 * On election the new leader calls `promote` so every lease gets a full TTL from
 * the moment it took over (as etcd's lessor does), instead of trusting deadlines it
 * never saw.
 */
export class LeaseDeadlines {
  private deadlines = new Map<LeaseId, { ttl: number; deadlineMs: number }>();

  /** Starts (or restarts) tracking a lease with a full TTL from nowMs. */
  grant(id: LeaseId, ttlSeconds: number, nowMs: number): void {
    this.deadlines.set(id, { ttl: ttlSeconds, deadlineMs: nowMs + ttlSeconds * 1000 });
  }

  /** A keep-alive: extends the lease to a full TTL. Returns the TTL, or undefined if unknown or expired. */
  renew(id: LeaseId, nowMs: number): number | undefined {
    const d = this.deadlines.get(id);
    if (d === undefined || d.deadlineMs <= nowMs) return undefined;
    d.deadlineMs = nowMs + d.ttl * 1000;
    return d.ttl;
  }

  forget(id: LeaseId): void {
    this.deadlines.delete(id);
  }

  /** Remaining whole seconds (rounded up) as LeaseTimeToLive reports it; -1 if unknown or expired. */
  remainingSeconds(id: LeaseId, nowMs: number): number {
    const d = this.deadlines.get(id);
    if (d === undefined || d.deadlineMs <= nowMs) return -1;
    return Math.ceil((d.deadlineMs - nowMs) / 1000);
  }

  /** Leases whose deadline is at or before nowMs, earliest first (ties by id). */
  expiredLeases(nowMs: number, limit = Infinity): LeaseId[] {
    const expired: { id: LeaseId; deadlineMs: number }[] = [];
    for (const [id, d] of this.deadlines) if (d.deadlineMs <= nowMs) expired.push({ id, deadlineMs: d.deadlineMs });
    expired.sort((a, b) => a.deadlineMs - b.deadlineMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return expired.slice(0, limit).map((e) => e.id);
  }

  /** Resets tracking to exactly the given leases, each with a full TTL from nowMs. */
  promote(leases: readonly LeaseInfo[], nowMs: number): void {
    this.deadlines = new Map(leases.map((l) => [l.id, { ttl: l.ttl, deadlineMs: nowMs + l.ttl * 1000 }]));
  }

  get size(): number {
    return this.deadlines.size;
  }
}
