/**
 * The storage contract the generic registry uses, as the platform's storage.Interface:
 * implemented directly on the store (store-storage.ts) and through the watch cache
 * (cached-storage.ts). One conformance suite (testing/conformance.ts) runs against both.
 * Failures are the StorageError family of errors.ts, re-exported here.
 */
import type { JsonObject } from "./object.ts";

export {
  ExpiredError,
  InvalidObjError,
  KeyExistsError,
  KeyNotFoundError,
  RequestTooLargeError,
  ResourceVersionConflictError,
  StorageError,
  StorageTimeoutError,
  StorageUnreachableError,
  TooLargeResourceVersionError,
  UidPreconditionError,
  type StorageErrorCode,
  type StorageOperation,
} from "./errors.ts";

export type ResourceVersionMatch = "" | "Exact" | "NotOlderThan";

export interface GetOptions {
  /** "" (most recent), "0" (any) or a revision (not older than). */
  resourceVersion?: string;
}

/** Decides whether an object is part of a list or watch (selectors, namespace). */
export type Predicate = (obj: JsonObject) => boolean;

export interface ListOptions {
  resourceVersion?: string;
  resourceVersionMatch?: ResourceVersionMatch;
  limit?: number;
  continueToken?: string;
  predicate?: Predicate;
  /** True when predicate filters by label or field selector (remainingItemCount is then omitted). */
  hasSelector?: boolean;
}

export interface ListResult {
  items: JsonObject[];
  resourceVersion: string;
  continueToken?: string;
  remainingItemCount?: number;
}

export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

/**
 * Computes the new object from the current one (undefined when absent).
 * Returning `undefined` means "no change": nothing is written.
 */
export type TryUpdate = (current: JsonObject | undefined) => Promise<JsonObject | undefined> | JsonObject | undefined;

export interface UpdateOptions {
  preconditions?: Preconditions;
  /** Create the object when absent (tryUpdate receives undefined). */
  ignoreNotFound?: boolean;
  dryRun?: boolean;
  /**
   * The caller's copy of the current object (the platform's cached existing object), used
   * for the first attempt instead of a store read. A stale copy is never written over:
   * the txn's compare fails and the attempt is re-run on the store's state, as is one
   * whose checks failed or that would change nothing. Ignored for dry runs.
   */
  suggestion?: Readonly<JsonObject>;
  /** Attach the written object to a lease of this many seconds (objects that expire: Events). */
  ttlSeconds?: number;
}

export interface DeleteOptions {
  preconditions?: Preconditions;
  /** Last check on the current object before the delete txn (re-run on conflict). */
  validateDeletion?: (current: JsonObject) => Promise<void> | void;
  dryRun?: boolean;
  /**
   * The caller's copy of the current object (the platform's cached existing object), used
   * for the first attempt instead of a store read. A stale copy is never written over:
   * the txn's compare fails and the attempt is re-run on the store's state, as is one
   * whose checks failed or that would change nothing. Ignored for dry runs.
   */
  suggestion?: Readonly<JsonObject>;
}

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

export interface WatchEvent {
  type: WatchEventType;
  object: JsonObject;
  /** Revision of the event (bookmarks: the revision all earlier events were sent for). */
  revision: number;
}

export interface WatchOptions {
  resourceVersion?: string;
  resourceVersionMatch?: ResourceVersionMatch;
  sendInitialEvents?: boolean;
  allowWatchBookmarks?: boolean;
  predicate?: Predicate;
}

/** A running watch: an async stream of events, ended by `stop()` or by the server. */
export interface Watcher {
  next(): Promise<WatchEvent | undefined>;
  stop(): void;
  /** Reason the server ended the stream (slow consumer, cache reset), if any. */
  readonly closedReason?: string;
}

export interface ObjectStorage {
  create(key: string, obj: JsonObject, options?: { dryRun?: boolean; ttlSeconds?: number }): Promise<JsonObject>;
  get(key: string, options?: GetOptions): Promise<JsonObject>;
  list(prefix: string, options?: ListOptions): Promise<ListResult>;
  guaranteedUpdate(key: string, tryUpdate: TryUpdate, options?: UpdateOptions): Promise<JsonObject>;
  delete(key: string, options?: DeleteOptions): Promise<JsonObject>;
  watch(prefix: string, options?: WatchOptions): Promise<Watcher>;
  /** Number of objects under a prefix now (the platform's Count), read from the store. */
  count(prefix: string): Promise<number>;
  /** Current store revision (quorum). */
  currentRevision(): Promise<number>;
  /**
   * The object as this replica's watch cache holds it now, without a copy and possibly
   * stale (absent: not cached, corrupt, or no cache): a guess for choosing a write's path,
   * which the write then checks against the store. Callers must not mutate it.
   */
  cachedGuess?(key: string): Readonly<JsonObject> | undefined;
  /**
   * Removes a key whatever it holds, without reading it (AllowUnsafeMalformedObjectDeletion;
   * absent when the gate is off). Returns the name metadata and the deletion's revision.
   */
  deleteUnreadable?(key: string): Promise<JsonObject>;
}
