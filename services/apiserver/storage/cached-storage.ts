/**
 * ObjectStorage served through the watch cache: writes and exact-revision reads go to
 * the store; "most recent" reads ask the store for its current revision (quorum),
 * wait until the cache has it and answer from the cache; "any" reads answer from the
 * cache at once; "not older than" reads wait for the cache to reach the revision.
 * An exact-revision list or a continue token whose revision the cache keeps a snapshot of
 * (ListFromCacheSnapshot: the cache keeps none while its gate is off) is answered from
 * that snapshot; any other (older, newer, malformed or expired) still goes to the store,
 * which answers as before.
 */
import { decodeContinue, encodeContinue, isExpired } from "./continue-token.ts";
import { storageStep, type StorageOperation } from "./errors.ts";
import {
  KeyNotFoundError,
  type DeleteOptions,
  type GetOptions,
  type ListOptions,
  type ListResult,
  type ObjectStorage,
  type TryUpdate,
  type UpdateOptions,
  type WatchOptions,
  type Watcher,
} from "./interface.ts";
import type { JsonObject } from "./object.ts";
import type { KvStore } from "./kv.ts";
import { corruptionOf, corruptListError, type CorruptObjectError } from "./corrupt-object.ts";
import { parseResourceVersion } from "./resource-version.ts";
import type { StoreStorage } from "./store-storage.ts";
import type { WatchCache } from "./watch-cache.ts";
import { cloneValue, withOwn } from "../../../shared/schema/values.ts";

export interface CachedStorageOptions {
  /** How long a read waits for the cache to reach a revision before 504. */
  waitTimeoutMs?: number;
  now?: () => number;
  initialEventsAnnotation?: string;
  /** With AllowUnsafeMalformedObjectDeletion: the store, for `deleteUnreadable` (absent: the method is absent). */
  unsafeDeletionKv?: KvStore;
  /** Continue token validity (as the store's; default 5 minutes): older ones go to the store for its 410. */
  continueTtlMs?: number;
}

export class CachedStorage implements ObjectStorage {
  private readonly waitTimeoutMs: number;
  private readonly now: () => number;
  readonly deleteUnreadable?: (key: string) => Promise<JsonObject>;

  constructor(
    private readonly store: StoreStorage,
    private readonly cache: WatchCache,
    private readonly options: CachedStorageOptions = {},
  ) {
    this.waitTimeoutMs = options.waitTimeoutMs ?? 3000;
    this.now = options.now ?? Date.now;
    const kv = options.unsafeDeletionKv;
    if (kv) this.deleteUnreadable = (key) => this.removeWhateverItHolds(kv, key);
  }

  /** Deletes a key without reading its value (no preconditions, no finalizers); the name and new revision come back. */
  private async removeWhateverItHolds(kv: KvStore, key: string): Promise<JsonObject> {
    const known = this.cache.getObject(key);
    const res = await storageStep("delete", key, () => kv.txn([], [{ type: "delete", key }], []));
    if (!known && (res.results[0]?.deleted ?? 0) === 0) throw new KeyNotFoundError(key, res.revision);
    return { metadata: { ...(known ? cloneValue(known.metadata as JsonObject) : {}), resourceVersion: String(res.revision) } };
  }

  currentRevision(): Promise<number> {
    return this.store.currentRevision();
  }

  create(key: string, obj: JsonObject, options?: { dryRun?: boolean; ttlSeconds?: number }): Promise<JsonObject> {
    return this.store.create(key, obj, options);
  }
  /** The cache's object is the suggestion (the platform's cacher passes its cached existing object): no first store read when it is current. */
  async guaranteedUpdate(key: string, tryUpdate: TryUpdate, options: UpdateOptions = {}): Promise<JsonObject> {
    return this.store.guaranteedUpdate(key, tryUpdate, withOwn(options, { suggestion: options.suggestion ?? this.readableCached(key) }));
  }
  async delete(key: string, options: DeleteOptions = {}): Promise<JsonObject> {
    return this.store.delete(key, withOwn(options, { suggestion: options.suggestion ?? this.readableCached(key) }));
  }
  cachedGuess(key: string): Readonly<JsonObject> | undefined {
    const obj = this.cache.getObject(key);
    return obj && !corruptionOf(obj) ? obj : undefined;
  }
  /** The cache's object as a write's suggestion; a corrupt one fails the write as the store read would. */
  private readableCached(key: string): Readonly<JsonObject> | undefined {
    const obj = this.cache.getObject(key);
    const corrupt = obj && corruptionOf(obj);
    if (corrupt) throw corrupt;
    return obj;
  }
  /** From the store, as the platform's cacher counts. */
  count(prefix: string): Promise<number> {
    return this.store.count(prefix);
  }

  /** Brings the cache to at least the revision the read semantics require (store failures: StorageErrors of `operation`). */
  private async freshEnough(resourceVersion: string | undefined, operation: StorageOperation, key: string): Promise<void> {
    const rv = parseResourceVersion(resourceVersion);
    await storageStep(operation, key, () => this.cache.start());
    if (rv === 0) return;
    const target = rv === undefined ? await storageStep(operation, key, () => this.store.currentRevision(operation)) : rv;
    await this.cache.waitFor(target, this.waitTimeoutMs);
  }

  async get(key: string, options: GetOptions = {}): Promise<JsonObject> {
    return cloneValue(await this.getShared(key, options));
  }

