/**
 * `ObjectAccess` over the replica's catalog: plugins read the current objects (a
 * quorum read, then the watch cache) or the watch cache's as they are
 * (`cached`, resourceVersion "0"), in the preferred version of their group. `update` writes through the storage with the kind's update validation but
 * no admission (a plugin's own bookkeeping, e.g. quota usage); `create` goes
 * through the registry like any write of the server itself.
 */
import { isStatusError, notFound } from "../../../shared/api/status.ts";
import { Informer } from "../authz/informer.ts";
import type { Catalog, ServedResource } from "../registry/catalog.ts";
import { StorageError } from "../storage/interface.ts";
import type { JsonObject } from "../storage/object.ts";
import type { ObjectAccess, ObjectRef } from "./interfaces.ts";
import { cloneValue } from "../../../shared/schema/values.ts";

export function catalogObjectAccess(catalog: () => Catalog | undefined): ObjectAccess {
  const served = (group: string, resource: string): ServedResource => {
    const s = catalog()?.preferred(group, resource);
    if (!s) throw notFound(resource, "", group);
    return s;
  };
  return {
    async get(ref: ObjectRef, opts) {
      const s = catalog()?.preferred(ref.group, ref.resource);
      if (!s) return undefined;
      try {
        return await s.registry.get(ref.namespace, ref.name, opts?.cached ? "0" : undefined);
      } catch (err) {
        if (isStatusError(err, "NotFound")) return undefined;
        throw err;
      }
    },
    peek(ref: ObjectRef) {
      const s = catalog()?.preferred(ref.group, ref.resource);
      // A converted kind's cached object is in the storage version: only `get` converts it.
      if (!s || s.registry.conversion) return undefined;
      return s.registry.storage.cachedGuess?.(s.registry.key(ref.namespace, ref.name));
    },
    async list(group, resource, namespace, opts) {
      const s = catalog()?.preferred(group, resource);
      if (!s) return [];
      return (await s.registry.list({ namespace, resourceVersion: opts?.cached ? "0" : undefined })).items;
    },
    async update(ref, mutate, opts) {
      const { registry } = served(ref.group, ref.resource);
      const key = registry.key(ref.namespace, ref.name);
      try {
        return await registry.toRequest(
          await registry.storage.guaranteedUpdate(key, async (current) => {
            if (!current) throw new StorageError("NotFound", key, `key ${key} not found`);
            const next = mutate(await registry.toRequest(cloneValue(current)));
            if (!next) return undefined;
            const errors = opts?.subresource === "status" ? [] : registry.strategy.validateUpdate(next, current);
            if (errors.length > 0) throw registry.invalid(ref.name, errors);
            return registry.conversion ? registry.conversion.view.toStorageAsync(next) : next;
          }),
        );
      } catch (err) {
        if (isStatusError(err)) throw err;
        registry.fail(err, ref.name);
      }
    },
    watchList(group, resource, onChange) {
      const s = catalog()?.preferred(group, resource);
      if (!s) {
        onChange([]);
        return { synced: Promise.resolve(), stop: () => {} };
      }
      const informer = new Informer(s.registry);
      informer.onChange(() => onChange([...informer.items.values()]));
      const synced = informer.start().then(() => onChange([...informer.items.values()]));
      return { synced, stop: () => informer.stop() };
    },
    async create(group, resource, obj: JsonObject) {
      const { registry } = served(group, resource);
      const namespace = (obj.metadata as { namespace?: string } | undefined)?.namespace;
      return registry.create(obj, { namespace, dryRun: false });
    },
  };
}
