// Storage shapes of the WAL. They are declared here structurally (not imported
// from the Raft core) so that the WAL has no dependency on raft/: a Raft
// `Entry`, `HardState` or `Snapshot` is assignable to these types and back.

import type { LogFn } from "../../../shared/observability/logger.ts";

/** 0: normal entry, 1: configuration change. */
export type EntryType = 0 | 1;

export interface Entry {
  term: number;
  index: number;
  type: EntryType;
  data: Uint8Array;
}

export interface HardState {
  term: number;
  vote: number;
  commit: number;
}

export interface ConfState {
  voters: number[];
  learners: number[];
  votersOutgoing: number[];
  learnersNext: number[];
  autoLeave: boolean;
}

export interface SnapshotMetadata {
  index: number;
  term: number;
  confState: ConfState;
}

export interface Snapshot {
  metadata: SnapshotMetadata;
  data: Uint8Array;
}

export type { LogLevel } from "../../../shared/observability/logger.ts";

/** Structured logger callback (the shared LogFn). Repairs and skipped files are always reported through it. */
export type WalLogger = LogFn;

/** Used when no logger is given: repairs must never be silent. */
export const stderrLogger: WalLogger = (level, msg, fields) => {
  if (level === "debug") return;
  process.stderr.write(`${JSON.stringify({ level, msg, ...fields })}\n`);
};

export const EMPTY_HARD_STATE: Readonly<HardState> = Object.freeze({ term: 0, vote: 0, commit: 0 });
