/**
 * The replica's watch cache: every object under the registry prefix at one store
 * revision, plus a time-bounded history of decoded changes, kept current by one
 * subscription to the revision feed. Watchers are indexed by resource prefix, so an
 * event is matched only against the watchers of its resource. Each event is decoded
 * once; encodings are memoized per event by the HTTP layer (see `WatchEvent`).
 *
 * Invariants: `revision` only grows; `objects` equals the store's state at `revision`;
 * history holds every change with revision in (historyStart, revision].
 */
import { EventQueue } from "./event-queue.ts";
import { ExpiredError, TooLargeResourceVersionError, type Predicate, type WatchEvent } from "./interface.ts";
import { prefixEnd, type KvStore, type RevisionChange, type RevisionFeed } from "./kv.ts";
import { meta, type JsonObject } from "./object.ts";
import { corruptionOf, decodeStored } from "./corrupt-object.ts";
import { decodeChange, eventFor, type ChangeEvents, type DecodedChange } from "./watch-filter.ts";
import { RevisionSnapshots } from "./revision-snapshots.ts";
import { SortedKeys } from "./sorted-keys.ts";

/** How long the platform keeps watch cache snapshots (ListFromCacheSnapshot). */
export const DEFAULT_SNAPSHOT_RETENTION_MS = 75_000;

export interface WatchCacheOptions {
  /** Registry root, e.g. "/registry/". */
  root: string;
  historyWindowMs?: number;
  maxHistory?: number;
  /** Events a watcher may lag behind before it is closed. */
  watcherCapacity?: number;
  /** How long past states stay listable (revision-snapshots.ts; the platform's is 75 s); 0 (default) keeps none. */
  snapshotRetentionMs?: number;
  now?: () => number;
  log?: (msg: string, fields?: Record<string, unknown>) => void;
}

interface HistoryEntry {
  change: DecodedChange;
  timeMs: number;
}

/**
 * A registered watcher is its own event queue (one object per watch, no closures):
 * closing it removes it from its resource's set.
 */
class CacheWatcher extends EventQueue {
  /** Only events with revision > from are delivered. */
  from = 0;

  constructor(
    readonly prefix: string,
    readonly predicate: Predicate | undefined,
    readonly bookmarks: boolean,
    capacity: number,
    private readonly owner: Set<CacheWatcher>,
  ) {
    super(capacity);
  }

  protected override stopped(): void {
    this.owner.delete(this);
  }
}

/** Resource prefix of a key: `/registry/<group>/<resource>/`. */
export function resourcePrefixOf(key: string, root: string): string {
  let idx = root.length;
  for (let i = 0; i < 2; i++) {
    const next = key.indexOf("/", idx);
    if (next < 0) return key;
    idx = next + 1;
  }
  return key.slice(0, idx);
}

export class WatchCache {
  private readonly objects = new Map<string, JsonObject>();
  /** Objects per resource prefix (`/registry/<group>/<resource>/`), for the in-flight work estimate. */
  private readonly counts = new Map<string, number>();
  /**
   * Stored (encoded) bytes per resource prefix: the list work estimate's average size.
   * No size is kept per key: a change carries the replaced value (`prevValue`, which the
   * cache's DELETED and MODIFIED events need anyway), whose length leaves the sum.
   */
  private readonly resourceBytes = new Map<string, number>();
  /** The keys in order, built at the first list and then kept in step with creates and deletes. */
  private sortedKeys: SortedKeys | undefined;
  private readonly history: HistoryEntry[] = [];
  private historyHead = 0;
  /** Revisions <= historyStart are not in history. */
  private historyStart = 0;
  private current = 0;
  private readonly watchers = new Map<string, Set<CacheWatcher>>();
  private readonly waiters: Array<{ revision: number; resolve: () => void }> = [];
  private unsubscribe: (() => void) | undefined;
  private readonly opts: Required<Omit<WatchCacheOptions, "log">> & Pick<WatchCacheOptions, "log">;
  private readyPromise: Promise<void> | undefined;
  private stopped = false;
  /** Past states for exact-revision lists and continue tokens (ListFromCacheSnapshot); absent when off. */
  private readonly snapshots: RevisionSnapshots<JsonObject> | undefined;

