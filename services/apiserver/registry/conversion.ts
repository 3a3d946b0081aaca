/**
 * Conversion of kinds served in several versions. Each such kind has one storage
 * (hub) version; every served version has a converter to and from it. A registry
 * of a converted kind turns request objects into the storage form before the
 * strategy and storage see them, and stored objects into the request's version on
 * every way out (get, list, watch, write and delete responses).
 */
import type { WatchEvent, Watcher } from "../storage/interface.ts";
import type { JsonObject } from "../storage/object.ts";

/**
 * One served version of a kind. Both functions are pure: they return a new object
 * and never mutate their input. The storage version's own converter normalizes
 * (drops what only other versions carry).
 */
export interface VersionConverter {
  toStorage(obj: JsonObject): JsonObject;
  fromStorage(obj: JsonObject): JsonObject;
}

/** A kind served in several versions: the storage version and a converter per served version. */
export interface KindConversion {
  readonly storageVersion: string;
  readonly versions: Readonly<Record<string, VersionConverter>>;
}

/** Key of a kind in a conversion table: its group key and kind (`autoscaling/HorizontalPodAutoscaler`). */
export function conversionKey(groupKey: string, kind: string): string {
  return `${groupKey}/${kind}`;
}

/**
 * A registry's converter plus a memo for shared reads: objects the watch cache hands
 * out are never mutated, so their converted form is computed once per object and
 * shared (which keeps the encoded-bytes cache, keyed by object identity, effective).
 */
export class VersionView {
  private readonly shared = new WeakMap<object, JsonObject>();

  constructor(readonly converter: VersionConverter) {}

  toStorage(obj: JsonObject): JsonObject {
    return this.converter.toStorage(obj);
  }

  fromStorage(obj: JsonObject): JsonObject {
    return this.converter.fromStorage(obj);
  }

  /** The request form of a never-mutated object; the result is shared and must not be mutated either. */
  fromShared(obj: Readonly<JsonObject>): Readonly<JsonObject> {
    let out = this.shared.get(obj);
    if (!out) {
      out = this.converter.fromStorage(obj);
      this.shared.set(obj, out);
    }
    return out;
  }

  /** A watcher whose change events carry the request form (bookmarks and errors pass as they are). */
  watcher(inner: Watcher): Watcher {
    const convert = (ev: WatchEvent | undefined): WatchEvent | undefined =>
      !ev || ev.type === "BOOKMARK" || ev.type === "ERROR" ? ev : { ...ev, object: this.fromShared(ev.object) };
    return {
      next: async () => convert(await inner.next()),
      stop: () => inner.stop(),
      get closedReason() {
        return inner.closedReason;
      },
    };
  }
}
