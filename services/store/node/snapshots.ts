// Periodic snapshots and log compaction.
//
// Every `snapshotThreshold` applied entries the node captures the state
// machine synchronously at its applied index (members + a view of the MVCC
// state, which costs time in keys, not revisions). In the background, the view
// is encoded in slices between turns of the event loop (a full encode of
// 100,000 revisions blocked the loop, and every write, for ~370 ms); then the
// snapshot is recorded in the Raft storage (createSnapshot) and in-memory
// entries older than `snapshotCatchUpEntries` behind it are released
// (compact), so a follower that lags a little still gets entries, not a
// snapshot; the snapshot file is written (atomically), the WAL's snapshot
// marker saved, and WAL segments entirely below the snapshot released. A
// forced snapshot (defragment) also cuts the WAL and releases the segment that
// was current and the older snapshot files when the snapshot covers them. At most one snapshot is in flight; the node waits for it before
// installing a snapshot received from the leader, so WAL markers never go
// backwards.

import { encodeSnapshotSliced, type SnapshotState } from "../mvcc/index.ts";
import type { ConfState } from "../raft/index.ts";
import type { OpenedDisk } from "./disk.ts";
import type { Member, RemovedMember } from "./members.ts";
import type { ResolvedTimers } from "./options.ts";
import { encodeSnapshotDataHeader } from "./snapshot-data.ts";

export interface Capture {
  confState: ConfState;
  members: Member[];
  removed: RemovedMember[];
  /** A view (MvccStore.snapshotView): later writes do not change it. */
  mvcc: SnapshotState;
}

export class SnapshotScheduler {
  private inFlight: Promise<void> | undefined;
  /** Snapshots taken (for tests and metrics). */
  taken = 0;

  constructor(
    private readonly disk: OpenedDisk,
    private readonly timers: Pick<ResolvedTimers, "snapshotThreshold" | "snapshotCatchUpEntries">,
    private snapshotIndex: number,
    private readonly fail: (e: unknown) => void,
  ) {}

  /** Index of the latest snapshot taken or installed. */
  get lastIndex(): number {
    return this.snapshotIndex;
  }

  /** A snapshot received from the leader was installed at `index`. */
  installed(index: number): void {
    this.snapshotIndex = index;
  }

  /** Takes a snapshot when `snapshotThreshold` entries were applied since the last one, or now when `force` (and one is due). */
  maybeSnapshot(applied: number, capture: () => Capture, force = false): void {
    if (this.inFlight) return;
    if (applied <= this.snapshotIndex) {
      // Nothing new to capture; a defragment still drops the log the snapshot covers.
      const index = this.snapshotIndex;
      if (force) {
        this.track(async () => {
          await this.disk.wal.cut();
          await this.disk.wal.releaseBefore(index + 1);
        });
      }
      return;
    }
    if (!force && applied - this.snapshotIndex < this.timers.snapshotThreshold) return;
    const c = capture();
    const storage = this.disk.storage;
    this.track(async () => {
      // Entries up to `applied` stay in the storage meanwhile: only this scheduler
      // compacts it, and a snapshot from the leader is installed after idle().
      const data = await encodeSnapshotSliced(c.mvcc, undefined, encodeSnapshotDataHeader(c.members, c.removed));
      const snap = storage.createSnapshot(applied, c.confState, data);
      this.snapshotIndex = applied;
      this.taken++;
      const compactTo = applied - this.timers.snapshotCatchUpEntries;
      if (compactTo > storage.firstIndex()) storage.compact(compactTo);
      await this.disk.snapshotter.save(snap);
      await this.disk.wal.saveSnapshotMarker(snap.metadata);
      if (force) {
        // Defragment: the data dir keeps only this snapshot and the log after it.
        await this.disk.wal.cut();
        await this.disk.snapshotter.pruneBefore(applied);
        await this.disk.wal.releaseBefore(applied + 1);
      } else await this.disk.wal.releaseBefore(applied);
    });
  }

  /** Runs background disk work as the one in flight; a failure stops the node (`fail`). */
  private track(work: () => Promise<void>): void {
    this.inFlight = work()
      .catch((e: unknown) => this.fail(e))
      .finally(() => {
        this.inFlight = undefined;
      });
  }

  /** Resolves when no snapshot is being written. */
  async idle(): Promise<void> {
    while (this.inFlight) await this.inFlight;
  }
}
