/**
 * The storage of a kind whose objects expire (Events, `--event-ttl`), as the platform's
 * TTL function on the Event registry: every create and every update attaches the object
 * to a store lease of `ttlSeconds` (reused across writes by the storage's lease manager),
 * so the store deletes it when the lease ends unless a later write renewed it. Reads,
 * watches and deletes are the inner storage's.
 */
import type { ObjectStorage, TryUpdate, UpdateOptions } from "../storage/interface.ts";
import type { JsonObject } from "../storage/object.ts";
import { ForwardingStorage } from "./forwarding-storage.ts";

export class ExpiringStorage extends ForwardingStorage {
  constructor(
    inner: ObjectStorage,
    private readonly ttlSeconds: number,
  ) {
    super(inner);
  }

  override create(key: string, obj: JsonObject, options?: { dryRun?: boolean; ttlSeconds?: number }): Promise<JsonObject> {
    return this.inner.create(key, obj, { ...options, ttlSeconds: this.ttlSeconds });
  }

  override guaranteedUpdate(key: string, tryUpdate: TryUpdate, options?: UpdateOptions): Promise<JsonObject> {
    return this.inner.guaranteedUpdate(key, tryUpdate, { ...options, ttlSeconds: this.ttlSeconds });
  }
}
