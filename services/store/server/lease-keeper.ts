/**
 * Lease deadlines on the leader. The replicated state only holds granted TTLs; the
 * node that leads tracks deadlines on its own clock (LeaseDeadlines), renews them
 * on keep-alives and proposes a leaseRevoke for every expired lease, which deletes
 * the lease's keys in one revision. A node that stops leading forgets its
 * deadlines; one that starts leading gives every existing lease a full TTL, as
 * etcd's lessor does on promotion.
 *
 * Leases granted through another node (or before this node led) are picked up by
 * a reconcile pass on every check, and on first use by keep-alive/time-to-live.
 *
 * When the backend keeps deadlines itself (LeaseDeadlineBackend: the Raft node),
 * this keeper only delegates keep-alive and time-to-live to it and expires nothing.
 */
import { LeaseDeadlines } from "../mvcc/index.ts";
import { isLeader, leadershipOf, leaseDeadlinesOf, type LeaseDeadlineBackend } from "./capabilities.ts";
import type { ServerContext } from "./context.ts";

/** Revokes proposed per check; the rest wait for the next check. */
const MAX_REVOKES_PER_CHECK = 500;

export class LeaseKeeper {
  private readonly deadlines = new LeaseDeadlines();
  /** Ids the deadlines hold (expired or not): LeaseDeadlines does not tell "expired" from "unknown". */
  private tracked = new Set<bigint>();
  private leading = false;
  private readonly revoking = new Set<bigint>();
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;

  private readonly delegate: LeaseDeadlineBackend | undefined;

  constructor(private readonly ctx: ServerContext) {
    this.delegate = leaseDeadlinesOf(ctx.backend);
  }

  start(): void {
    if (this.delegate !== undefined) return;
    const leadership = leadershipOf(this.ctx.backend);
    this.unsubscribe = leadership?.onLeadershipChange(() => this.check());
    this.timer = setInterval(() => this.check(), this.ctx.options.leaseCheckIntervalMs);
    this.timer.unref();
    this.check();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.unsubscribe?.();
  }

  private now(): number {
    return this.ctx.options.now();
  }

  /** Whether this node answers keep-alives itself (it leads). */
  get isLeading(): boolean {
    if (this.delegate !== undefined) return isLeader(this.ctx.backend);
    this.syncLeadership();
    return this.leading;
  }

  private syncLeadership(): void {
    const leading = isLeader(this.ctx.backend);
    if (leading !== this.leading) {
      const leases = leading ? this.ctx.backend.mvcc.leases() : [];
      this.deadlines.promote(leases, this.now());
      this.tracked = new Set(leases.map((l) => l.id));
    }
    this.leading = leading;
  }

  private track(id: bigint, ttl: number): void {
    this.deadlines.grant(id, ttl, this.now());
    this.tracked.add(id);
  }

  private forget(id: bigint): void {
    this.deadlines.forget(id);
    this.tracked.delete(id);
  }

  /** A lease this node just granted: full TTL from now. */
  granted(id: bigint, ttl: number): void {
    if (this.delegate === undefined && this.isLeading) this.track(id, ttl);
  }

  revoked(id: bigint): void {
    this.forget(id);
  }

  /** Tracks a lease that lives in the store but is unknown here (granted through another node). */
  private ensureTracked(id: bigint): boolean {
    if (this.tracked.has(id)) return true;
    const lease = this.ctx.backend.mvcc.lease(id);
    if (lease === undefined) return false;
    this.track(id, lease.ttl);
    return true;
  }

  /** Keep-alive on the leader: the new TTL, or 0 when the lease is gone or expired. */
  renew(id: bigint): number {
    if (this.delegate !== undefined) return this.delegate.leaseKeepAlive(id) ?? 0;
    if (!this.ensureTracked(id)) return 0;
    return this.deadlines.renew(id, this.now()) ?? 0;
  }

  /** Remaining seconds on the leader; -1 when the lease is gone or expired. */
  remaining(id: bigint): number {
    if (this.delegate !== undefined) return this.delegate.leaseTimeToLive(id);
    if (!this.ensureTracked(id)) return -1;
    return this.deadlines.remainingSeconds(id, this.now());
  }

  /** Reconciles with the store's leases and revokes the expired ones (leader only). */
  check(): void {
    this.syncLeadership();
    if (!this.leading) return;
    const inStore = this.ctx.backend.mvcc.leases();
    const ids = new Set(inStore.map((l) => l.id));
    for (const l of inStore) if (!this.tracked.has(l.id)) this.track(l.id, l.ttl);
    for (const id of this.tracked) if (!ids.has(id) && !this.revoking.has(id)) this.forget(id);
    for (const id of this.deadlines.expiredLeases(this.now(), MAX_REVOKES_PER_CHECK)) {
      if (this.revoking.has(id)) continue;
      this.revoking.add(id);
      this.ctx
        .propose({ type: "leaseRevoke", request: { id } })
        .then(
          () => this.forget(id),
          (err: unknown) => {
            if (err instanceof Error && /lease not found/.test(err.message)) this.forget(id);
            else this.ctx.options.logger?.warn({ lease: id.toString(), err: String(err) }, "lease revoke failed; retrying");
          },
        )
        .finally(() => this.revoking.delete(id));
    }
  }
}
