/**
 * ObjectStorage directly on the store (no cache): every read goes to the store,
 * writes are single txns comparing mod_revision (0 for create). Watches come from
 * the revision feed, which fills gaps from the store's MVCC history. Every failure
 * is a StorageError (errors.ts): store client errors are mapped per operation.
 */
import { storageEncodingsMayBeEqual } from "./encoding-may-equal.ts";
import { decodeContinue, encodeContinue, isExpired, InvalidContinueError } from "./continue-token.ts";
import { EventQueue } from "./event-queue.ts";
import { storageStep, type StorageOperation } from "./errors.ts";
import {
  ExpiredError,
  InvalidObjError,
  KeyExistsError,
  KeyNotFoundError,
  RequestTooLargeError,
  ResourceVersionConflictError,
  TooLargeResourceVersionError,
  UidPreconditionError,
  type DeleteOptions,
  type GetOptions,
  type ListOptions,
  type ListResult,
  type ObjectStorage,
  type Preconditions,
  type TryUpdate,
  type UpdateOptions,
  type WatchOptions,
  type Watcher,
} from "./interface.ts";
import { CompactedError, prefixEnd, type Compare, type KeyValue, type KvStore, type RevisionFeed, type TxnOp, type TxnResult } from "./kv.ts";
import { corruptionOf, corruptListError, decodeStored, decodeStoredOrThrow, type CorruptObjectError } from "./corrupt-object.ts";
import { LeaseManager, type LeaseManagerConfig } from "./lease-manager.ts";
import { dropResourceVersion, encodeForStorage, encodeSharedForStorage, meta, type JsonObject } from "./object.ts";
import { parseResourceVersion } from "./resource-version.ts";
import { keyEventsToWatchEvents, type WatchFilter } from "./watch-filter.ts";
import { writeTxn, type WriteIntent } from "./write-outcome.ts";
import { cloneValue } from "../../../shared/schema/values.ts";

export interface StoreStorageOptions {
  now?: () => number;
  /** Retries of guaranteedUpdate/delete on concurrent modification. */
  maxRetries?: number;
  /** Annotation marking the bookmark after the initial events (from the profile). */
  initialEventsAnnotation?: string;
  /** Largest encoded object the store accepts (default 1.5 MiB, the store's request limit). */
  maxObjectBytes?: number;
  /** How long a continue token stays valid (default 5 minutes); older tokens are 410 Expired. */
  continueTtlMs?: number;
  /** A value read with an older encryption key: an update that changes nothing still rewrites it. */
  isStale?: (kv: KeyValue) => boolean;
  /** Reuse of the leases of expiring objects (`--lease-reuse-duration-seconds`; lease-manager.ts). */
  leases?: Partial<LeaseManagerConfig>;
}

export const DEFAULT_MAX_OBJECT_BYTES = 1.5 * 1024 * 1024;

export class StoreStorage implements ObjectStorage {
  private readonly now: () => number;
  private readonly maxRetries: number;
  private readonly initialEventsAnnotation: string | undefined;
  private readonly maxObjectBytes: number;
  private readonly continueTtlMs: number | undefined;
  private readonly isStale: (kv: KeyValue) => boolean;
  private readonly leases: LeaseManager;

  private encode(key: string, obj: JsonObject): Uint8Array {
    const value = encodeForStorage(obj);
    if (value.byteLength > this.maxObjectBytes) {
      throw new RequestTooLargeError(key, `Request entity too large: limit is ${this.maxObjectBytes}`);
    }
    return value;
  }

  constructor(
    private readonly kv: KvStore,
    private readonly feed: RevisionFeed,
    options: StoreStorageOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.maxRetries = options.maxRetries ?? 100;
    this.initialEventsAnnotation = options.initialEventsAnnotation;
    this.maxObjectBytes = options.maxObjectBytes ?? DEFAULT_MAX_OBJECT_BYTES;
    this.continueTtlMs = options.continueTtlMs;
    this.isStale = options.isStale ?? (() => false);
    this.leases = new LeaseManager((ttl) => this.kv.leaseGrant(ttl), this.now, options.leases);
  }