  constructor(
    private readonly kv: KvStore,
    private readonly feed: RevisionFeed,
    options: WatchCacheOptions,
  ) {
    this.opts = {
      ...options,
      historyWindowMs: options.historyWindowMs ?? 5 * 60 * 1000,
      maxHistory: options.maxHistory ?? 500_000,
      watcherCapacity: options.watcherCapacity ?? 10_000,
      snapshotRetentionMs: options.snapshotRetentionMs ?? 0,
      now: options.now ?? Date.now,
    };
    const retainMs = this.opts.snapshotRetentionMs;
    if (retainMs > 0) this.snapshots = new RevisionSnapshots({ retainMs, maxChanges: this.opts.maxHistory });
  }

  get revision(): number {
    return this.current;
  }

  get oldestRevision(): number {
    return this.historyStart;
  }

  /** Lists the store at one revision, then follows the feed from there. */
  start(): Promise<void> {
    this.readyPromise ??= this.load();
    return this.readyPromise;
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    for (const set of this.watchers.values()) for (const w of [...set]) w.close("cache stopped");
    this.watchers.clear();
  }

  private async load(): Promise<void> {
    const root = this.opts.root;
    const end = prefixEnd(root);
    let revision: number | undefined;
    let cursor = root;
    this.objects.clear();
    this.counts.clear();
    this.resourceBytes.clear();
    this.sortedKeys = undefined;
    this.snapshots?.clear();
    for (;;) {
      const res = await this.kv.range(cursor, { end, limit: 5000, revision });
      revision ??= res.revision;
      for (const kv of res.kvs) {
        this.tally(kv.key, 1, kv.value.length, 0); // a range names each key once
        this.objects.set(kv.key, decodeStored(kv.key, kv.value, kv.modRevision)); // a corrupt value is kept as a marked placeholder
      }
      if (!res.more || res.kvs.length === 0) break;
      cursor = res.kvs[res.kvs.length - 1].key + "\0";
    }
    this.current = revision ?? 0;
    this.historyStart = this.current;
    this.snapshots?.reset(this.current);
    this.history.length = 0;
    this.historyHead = 0;
    this.unsubscribe = this.feed.subscribe(
      this.current,
      (change) => this.apply(change),
      (err) => this.reset(err),
    );
  }

  /** The feed lost history: every watcher ends with 410 and the cache reloads. */
  private reset(err: Error): void {
    if (this.stopped) return;
    this.opts.log?.("watch cache reset", { error: err.message, revision: this.current });
    const status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", reason: "Expired", code: 410, message: `watch cache reset: ${err.message}` };
    for (const set of this.watchers.values()) {
      for (const w of [...set]) {
        w.push({ type: "ERROR", object: status, revision: this.current });
        w.close("cache reset");
      }
    }
    this.watchers.clear();
    this.readyPromise = this.load();
  }

  private apply(change: RevisionChange): void {
    const now = this.opts.now();
    for (const kc of change.changes) {
      if (!kc.key.startsWith(this.opts.root)) continue;
      const before = this.objects.get(kc.key);
      const decoded = decodeChange(kc, change.revision, before); // the previous object is the cached one: not decoded again
      this.snapshots?.record(kc.key, change.revision, before, !!decoded.current, now);
      if (decoded.current) {
        if (!before) this.sortedKeys?.insert(kc.key);
        this.objects.set(kc.key, decoded.current);
        this.tally(kc.key, before ? 0 : 1, kc.value?.length ?? 0, before ? kc.prevValue?.length : 0);
      } else if (before) {
        this.objects.delete(kc.key);
        this.sortedKeys?.delete(kc.key);
        this.tally(kc.key, -1, 0, kc.prevValue?.length);
      }
      this.history.push({ change: decoded, timeMs: now });
      this.dispatch(decoded);
    }
    this.current = change.revision;
    this.snapshots?.advance(change.revision, now);
    this.trimHistory(now);
    this.wakeWaiters();
  }

