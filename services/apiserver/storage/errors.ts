/**
 * The storage layer's typed errors, in two families, and the one mapping between them.
 *
 * Store client (KvStore) errors: every failed store call becomes one of these, from
 * the gRPC code and etcd's message, in one place (fromEtcdError):
 *
 *   StoreError                 any failed store call (base)
 *   ├─ CompactedError          the revision asked for was compacted (OUT_OF_RANGE)
 *   ├─ FutureRevisionError     the revision asked for is not written yet (OUT_OF_RANGE)
 *   ├─ StoreUnavailableError   no leader, unreachable, timed out (UNAVAILABLE, DEADLINE_EXCEEDED,
 *   │                          "request timed out"): retryable; `timedOut` when the store did not answer in time
 *   ├─ StoreRequestTooLargeError the store refused a request over its size limit
 *   └─ StoreRejectedError      the store refused the request (bad argument, ...)
 *
 * Object storage (ObjectStorage) errors, as the platform's storage.StorageError codes;
 * the registry turns each into a Status naming the resource:
 *
 *   StorageError                   base; `code` says which (constructible with any code)
 *   ├─ KeyNotFoundError            NotFound
 *   ├─ KeyExistsError              KeyExists
 *   ├─ ResourceVersionConflictError Conflict (a resourceVersion precondition, or too many retries)
 *   ├─ UidPreconditionError        PreconditionFailed (a uid precondition)
 *   ├─ InvalidObjError             InvalidObj (a resourceVersion on create, a malformed continue token)
 *   ├─ ExpiredError                Gone: a compacted revision (`compacted`) or an expired continue token
 *   ├─ TooLargeResourceVersionError TooLargeResourceVersion: a revision the store or cache has not reached
 *   ├─ StorageTimeoutError         Timeout: the store did not answer in time
 *   ├─ StorageUnreachableError     Unreachable: no store member could be reached (or none had a leader)
 *   └─ RequestTooLargeError        TooLarge: the encoded object is over the store's request limit
 *
 * `toStorageError(err, operation, key)` maps a store client error onto this family
 * (other errors pass unchanged); every ObjectStorage implementation applies it to its
 * store calls, so no store client error leaves the storage layer.
 */
import { EtcdCallError, GrpcStatus, isCompacted, isFutureRevision } from "../../../shared/etcd/errors.ts";

// ---------------------------------------------------------------- store client errors

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
    /** True when a member was reached but did not answer in time (deadline, "request timed out"). */
    readonly timedOut = false,
  ) {
    super(`store unavailable: ${details}`);
  }
}

