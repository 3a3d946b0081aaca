// Opening a node's data directory and rebuilding its Raft storage.
//
// Layout: <dataDir>/wal (segments), <dataDir>/snap (snapshot files).
//
// Restart: the newest valid snapshot is installed into MemoryStorage, the WAL's
// entries after its snapshot marker are appended (entries the snapshot
// already covers are skipped), the hard state is set, and `applied` is the
// snapshot index, so the first Ready re-applies every committed entry above
// it. A snapshot file is written before its WAL marker, so the snapshot is
// never older than the marker; if it is (a damaged newest file), the log has
// a gap and opening fails.
//
// Bootstrap of a new cluster: every initial member writes the same entries
// 1..n, one AddNode conf change per member (in id order, term 1, its member
// record in the context), committed at n, like etcd. Applying them builds
// the configuration and the member list from the log alone, so restarts and
// joining nodes need no out-of-band membership.

import { join } from "node:path";
import { ConfChangeTransition, ConfChangeType, EntryType, MemoryStorage, encodeConfChange, isEmptyHardState, type Entry, type HardState, type Snapshot } from "../raft/index.ts";
import { Snapshotter, Wal, type WalLogger } from "../wal/index.ts";
import { encodeConfContext } from "./entry-data.ts";
import type { Member } from "./members.ts";

export interface OpenedDisk {
  wal: Wal;
  snapshotter: Snapshotter;
  storage: MemoryStorage;
  /** The snapshot installed into storage, if any. */
  snapshot?: Snapshot;
  /** Whether the directory held no state (a new node). */
  fresh: boolean;
}

/**
 * Zeros the WAL keeps written ahead of its end (WalOptions.preallocateBytes):
 * a put's fdatasync then overwrites allocated blocks instead of growing the
 * file, and skips the filesystem journal commit an append pays; one batch in
 * a mebibyte of log pays it for the next.
 */
export const WAL_PREALLOCATE_BYTES = 1024 * 1024;

export async function openDisk(dataDir: string, log: WalLogger): Promise<OpenedDisk> {
  const snapshotter = new Snapshotter(join(dataDir, "snap"), { log });
  const snapshot = await snapshotter.load();
  const { wal, state } = await Wal.open(join(dataDir, "wal"), { log, preallocateBytes: WAL_PREALLOCATE_BYTES });
  try {
    const storage = new MemoryStorage();
    const snapIndex = snapshot?.metadata.index ?? 0;
    if (state.snapshotMeta && state.snapshotMeta.index > snapIndex) {
      throw new Error(`store node: the WAL marks a snapshot at ${state.snapshotMeta.index} but the newest valid snapshot file is at ${snapIndex}`);
    }
    if (snapshot) storage.applySnapshot(snapshot);
    const entries = state.entries as Entry[];
    if (entries.length > 0 && entries[0].index > storage.lastIndex() + 1) {
      throw new Error(`store node: the WAL starts at ${entries[0].index}, after the snapshot at ${snapIndex}`);
    }
    storage.append(entries);
    const hs = state.hardState;
    if (!isEmptyHardState(hs)) {
      // The commit index of a hard state is written lazily; the snapshot proves commitment up to its index.
      storage.setHardState({ term: hs.term, vote: hs.vote, commit: Math.min(Math.max(hs.commit, snapIndex), storage.lastIndex()) });
    }
    const fresh = !snapshot && entries.length === 0 && isEmptyHardState(hs);
    return { wal, snapshotter, storage, snapshot, fresh };
  } catch (e) {
    await wal.close();
    throw e;
  }
}

/** Writes the bootstrap entries of a new cluster to the WAL and the storage. */
export async function bootstrap(disk: OpenedDisk, members: readonly Member[]): Promise<void> {
  const sorted = [...members].sort((a, b) => a.id - b.id);
  const entries: Entry[] = sorted.map((m, i) => ({
    term: 1,
    index: i + 1,
    type: EntryType.ConfChange,
    data: encodeConfChange({
      transition: ConfChangeTransition.Auto,
      changes: [{ type: m.isLearner ? ConfChangeType.AddLearnerNode : ConfChangeType.AddNode, nodeId: m.id }],
      context: encodeConfContext({ proposer: 0, nonce: 0, seq: 0 }, m),
    }),
  }));
  const hs: HardState = { term: 1, vote: 0, commit: entries.length };
  await disk.wal.save(hs, entries);
  disk.storage.append(entries);
  disk.storage.setHardState(hs);
}