  /** The store's current revision (quorum); a failure is reported as one of `operation` (default get). */
  currentRevision(operation: StorageOperation = "get"): Promise<number> {
    return storageStep(operation, "", () => this.kv.currentRevision());
  }

  create(key: string, obj: JsonObject, options: { dryRun?: boolean; ttlSeconds?: number } = {}): Promise<JsonObject> {
    return storageStep("create", key, () => this.createOnce(key, obj, options));
  }

  private async createOnce(key: string, obj: JsonObject, options: { dryRun?: boolean; ttlSeconds?: number }): Promise<JsonObject> {
    if (meta(obj).resourceVersion) throw new InvalidObjError(key, "resourceVersion should not be set on objects to be created");
    const value = this.encode(key, obj);
    if (options.dryRun) {
      const existing = await this.kv.range(key);
      if (existing.kvs.length > 0) throw new KeyExistsError(key, existing.revision);
      return cloneValue(obj);
    }
    const lease = options.ttlSeconds ? await this.leases.lease(options.ttlSeconds) : undefined;
    const res = await writeTxn(this.kv, { kind: "create", key, value }, [{ key, target: "mod", result: "=", value: 0 }], [{ type: "put", key, value, lease }], []);
    if (!res.succeeded) throw new KeyExistsError(key, res.revision);
    const out = cloneValue(obj);
    meta(out).resourceVersion = String(res.revision);
    return out;
  }

  get(key: string, options: GetOptions = {}): Promise<JsonObject> {
    return storageStep("get", key, () => this.getOnce(key, options));
  }

  private async getOnce(key: string, options: GetOptions): Promise<JsonObject> {
    const rv = parseResourceVersion(options.resourceVersion);
    const res = await this.kv.range(key, { serializable: rv === 0 });
    if (rv !== undefined && rv > 0 && res.revision < rv) {
      throw new TooLargeResourceVersionError(key, rv, res.revision);
    }
    const kv = res.kvs[0];
    if (!kv) throw new KeyNotFoundError(key, res.revision);
    return decodeStoredOrThrow(kv.key, kv.value, kv.modRevision);
  }