  private dispatch(change: DecodedChange): void {
    const set = this.watchers.get(resourcePrefixOf(change.key, this.opts.root));
    if (!set) return;
    const shared: ChangeEvents = {};
    for (const w of set) {
      if (change.revision <= w.from || !change.key.startsWith(w.prefix)) continue;
      const ev = eventFor(change, w.predicate, shared);
      if (ev) w.push(ev); // a slow consumer closes itself and leaves the set
    }
  }

  private trimHistory(now: number): void {
    const minTime = now - this.opts.historyWindowMs;
    while (this.historyHead < this.history.length) {
      const e = this.history[this.historyHead];
      const tooMany = this.history.length - this.historyHead > this.opts.maxHistory;
      if (e.timeMs >= minTime && !tooMany) break;
      this.historyStart = e.change.revision;
      this.historyHead++;
    }
    if (this.historyHead > 4096 && this.historyHead * 2 > this.history.length) {
      this.history.splice(0, this.historyHead);
      this.historyHead = 0;
    }
  }

  private wakeWaiters(): void {
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      if (this.waiters[i].revision <= this.current) {
        this.waiters[i].resolve();
        this.waiters.splice(i, 1);
      }
    }
  }

  /** Resolves once the cache holds `revision`; rejects with TooLargeResourceVersion after `timeoutMs`. */
  async waitFor(revision: number, timeoutMs = 3000): Promise<void> {
    await this.start();
    if (revision <= this.current) return;
    await new Promise<void>((resolve, reject) => {
      const waiter = {
        revision,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(new TooLargeResourceVersionError("", revision, this.current));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /**
   * Keys (sorted) and objects under a prefix at the cache's current revision. The sorted
   * key index (sorted-keys.ts) follows creates and deletes in place once built, so a list
   * after writes neither sorts every key again nor did each write move every key.
   */
  listPrefix(prefix: string, startKey?: string): Array<[string, JsonObject]> {
    this.sortedKeys ??= SortedKeys.fromSorted([...this.objects.keys()].sort(compareKeys));
    const objects = this.objects;
    const from = startKey && startKey > prefix ? startKey : prefix;
    const out: Array<[string, JsonObject]> = [];
    this.sortedKeys.scan(from, (key) => {
      if (!key.startsWith(prefix)) return false;
      out.push([key, objects.get(key) as JsonObject]);
      return true;
    });
    return out;
  }

  /**
   * Keys (sorted) and objects under a prefix at a past `revision`, from `startKey` on;
   * undefined when no snapshot of that revision is kept (the store must answer).
   */
  listPrefixAt(prefix: string, revision: number, startKey?: string): Array<[string, JsonObject]> | undefined {
    const snapshots = this.snapshots;
    if (!snapshots) return undefined;
    snapshots.trim(this.opts.now());
    if (!snapshots.covers(revision)) return undefined;
    const from = startKey && startKey > prefix ? startKey : prefix;
    return snapshots.listAt(revision, prefix, from, this.listPrefix(prefix, from));
  }

  /** The store compacted its history below `revision`: no snapshot older than it is served any more. */
  compacted(revision: number): void {
    this.snapshots?.compact(revision);
  }

  /**
   * Keeps a resource's object count and stored bytes: `countDelta` objects more (or
   * fewer) under the key's resource, `added` bytes stored and `removed` bytes replaced
   * (undefined: a change without its previous value, counted at the resource's average
   * size). The resource prefix is computed once per change.
   */
  private tally(key: string, countDelta: number, added: number, removed: number | undefined): void {
    const prefix = resourcePrefixOf(key, this.opts.root);
    const count = this.counts.get(prefix) ?? 0;
    let total = this.resourceBytes.get(prefix) ?? 0;
    total += added - (removed ?? (count > 0 ? Math.round(total / count) : 0));
    if (countDelta !== 0) {
      const n = count + countDelta;
      if (n > 0) this.counts.set(prefix, n);
      else this.counts.delete(prefix);
      if (n <= 0) total = 0;
    }
    if (total > 0) this.resourceBytes.set(prefix, total);
    else this.resourceBytes.delete(prefix);
  }

  /** Cached objects under a resource prefix and their average stored size in bytes (0 without objects). */
  resourceStats(resourcePrefix: string): { objects: number; averageBytes: number } {
    const objects = this.countResource(resourcePrefix);
    return { objects, averageBytes: objects > 0 ? Math.floor((this.resourceBytes.get(resourcePrefix) ?? 0) / objects) : 0 };
  }

  /** Number of cached objects under a resource prefix (`/registry/<group>/<resource>/`). */
  countResource(resourcePrefix: string): number {
    return this.counts.get(resourcePrefix) ?? 0;
  }

  getObject(key: string): JsonObject | undefined {
    return this.objects.get(key);
  }

  /**
   * Registers a watcher. `from` is the revision after which events are wanted. When
   * `initial` is set, synthetic ADDED events for the current state are queued first and
   * `from` is the current revision. Throws Gone when `from` is older than the history.
   */
  watch(prefix: string, opts: { from?: number; initial?: boolean; predicate?: Predicate; bookmarks?: boolean; initialEventsEnd?: string }): EventQueue {
    const resourcePrefix = resourcePrefixOf(prefix, this.opts.root);
    let set = this.watchers.get(resourcePrefix);
    if (!set) {
      set = new Set();
      this.watchers.set(resourcePrefix, set);
    }
    const watcher = new CacheWatcher(prefix, opts.predicate, !!opts.bookmarks, this.opts.watcherCapacity, set);
    if (opts.initial || opts.from === undefined) {
      watcher.from = this.current;
      for (const [, obj] of this.listPrefix(prefix)) {
        if (corruptionOf(obj)) continue; // not an object to announce
        if (!opts.predicate || opts.predicate(obj)) watcher.push({ type: "ADDED", object: obj, revision: Number(meta(obj).resourceVersion) });
      }
      if (opts.initialEventsEnd !== undefined && opts.bookmarks) {
        const metadata: Record<string, unknown> = { resourceVersion: String(this.current) };
        if (opts.initialEventsEnd) metadata.annotations = { [opts.initialEventsEnd]: "true" };
        watcher.push({ type: "BOOKMARK", object: { metadata }, revision: this.current });
      }
    } else {
      const from = opts.from;
      if (from < this.historyStart) {
        throw ExpiredError.compactedRevision(prefix, from, this.historyStart);
      }
      watcher.from = from;
      for (let i = this.historyHead; i < this.history.length; i++) {
        const c = this.history[i].change;
        if (c.revision <= from || !c.key.startsWith(prefix)) continue;
        const ev = eventFor(c, opts.predicate);
        if (ev) watcher.push(ev);
      }
      // Later events are delivered by dispatch only for revisions above the current one.
      watcher.from = Math.max(from, this.current);
    }
    set.add(watcher);
    return watcher;
  }

  /** Sends a BOOKMARK at the current revision to every watcher that asked for bookmarks. */
  sendBookmarks(): void {
    for (const set of this.watchers.values()) {
      for (const w of set) {
        if (!w.bookmarks) continue;
        const ev: WatchEvent = { type: "BOOKMARK", object: { metadata: { resourceVersion: String(this.current) } }, revision: this.current };
        w.push(ev);
      }
    }
  }

  get watcherCount(): number {
    let n = 0;
    for (const set of this.watchers.values()) n += set.size;
    return n;
  }
}

export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

