// Lease expiry, a leader duty. Deadlines are not replicated: the leader keeps
// them (LeaseDeadlines) from its own clock, starting every lease with a full
// TTL when it takes over, and proposes a leaseRevoke entry for each expired
// lease. Followers keep no deadlines; they start tracking only when promoted.
// Applied grants and revokes keep the deadlines in step with the store.

import { LeaseDeadlines, type LeaseId, type MvccStore, type StoreRequest, type StoreResponse } from "../mvcc/index.ts";

/** Revokes proposed per check, so a mass expiry does not flood one Ready. */
const REVOKES_PER_CHECK = 256;

export class LeaseKeeper {
  private deadlines = new LeaseDeadlines();
  private leading = false;
  private readonly revoking = new Set<LeaseId>();

  constructor(
    private readonly mvcc: MvccStore,
    private readonly now: () => number,
    private readonly propose: (request: StoreRequest) => Promise<StoreResponse>,
  ) {}

  get isLeading(): boolean {
    return this.leading;
  }

  setLeading(leading: boolean): void {
    if (leading && !this.leading) this.deadlines.promote(this.mvcc.leases(), this.now());
    if (!leading) this.deadlines = new LeaseDeadlines();
    this.revoking.clear();
    this.leading = leading;
  }

  /** Restarts tracking after a snapshot replaced the state (leader only). */
  resync(): void {
    if (this.leading) this.deadlines.promote(this.mvcc.leases(), this.now());
  }

  /** Called for every applied store request. */
  onApplied(request: StoreRequest, response: StoreResponse): void {
    if (!this.leading) return;
    if (response.result.type === "leaseGrant") this.deadlines.grant(response.result.response.id, response.result.response.ttl, this.now());
    else if (request.type === "leaseRevoke") {
      this.deadlines.forget(request.request.id);
      this.revoking.delete(request.request.id);
    }
  }

  /** Proposes revokes of expired leases (leader only). */
  check(): void {
    if (!this.leading) return;
    for (const id of this.deadlines.expiredLeases(this.now(), REVOKES_PER_CHECK + this.revoking.size)) {
      if (this.revoking.has(id)) continue;
      this.revoking.add(id);
      this.propose({ type: "leaseRevoke", request: { id } }).then(
        (res) => {
          if (res.result.type === "error") this.deadlines.forget(id); // already gone
          this.revoking.delete(id);
        },
        () => this.revoking.delete(id), // retried on a later check while still leading
      );
    }
  }

  /** Extends a lease to a full TTL; the TTL, or undefined when unknown or expired. Leader only. */
  keepAlive(id: LeaseId): number | undefined {
    return this.deadlines.renew(id, this.now());
  }

  /** Remaining seconds, -1 when unknown or expired. Leader only. */
  remainingSeconds(id: LeaseId): number {
    return this.deadlines.remainingSeconds(id, this.now());
  }
}
