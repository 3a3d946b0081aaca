/**
 * A StoreBackend without replication: writes apply directly to the state machine.
 * For tests of the layers above the store and for tools; the served store uses the
 * Raft node.
 */
import { MvccStore, type RevisionChange, type StoreRequest, type StoreResponse } from "../mvcc/index.ts";
import type { BackendStatus, StoreBackend } from "./backend.ts";

export class LocalBackend implements StoreBackend {
  readonly mvcc: MvccStore;
  private readonly listeners = new Set<(change: RevisionChange) => void>();
  private applied = 0;

  constructor(mvcc: MvccStore = new MvccStore()) {
    this.mvcc = mvcc;
  }

  async propose(request: StoreRequest): Promise<StoreResponse> {
    const res = this.mvcc.apply(request);
    this.applied++;
    if (res.change) for (const l of this.listeners) l(res.change);
    return res;
  }

  async readBarrier(): Promise<void> {}

  onApplied(listener: (change: RevisionChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  status(): BackendStatus {
    return { memberId: 1n, clusterId: 1n, term: 1, leader: 1n, raftIndex: this.applied, appliedIndex: this.applied };
  }
}