/** The store refused a request over its size limit ("request is too large", or over gRPC's message limit). */
export class StoreRequestTooLargeError extends StoreError {
  constructor(readonly details: string) {
    super(`store: ${details}`);
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

const TIMED_OUT = /request timed out|deadline exceeded|timed out/i;
const TOO_LARGE = /request is too large/;

/** Maps a failed call to its typed error; non-call errors pass through unchanged. */
export async function fromEtcdError(err: unknown, lookup: RevisionLookup): Promise<unknown> {
  if (!(err instanceof EtcdCallError)) return err;
  if (isCompacted(err)) return new CompactedError(lookup.requested, await lookup.compactRevision().catch(() => lookup.requested));
  if (isFutureRevision(err)) return new FutureRevisionError(lookup.requested, await lookup.currentRevision().catch(() => 0));
  if (err.code === GrpcStatus.DEADLINE_EXCEEDED) return new StoreUnavailableError(err.details, err.endpoint, true);
  if (err.code === GrpcStatus.UNAVAILABLE) return new StoreUnavailableError(err.details, err.endpoint, TIMED_OUT.test(err.details));
  if (err.code === GrpcStatus.RESOURCE_EXHAUSTED || TOO_LARGE.test(err.details)) return new StoreRequestTooLargeError(err.details);
  return new StoreRejectedError(err.code, err.details);
}

// ---------------------------------------------------------------- object storage errors

export type StorageErrorCode =
  | "NotFound"
  | "KeyExists"
  | "Conflict"
  | "InvalidObj"
  | "PreconditionFailed"
  | "Gone"
  | "TooLargeResourceVersion"
  | "Timeout"
  | "Unreachable"
  | "TooLarge";

/** The ObjectStorage operation that failed (a ServerTimeout Status names it). */
export type StorageOperation = "get" | "list" | "create" | "update" | "delete" | "watch";

/** A storage-level failure; the registry turns it into a Status with the kind's names. */
export class StorageError extends Error {
  constructor(
    readonly code: StorageErrorCode,
    readonly key: string,
    message: string,
    readonly currentRevision?: number,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class KeyNotFoundError extends StorageError {
  constructor(key: string, currentRevision?: number) {
    super("NotFound", key, `key ${key} not found`, currentRevision);
  }
}

export class KeyExistsError extends StorageError {
  constructor(key: string, currentRevision?: number) {
    super("KeyExists", key, `key ${key} already exists`, currentRevision);
  }
}

export class ResourceVersionConflictError extends StorageError {
  constructor(key: string, message: string) {
    super("Conflict", key, message);
  }
}

export class UidPreconditionError extends StorageError {
  constructor(key: string, wanted: string, actual: string) {
    super("PreconditionFailed", key, `Precondition failed: UID in precondition: ${wanted}, UID in object meta: ${actual}`);
  }
}

export class InvalidObjError extends StorageError {
  constructor(key: string, message: string) {
    super("InvalidObj", key, message);
  }
}

/**
 * A read or watch from history that is no longer there: a compacted revision
 * (`compacted` set: the requested and the oldest available revision) or an expired
 * continue token (`compacted` undefined).
 */
export class ExpiredError extends StorageError {
  constructor(
    key: string,
    message: string,
    readonly compacted?: { requested: number; oldest: number },
  ) {
    super("Gone", key, message, compacted?.oldest);
  }

  static compactedRevision(key: string, requested: number, oldest: number): ExpiredError {
    return new ExpiredError(key, `too old resource version: ${requested} (${oldest})`, { requested, oldest });
  }

  static continueExpired(key: string): ExpiredError {
    return new ExpiredError(key, "continue token expired");
  }
}

export class TooLargeResourceVersionError extends StorageError {
  constructor(
    key: string,
    readonly requested: number,
    readonly current: number,
  ) {
    super("TooLargeResourceVersion", key, `Too large resource version: ${requested}, current: ${current}`, current);
  }
}

export class StorageTimeoutError extends StorageError {
  constructor(
    key: string,
    readonly operation: StorageOperation,
    details: string,
  ) {
    super("Timeout", key, `the store did not answer the ${operation} in time: ${details}`);
  }
}

export class StorageUnreachableError extends StorageError {
  constructor(
    key: string,
    readonly operation: StorageOperation,
    details: string,
  ) {
    super("Unreachable", key, `the store could not be reached for the ${operation}: ${details}`);
  }
}

export class RequestTooLargeError extends StorageError {
  constructor(key: string, message: string) {
    super("TooLarge", key, message);
  }
}

/** The StorageError for a store client error met during `operation` on `key`; anything else unchanged. */
export function toStorageError(err: unknown, operation: StorageOperation, key: string): unknown {
  if (!(err instanceof StoreError)) return err;
  if (err instanceof StoreUnavailableError) {
    return err.timedOut ? new StorageTimeoutError(key, operation, err.details) : new StorageUnreachableError(key, operation, err.details);
  }
  if (err instanceof CompactedError) return ExpiredError.compactedRevision(key, err.requested, err.compactRevision);
  if (err instanceof FutureRevisionError) return new TooLargeResourceVersionError(key, err.requested, err.current);
  if (err instanceof StoreRequestTooLargeError) return new RequestTooLargeError(key, `Request entity too large: ${err.details}`);
  return err;
}

/** Runs one store-backed step of `operation`, with its store client errors mapped (toStorageError). */
export async function storageStep<T>(operation: StorageOperation, key: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    throw toStorageError(err, operation, key);
  }
}
