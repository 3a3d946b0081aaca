// Typed errors of the Raft core. Callers match on `code` (or instanceof).

export type RaftErrorCode =
  | "ErrProposalDropped"
  | "ErrCompacted"
  | "ErrUnavailable"
  | "ErrSnapOutOfDate"
  | "ErrSnapshotTemporarilyUnavailable"
  | "ErrStepLocalMsg"
  | "ErrInvalidConfChange"
  | "ErrReadyNotAdvanced";

export class RaftError extends Error {
  readonly code: RaftErrorCode;
  constructor(code: RaftErrorCode, message: string) {
    super(`${code}: ${message}`);
    this.name = "RaftError";
    this.code = code;
  }
}

/** Why a proposal (or a read request) was not accepted. */
export type DropReason =
  | "no-leader"
  | "forwarding-disabled"
  | "transfer-in-progress"
  | "not-member"
  | "uncommitted-size-exceeded";

/**
 * The proposal was not appended and will never commit; the caller may retry
 * (typically after a leader is known, or on the leader).
 */
export class ProposalDroppedError extends RaftError {
  readonly reason: DropReason;
  constructor(reason: DropReason, detail?: string) {
    super("ErrProposalDropped", detail ?? `raft proposal dropped: ${reason}`);
    this.name = "ProposalDroppedError";
    this.reason = reason;
  }
}

/** The requested index precedes the first available index (compacted into a snapshot). */
export const errCompacted = (): RaftError => new RaftError("ErrCompacted", "requested index is unavailable due to compaction");
/** The requested index is past the last index. */
export const errUnavailable = (): RaftError => new RaftError("ErrUnavailable", "requested entry at index is unavailable");
export const errSnapOutOfDate = (): RaftError => new RaftError("ErrSnapOutOfDate", "requested index is older than the existing snapshot");
export const errSnapshotTemporarilyUnavailable = (): RaftError =>
  new RaftError("ErrSnapshotTemporarilyUnavailable", "snapshot is temporarily unavailable");

export function isRaftError(e: unknown, code: RaftErrorCode): e is RaftError {
  return e instanceof RaftError && e.code === code;
}
