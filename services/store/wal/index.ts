export { Wal, segmentName, DEFAULT_SEGMENT_BYTES, type WalOptions, type WalState, type WalStats } from "./wal.ts";
export { Snapshotter, snapshotName, type SnapshotterOptions, type SnapshotFile } from "./snapshotter.ts";
export { WalCorruptError } from "./errors.ts";
export { crc32c } from "./crc32c.ts";
export type {
  ConfState,
  Entry,
  EntryType,
  HardState,
  LogLevel,
  Snapshot,
  SnapshotMetadata,
  WalLogger,
} from "./types.ts";