  list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    return storageStep("list", prefix, () => this.listOnce(prefix, options));
  }

  private async listOnce(prefix: string, options: ListOptions): Promise<ListResult> {
    const end = prefixEnd(prefix);
    let start = prefix;
    let revision: number | undefined;
    if (options.continueToken) {
      let token;
      try {
        token = decodeContinue(options.continueToken);
      } catch (err) {
        if (err instanceof InvalidContinueError) throw new InvalidObjError(prefix, err.message);
        throw err;
      }
      if (isExpired(token, this.now(), this.continueTtlMs)) throw ExpiredError.continueExpired(prefix);
      if (!token.startKey.startsWith(prefix)) throw new InvalidObjError(prefix, "continue key is not valid: does not belong to this collection");
      start = token.startKey;
      revision = token.revision;
    } else {
      const rv = parseResourceVersion(options.resourceVersion);
      const exact = options.resourceVersionMatch === "Exact" || (options.resourceVersionMatch !== "NotOlderThan" && !!options.limit && rv !== undefined && rv > 0);
      if (exact && rv) revision = rv;
      else if (rv && rv > 0) {
        const current = await this.kv.currentRevision();
        if (current < rv) throw new TooLargeResourceVersionError(prefix, rv, current);
      }
    }
    return this.readChunk(prefix, start, end, revision, options);
  }

  /** Reads from `start` until `limit` matching objects are found or the range ends. */
  private async readChunk(prefix: string, start: string, end: string, revision: number | undefined, options: ListOptions): Promise<ListResult> {
    const limit = options.limit && options.limit > 0 ? options.limit : 0;
    const predicate = options.predicate ?? (() => true);
    const items: JsonObject[] = [];
    let readRevision = revision;
    let cursor = start;
    let lastKey: string | undefined;
    let more = false;
    const corrupt: CorruptObjectError[] = [];
    for (;;) {
      const batch = limit ? Math.max(limit - items.length, Math.min(limit * 2, 1000)) : 0;
      // A compacted revision becomes Gone (410), one the store has not reached TooLargeResourceVersion
      // (504 with Retry-After, as the platform answers): toStorageError in list().
      const res = await this.kv.range(cursor, { end, limit: batch, revision: readRevision });
      readRevision ??= res.revision;
      let stoppedAt = -1;
      for (let i = 0; i < res.kvs.length; i++) {
        const kv: KeyValue = res.kvs[i];
        const obj = decodeStored(kv.key, kv.value, kv.modRevision);
        lastKey = kv.key;
        const corruption = corruptionOf(obj);
        if (corruption) {
          corrupt.push(corruption); // the list fails naming every corrupt key it met
          continue;
        }
        if (predicate(obj)) {
          items.push(obj);
          if (limit && items.length >= limit) {
            stoppedAt = i;
            break;
          }
        }
      }
      if (stoppedAt >= 0) {
        more = stoppedAt < res.kvs.length - 1 || res.more;
        break;
      }
      if (!res.more || res.kvs.length === 0) break;
      cursor = lastKey + "\0";
    }
    if (corrupt.length > 0) throw corruptListError(corrupt);
    const result: ListResult = { items, resourceVersion: String(readRevision) };
    if (more && lastKey !== undefined) {
      const next = lastKey + "\0";
      result.continueToken = encodeContinue({ revision: readRevision ?? 0, startKey: next, issuedAtMs: this.now() });
      if (!options.hasSelector) {
        const rest = await this.kv.range(next, { end, countOnly: true, revision: readRevision });
        result.remainingItemCount = rest.count;
      }
    }
    return result;
  }

  guaranteedUpdate(key: string, tryUpdate: TryUpdate, options: UpdateOptions = {}): Promise<JsonObject> {
    return storageStep("update", key, () => this.updateWithRetries(key, tryUpdate, options));
  }

  private async updateWithRetries(key: string, tryUpdate: TryUpdate, options: UpdateOptions): Promise<JsonObject> {
    // The suggestion is only read here (tryUpdate gets a copy): it is not copied first.
    let latest: KeyRead | undefined = options.dryRun ? undefined : suggestedRead(key, options.suggestion, false);
    for (let attempt = 0; attempt < this.maxRetries; attempt++) {
      const res = latest ?? (await this.readKey(key));
      latest = undefined;
      const kv = res.kv;
      const current: Readonly<JsonObject> | undefined = res.object ?? (kv ? decodeStoredOrThrow(kv.key, kv.value, kv.modRevision) : undefined);
      let updated: JsonObject | undefined;
      try {
        if (!current && !options.ignoreNotFound) throw new KeyNotFoundError(key, res.revision);
        if (current) checkPreconditions(key, current, options.preconditions);
        updated = await tryUpdate(current ? cloneValue(current) : undefined);
      } catch (err) {
        if (res.suggested) continue; // judged on a copy that may be stale: again on the store's state
        throw err;
      }
      if (updated === undefined) {
        if (res.suggested) continue;
        if (!current) throw new KeyNotFoundError(key, res.revision);
        return current as JsonObject; // read from the store: this call's own object
      }
      dropResourceVersion(updated);
      const value = this.encode(key, updated);
      if (current && kv && !res.suggested && bytesEqual(kv.value, value) && !this.isStale(kv)) return current as JsonObject; // no-op: no new revision
      // A no-op is only known on the store's state: one judged on a suggestion is judged again there.
      if (res.suggested && current && storageEncodingsMayBeEqual(current, updated) && bytesEqual(encodeSharedForStorage(current), value)) continue;
      if (options.dryRun) {
        const out = cloneValue(updated);
        if (current) meta(out).resourceVersion = meta(current).resourceVersion;
        return out;
      }
      const modRevision = kv ? kv.modRevision : 0;
      const intent: WriteIntent = modRevision === 0 ? { kind: "create", key, value } : { kind: "update", key, value, baseRevision: modRevision };
      // A write with a TTL starts the object's time again on a (reused) lease; others keep the key's lease.
      const lease = options.ttlSeconds ? await this.leases.lease(options.ttlSeconds) : kv?.lease || undefined;
      const txn = await writeTxn(this.kv, intent, writeCompares(key, modRevision, res, !!options.ttlSeconds), [{ type: "put", key, value, lease }], [READ(key)]);
      if (txn.succeeded) {
        meta(updated).resourceVersion = String(txn.revision);
        return updated;
      }
      latest = conflictRead(txn);
    }
    throw new ResourceVersionConflictError(key, `too many conflicts updating ${key}`);
  }

  delete(key: string, options: DeleteOptions = {}): Promise<JsonObject> {
    return storageStep("delete", key, () => this.deleteWithRetries(key, options));
  }

  private async deleteWithRetries(key: string, options: DeleteOptions): Promise<JsonObject> {
    let latest: KeyRead | undefined = options.dryRun ? undefined : suggestedRead(key, options.suggestion, true);
    for (let attempt = 0; attempt < this.maxRetries; attempt++) {
      const res = latest ?? (await this.readKey(key));
      latest = undefined;
      const kv = res.kv;
      if (!kv) throw new KeyNotFoundError(key, res.revision);
      const current = res.object ?? decodeStoredOrThrow(kv.key, kv.value, kv.modRevision);
      try {
        checkPreconditions(key, current, options.preconditions);
        await options.validateDeletion?.(current);
      } catch (err) {
        if (res.suggested) continue; // judged on a copy that may be stale: again on the store's state
        throw err;
      }
      if (options.dryRun) return current;
      const txn = await writeTxn(this.kv, { kind: "delete", key, baseRevision: kv.modRevision }, writeCompares(key, kv.modRevision, res), [{ type: "delete", key }], [READ(key)]);
      if (txn.succeeded) {
        meta(current).resourceVersion = String(txn.revision);
        return current;
      }
      latest = conflictRead(txn);
    }
    throw new ResourceVersionConflictError(key, `too many conflicts deleting ${key}`);
  }

  /** The key's current value (linearizable) and the revision it was read at. */
  private async readKey(key: string): Promise<KeyRead> {
    const res = await this.kv.range(key);
    return { kv: res.kvs[0], revision: res.revision };
  }

  count(prefix: string): Promise<number> {
    return storageStep("list", prefix, async () => (await this.kv.range(prefix, { end: prefixEnd(prefix), countOnly: true })).count);
  }

  watch(prefix: string, options: WatchOptions = {}): Promise<Watcher> {
    return storageStep("watch", prefix, () => this.startWatch(prefix, options));
  }

  private async startWatch(prefix: string, options: WatchOptions): Promise<Watcher> {
    const rv = parseResourceVersion(options.resourceVersion);
    const filter: WatchFilter = { prefix, predicate: options.predicate };
    let unsubscribe = () => {};
    const queue = new EventQueue(10_000, () => unsubscribe());
    let from: number;
    if (rv === undefined || rv === 0 || options.sendInitialEvents) {
      const initial = await this.list(prefix, { resourceVersion: rv === undefined ? "" : String(rv), predicate: options.predicate });
      from = Number(initial.resourceVersion);
      const wantsInitial = options.sendInitialEvents ?? (rv === undefined || rv === 0);
      if (wantsInitial) {
        for (const obj of initial.items) {
          queue.push({ type: "ADDED", object: obj, revision: Number(meta(obj).resourceVersion) });
        }
        if (options.sendInitialEvents && options.allowWatchBookmarks) {
          queue.push({ type: "BOOKMARK", object: bookmarkObject(from, this.initialEventsAnnotation), revision: from });
        }
      }
    } else {
      from = rv;
    }
    unsubscribe = this.feed.subscribe(
      from,
      (change) => {
        for (const ev of keyEventsToWatchEvents(change, filter)) if (!queue.push(ev)) return;
      },
      (err) => {
        const code = err instanceof CompactedError ? 410 : 500;
        queue.push({ type: "ERROR", object: errorObject(code, err.message), revision: 0 });
        queue.close("feed error");
      },
    );
    return queue;
  }
}

