// Applying the committed log to the state machine: store requests to the
// MvccStore (resolving the local proposer's waiting request by its tag),
// conf changes to the core and the member list (through Membership), and
// snapshots (MVCC state + members). Tracks the applied index and the
// ConfState at it, and feeds the onApplied listeners.
//
// onApplied contract: listeners see every applied write revision in order,
// exactly once per process, also across a snapshot install (the revisions
// it skipped are replayed from the restored history; if that history was
// compacted past them, that is logged and listeners must relist, as after
// any compaction). A throwing listener is logged and does not stop others.

import type { MvccStore, RevisionChange, StoreResponse } from "../mvcc/index.ts";
import { EntryType, emptyConfState, type ConfState, type Entry, type Snapshot } from "../raft/index.ts";
import type { WalLogger } from "../wal/index.ts";
import { decodeRequestEntry } from "./entry-data.ts";
import type { LeaseKeeper } from "./leases.ts";
import type { Membership } from "./membership.ts";
import type { LeaderPublisher } from "./options.ts";
import type { PendingRequests } from "./pending.ts";
import type { Capture } from "./snapshots.ts";
import { decodeSnapshotData, encodeSnapshotData } from "./snapshot-data.ts";

export interface ApplierDeps {
  /** The tag owner: entries proposed by this id with this nonce resolve `proposals`. */
  id: number;
  nonce: number;
  mvcc: MvccStore;
  membership: Membership;
  leases: LeaseKeeper;
  proposals: PendingRequests<StoreResponse>;
  publisher?: LeaderPublisher;
  log: WalLogger;
}

export class Applier {
  applied = 0;
  confState: ConfState = emptyConfState();
  private readonly listeners = new Set<(change: RevisionChange) => void>();

  constructor(private readonly d: ApplierDeps) {}

  /** Loads the state of a snapshot read from disk at startup (nobody listens yet). */
  load(snap: Snapshot): void {
    const data = decodeSnapshotData(snap.data);
    this.d.mvcc.restore(data.mvcc);
    this.d.membership.load(data.members, data.removed);
    this.applied = snap.metadata.index;
    this.confState = snap.metadata.confState;
  }

  onApplied(listener: (change: RevisionChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Applies one committed entry (in log order). */
  apply(e: Entry): void {
    if (e.type === EntryType.ConfChange) this.confState = this.d.membership.applyEntry(e) ?? this.confState;
    else this.applyRequest(e);
    this.applied = e.index;
  }

  private applyRequest(e: Entry): void {
    const decoded = decodeRequestEntry(e.data);
    if (!decoded) return; // a new leader's empty entry
    const res = this.d.mvcc.apply(decoded.request);
    if (res.change) {
      this.emit(res.change);
      this.d.publisher?.notify();
    }
    this.d.leases.onApplied(decoded.request, res);
    const { tag } = decoded;
    if (tag.proposer === this.d.id && tag.nonce === this.d.nonce) this.d.proposals.resolve(tag.seq, res);
  }

  /** Replaces the state with a snapshot received from the leader. */
  install(snap: Snapshot): void {
    const data = decodeSnapshotData(snap.data);
    const revisionBefore = this.d.mvcc.currentRevision;
    this.d.mvcc.restore(data.mvcc);
    this.d.membership.restore(data.members, data.removed);
    this.replay(revisionBefore);
    this.applied = snap.metadata.index;
    this.confState = snap.metadata.confState;
    this.d.leases.resync();
    this.d.publisher?.notify();
  }

  /** The state at the applied index, for a snapshot: the MVCC state as a view, encoded later (snapshots.ts). */
  capture(): Capture {
    const members = this.d.membership.members;
    return { confState: this.confState, members: members.list(), removed: members.removed(), mvcc: this.d.mvcc.snapshotView() };
  }

  /** Snapshot data of the state at the applied index. */
  snapshotData(): Uint8Array {
    const members = this.d.membership.members;
    return encodeSnapshotData(members.list(), this.d.mvcc.snapshot(), members.removed());
  }

  private replay(revisionBefore: number): void {
    const mvcc = this.d.mvcc;
    if (this.listeners.size === 0 || mvcc.currentRevision <= revisionBefore) return;
    let changes: RevisionChange[];
    try {
      changes = mvcc.changesSince(revisionBefore + 1);
    } catch (e) {
      this.d.log("warn", "store node: revisions skipped by a snapshot are compacted; applied listeners miss them", { from: revisionBefore + 1, error: String(e) });
      changes = mvcc.changesSince(mvcc.compactRevision);
    }
    for (const ch of changes) if (ch.revision > revisionBefore) this.emit(ch);
  }

  private emit(change: RevisionChange): void {
    for (const l of this.listeners) {
      try {
        l(change);
      } catch (err) {
        this.d.log("warn", "store node: onApplied listener threw", { error: String(err) });
      }
    }
  }
}
