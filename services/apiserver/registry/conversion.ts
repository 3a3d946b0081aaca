/**
 * Conversion of kinds served in several versions. Each such kind has one storage
 * (hub) version; every served version has a converter to and from it. A registry
 * of a converted kind turns request objects into the storage form before the
 * strategy and storage see them, and stored objects into the request's version on
 * every way out (get, list, watch, write and delete responses).
 */
import { toStatus } from "../../../shared/api/status.ts";
import type { KindDefinition } from "../../../shared/schema/types.ts";
import type { WatchEvent, Watcher } from "../storage/interface.ts";
import type { JsonObject } from "../storage/object.ts";

/**
 * One served version of a kind. Both functions are pure: they return a new object
 * and never mutate their input. The storage version's own converter normalizes
 * (drops what only other versions carry); when there is nothing to normalize it may
 * return its input itself, as a registry without conversion hands objects on.
 */
export interface VersionConverter {
  toStorage(obj: JsonObject): JsonObject;
  fromStorage(obj: JsonObject): JsonObject;
  /**
   * The object this version's field selectors read, made from a stored object (it may be
   * shallow and must not be mutated); absent: they read the stored object itself.
   */
  fieldSelectorView?(stored: Readonly<JsonObject>): Readonly<JsonObject>;
}

/**
 * A converter that calls out (a CRD's conversion webhook): several objects per call,
 * answered in order; it never mutates its input. A view with one converts every object
 * of its registry through it; its sync converter then serves only callers that cannot
 * wait (matchPolicy Equivalent, plugins' own bookkeeping writes).
 */
export interface RemoteVersionConverter {
  toStorage(objs: readonly JsonObject[]): Promise<JsonObject[]>;
  fromStorage(objs: readonly JsonObject[]): Promise<JsonObject[]>;
}

/**
 * A kind served in several versions: the storage version and a converter per served version.
 * `storageGroup` (a group key) names the group of the storage version when it is not the
 * kind's own: such a kind is stored under that group's keys (events/v1 Event as core/v1).
 */
export interface KindConversion {
  readonly storageGroup?: string;
  readonly storageVersion: string;
  /** The storage version's definition, used when that version is not served by the replica. */
  readonly storageKind?: KindDefinition;
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
  private readonly pendingEvents = new WeakMap<object, Promise<Readonly<JsonObject>>>();

  constructor(
    readonly converter: VersionConverter,
    readonly remote?: RemoteVersionConverter,
  ) {}

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

  /** `toStorage` through the remote converter when there is one. */
  async toStorageAsync(obj: JsonObject): Promise<JsonObject> {
    return this.remote ? (await this.remote.toStorage([obj]))[0] : this.converter.toStorage(obj);
  }

  /** `fromStorage` of several objects (one remote call for all). */
  async fromStorageAsync(objs: readonly JsonObject[]): Promise<JsonObject[]> {
    return this.remote ? this.remote.fromStorage(objs) : objs.map((o) => this.converter.fromStorage(o));
  }

  /**
   * `fromShared` of several objects (get, list). A remote converter is asked on every
   * read, in one call for all, as the platform calls a conversion webhook per request.
   */
  async fromSharedAsync(objs: ReadonlyArray<Readonly<JsonObject>>): Promise<Array<Readonly<JsonObject>>> {
    return this.remote ? this.remote.fromStorage(objs) : objs.map((o) => this.fromShared(o));
  }

  /** The request form of a watch event's object: one remote call per event, shared by every watcher. */
  private fromSharedEvent(obj: Readonly<JsonObject>, remote: RemoteVersionConverter): Promise<Readonly<JsonObject>> {
    let pending = this.pendingEvents.get(obj);
    if (!pending) {
      pending = remote.fromStorage([obj]).then((out) => out[0]);
      this.pendingEvents.set(obj, pending);
      // A failed conversion is asked again by the next watcher rather than remembered.
      pending.catch(() => this.pendingEvents.delete(obj));
    }
    return pending;
  }

  /**
   * A watcher whose change events carry the request form (bookmarks and errors pass as
   * they are). An event that cannot be converted ends the watch with an ERROR event
   * carrying the failure's Status.
   */
  watcher(inner: Watcher): Watcher {
    let failed = false;
    const convert = async (ev: WatchEvent | undefined): Promise<WatchEvent | undefined> => {
      if (!ev || ev.type === "BOOKMARK" || ev.type === "ERROR") return ev;
      try {
        return { ...ev, object: this.remote ? await this.fromSharedEvent(ev.object, this.remote) : this.fromShared(ev.object) };
      } catch (err) {
        failed = true;
        inner.stop();
        return { type: "ERROR", object: toStatus(err) as unknown as JsonObject, revision: ev.revision };
      }
    };
    return {
      next: async () => (failed ? undefined : convert(await inner.next())),
      stop: () => inner.stop(),
      get closedReason() {
        return inner.closedReason;
      },
    };
  }
}