/** One key as read: its value (absent: no such key) at a store revision, or as a caller suggested it. */
interface KeyRead {
  kv: KeyValue | undefined;
  revision: number;
  /** From the caller's copy: its lease is unknown and it may be stale. */
  suggested?: boolean;
  /** The object itself, when the read already has it decoded (a suggestion, `kv.value` then empty: a private copy, or the caller's own object when the read only reads it). */
  object?: JsonObject;
}

const NO_BYTES = new Uint8Array(0);

/**
 * The caller's copy of `key` as a read (undefined when there is none or it has no
 * resourceVersion). The copy is the read's object: it is neither encoded nor decoded
 * again (its bytes are made only when a write's no-op check needs them). `copy`: the
 * read's object is a private copy (the caller's may be shared and must stay unchanged);
 * without it, the caller's object itself, which the read's user must only read.
 */
function suggestedRead(key: string, suggestion: Readonly<JsonObject> | undefined, copy: boolean): KeyRead | undefined {
  if (suggestion === undefined) return undefined;
  const modRevision = Number((suggestion.metadata as { resourceVersion?: unknown } | undefined)?.resourceVersion);
  if (!Number.isSafeInteger(modRevision) || modRevision <= 0) return undefined;
  const kv: KeyValue = { key, value: NO_BYTES, createRevision: 0, modRevision, version: 0, lease: 0 };
  return { kv, revision: modRevision, suggested: true, object: (copy ? cloneValue(suggestion) : suggestion) as JsonObject };
}

