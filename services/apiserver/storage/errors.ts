/**
 * The store client's typed errors (the KvStore layer; the object layer above
 * reports StorageError codes). Every failed store call becomes one of these, from
 * the gRPC code and etcd's message, in one place (fromEtcdError):
 *
 *   StoreError                 any failed store call (base)
 *   ├─ CompactedError          the revision asked for was compacted (OUT_OF_RANGE)
 *   ├─ FutureRevisionError     the revision asked for is not written yet (OUT_OF_RANGE)
 *   ├─ StoreUnavailableError   no leader, unreachable, timed out (UNAVAILABLE, DEADLINE_EXCEEDED): retryable
 *   └─ StoreRejectedError      the store refused the request (bad argument, too large, not found, ...)
 */
import { EtcdCallError, GrpcStatus, isCompacted, isFutureRevision } from "../../../shared/etcd/errors.ts";

export class StoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

export class CompactedError extends StoreError {
  constructor(
    readonly requested: number,
    readonly compactRevision: number,
  ) {
    super(`required revision ${requested} has been compacted (compact revision ${compactRevision})`);
  }
}

export class FutureRevisionError extends StoreError {
  constructor(
    readonly requested: number,
    readonly current: number,
  ) {
    super(`required revision ${requested} is a future revision (current ${current})`);
  }
}

/** The store could not answer now; another attempt (or member) may succeed. */
export class StoreUnavailableError extends StoreError {
  constructor(
    readonly details: string,
    readonly endpoint: string,
  ) {
    super(`store unavailable: ${details}`);
  }
}

/** The store answered with an error that a retry would not change. */
export class StoreRejectedError extends StoreError {
  constructor(
    readonly code: number,
    readonly details: string,
  ) {
    super(`store: ${details}`);
  }
}

/** What the revision numbers of a compacted or future revision error are, looked up on demand. */
export interface RevisionLookup {
  requested: number;
  compactRevision(): Promise<number>;
  currentRevision(): Promise<number>;
}

/** Maps a failed call to its typed error; non-call errors pass through unchanged. */
export async function fromEtcdError(err: unknown, lookup: RevisionLookup): Promise<unknown> {
  if (!(err instanceof EtcdCallError)) return err;
  if (isCompacted(err)) return new CompactedError(lookup.requested, await lookup.compactRevision().catch(() => lookup.requested));
  if (isFutureRevision(err)) return new FutureRevisionError(lookup.requested, await lookup.currentRevision().catch(() => 0));
  if (err.code === GrpcStatus.UNAVAILABLE || err.code === GrpcStatus.DEADLINE_EXCEEDED) return new StoreUnavailableError(err.details, err.endpoint);
  return new StoreRejectedError(err.code, err.details);
}
