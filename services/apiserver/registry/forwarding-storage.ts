/**
 * A storage that hands every call to an inner storage; kinds whose writes do more
 * (Service allocation) extend it and override only those writes.
 * Unsafe deletion and the cached guess stay available exactly when the inner storage offers them.
 */
import type { DeleteOptions, GetOptions, ListOptions, ListResult, ObjectStorage, TryUpdate, UpdateOptions, WatchOptions, Watcher } from "../storage/interface.ts";
import type { JsonObject } from "../storage/object.ts";

export class ForwardingStorage implements ObjectStorage {
  readonly deleteUnreadable?: (key: string) => Promise<JsonObject>;
  readonly cachedGuess?: (key: string) => Readonly<JsonObject> | undefined;

  constructor(protected readonly inner: ObjectStorage) {
    this.deleteUnreadable = inner.deleteUnreadable?.bind(inner);
    this.cachedGuess = inner.cachedGuess?.bind(inner);
  }

  get(key: string, options?: GetOptions): Promise<JsonObject> {
    return this.inner.get(key, options);
  }

  list(prefix: string, options?: ListOptions): Promise<ListResult> {
    return this.inner.list(prefix, options);
  }

  watch(prefix: string, options?: WatchOptions): Promise<Watcher> {
    return this.inner.watch(prefix, options);
  }

  count(prefix: string): Promise<number> {
    return this.inner.count(prefix);
  }

  currentRevision(): Promise<number> {
    return this.inner.currentRevision();
  }

  create(key: string, obj: JsonObject, options?: { dryRun?: boolean; ttlSeconds?: number }): Promise<JsonObject> {
    return this.inner.create(key, obj, options);
  }

  guaranteedUpdate(key: string, tryUpdate: TryUpdate, options?: UpdateOptions): Promise<JsonObject> {
    return this.inner.guaranteedUpdate(key, tryUpdate, options);
  }

  delete(key: string, options?: DeleteOptions): Promise<JsonObject> {
    return this.inner.delete(key, options);
  }
}