  /**
   * `get` without the copy: the watch cache's own object, with the same read semantics.
   * Callers must not mutate it (nor anything under it); the cache never does either —
   * a change stores a new object — which is what lets callers key encoded bytes by it.
   */
  async getShared(key: string, options: GetOptions = {}): Promise<Readonly<JsonObject>> {
    await this.freshEnough(options.resourceVersion, "get", key);
    const obj = this.cache.getObject(key);
    if (!obj) throw new KeyNotFoundError(key, this.cache.revision);
    const corrupt = corruptionOf(obj);
    if (corrupt) throw corrupt;
    return obj;
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    const res = this.fromSnapshot(prefix, options) ?? (this.readsStore(options) ? undefined : await this.fromCurrent(prefix, options));
    if (!res) return this.store.list(prefix, options);
    return { ...res, items: res.items.map((o) => cloneValue(o)) };
  }

  /** Continue tokens and exact revisions are read from the store's history. */
  private readsStore(options: ListOptions): boolean {
    const rv = parseResourceVersion(options.resourceVersion);
    const exact = options.resourceVersionMatch === "Exact" || (options.resourceVersionMatch !== "NotOlderThan" && !!options.limit && rv !== undefined && rv > 0);
    return !!options.continueToken || exact;
  }

  /**
   * `list` without copies: items served from the cache are its own objects (as in
   * `getShared`); callers must not mutate them. Lists of any size cost references only.
   */
  async listShared(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    const fromSnapshot = this.fromSnapshot(prefix, options);
    if (fromSnapshot) return fromSnapshot;
    if (this.readsStore(options)) return this.store.list(prefix, options);
    return this.fromCurrent(prefix, options);
  }

  /** A list the store would answer from its history, answered from a kept snapshot (undefined: none kept). */
  private fromSnapshot(prefix: string, options: ListOptions): ListResult | undefined {
    let revision: number;
    let startKey: string | undefined;
    if (options.continueToken) {
      let token;
      try {
        token = decodeContinue(options.continueToken);
      } catch {
        return undefined; // the store names what is wrong with it
      }
      if (isExpired(token, this.now(), this.options.continueTtlMs) || !token.startKey.startsWith(prefix)) return undefined;
      revision = token.revision;
      startKey = token.startKey;
    } else {
      const rv = parseResourceVersion(options.resourceVersion);
      if (!this.readsStore(options) || rv === undefined || rv <= 0) return undefined;
      revision = rv;
    }
    const entries = this.cache.listPrefixAt(prefix, revision, startKey);
    return entries && this.page(entries, revision, options);
  }

  private async fromCurrent(prefix: string, options: ListOptions): Promise<ListResult> {
    await this.freshEnough(options.resourceVersion, "list", prefix);
    return this.page(this.cache.listPrefix(prefix), this.cache.revision, options);
  }

  /** One page of `entries` (the list's objects at `revision`, in key order, from its start key). */
  private page(entries: ReadonlyArray<readonly [string, JsonObject]>, revision: number, options: ListOptions): ListResult {
    const predicate = options.predicate ?? (() => true);
    const limit = options.limit && options.limit > 0 ? options.limit : 0;
    const items: JsonObject[] = [];
    const corrupt: CorruptObjectError[] = [];
    let i = 0;
    for (; i < entries.length; i++) {
      const obj = entries[i][1];
      const corruption = corruptionOf(obj);
      if (corruption) {
        corrupt.push(corruption); // the list fails naming every corrupt key it met
        continue;
      }
      if (!predicate(obj)) continue;
      items.push(obj);
      if (limit && items.length >= limit) {
        i++;
        break;
      }
    }
    if (corrupt.length > 0) throw corruptListError(corrupt);
    const result: ListResult = { items, resourceVersion: String(revision) };
    if (limit && items.length >= limit && i < entries.length) {
      const hasMore = entries.slice(i).some(([, o]) => predicate(o));
      if (hasMore) {
        result.continueToken = encodeContinue({ revision, startKey: entries[i - 1][0] + "\0", issuedAtMs: this.now() });
        if (!options.hasSelector) result.remainingItemCount = entries.length - i;
      }
    }
    return result;
  }

  async watch(prefix: string, options: WatchOptions = {}): Promise<Watcher> {
    const rv = parseResourceVersion(options.resourceVersion);
    await storageStep("watch", prefix, () => this.cache.start());
    const wantsInitial = options.sendInitialEvents ?? (rv === undefined || rv === 0);
    if (wantsInitial) {
      // Consistent start for an unset version; "0" or a given version: not older than it.
      await this.freshEnough(options.resourceVersion, "watch", prefix);
      return this.cache.watch(prefix, {
        initial: true,
        predicate: options.predicate,
        bookmarks: options.allowWatchBookmarks,
        initialEventsEnd: options.sendInitialEvents ? (this.options.initialEventsAnnotation ?? "") : undefined,
      });
    }
    // No initial events: from the given version, or (unset / "0") from the state the cache
    // holds once it is fresh enough, as a watch that asked for no initial state starts.
    if (rv === undefined) await this.freshEnough(undefined, "watch", prefix);
    const from = rv === undefined || rv === 0 ? this.cache.revision : rv;
    if (from > this.cache.revision) await this.cache.waitFor(from, this.waitTimeoutMs);
    return this.cache.watch(prefix, { from, predicate: options.predicate, bookmarks: options.allowWatchBookmarks });
  }
}