/**
 * The compares of a write over `read`: unchanged since it was read (mod_revision; 0 for
 * absent). A suggested copy does not know the key's lease: unless the write brings a
 * lease of its own (`newLease`), it also requires that there is none, so a leased object
 * is written (keeping its lease) only after a real read.
 */
function writeCompares(key: string, modRevision: number, read: KeyRead, newLease = false): Compare[] {
  const unchanged: Compare = { key, target: "mod", result: "=", value: modRevision };
  return read.suggested && !newLease ? [unchanged, { key, target: "lease", result: "=", value: 0 }] : [unchanged];
}

/**
 * The failure branch of a write txn: the key is read in the same round trip, so a
 * conflict costs no second read (the platform's store does the same).
 */
const READ = (key: string): TxnOp => ({ type: "range", key });

function conflictRead(txn: TxnResult): KeyRead {
  return { kv: txn.results[0]?.kvs[0], revision: txn.revision };
}

function checkPreconditions(key: string, current: JsonObject, pre: Preconditions | undefined): void {
  if (!pre) return;
  const m = meta(current);
  if (pre.uid && pre.uid !== m.uid) {
    throw new UidPreconditionError(key, pre.uid, m.uid ?? "");
  }
  if (pre.resourceVersion && pre.resourceVersion !== m.resourceVersion) {
    throw new ResourceVersionConflictError(key, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${m.resourceVersion ?? ""}`);
  }
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}

/** The object of a BOOKMARK event: only metadata.resourceVersion (and the initial-events-end annotation when given). */
export function bookmarkObject(revision: number, initialEventsEndAnnotation?: string): JsonObject {
  const metadata: Record<string, unknown> = { resourceVersion: String(revision) };
  if (initialEventsEndAnnotation) metadata.annotations = { [initialEventsEndAnnotation]: "true" };
  return { metadata };
}

export function errorObject(code: number, message: string): JsonObject {
  const reason = code === 410 ? "Expired" : "InternalError";
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code };
}
