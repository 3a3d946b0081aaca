/**
 * The informer's cache with indexes, as the platform's client cache.Indexer: objects by
 * key, and named indexes that map each value an index function returns for an object to
 * the keys of the objects that returned it.
 *
 * Contract:
 * - `set(key, obj)` and `delete(key)` keep every index current: an object's old values
 *   are dropped before its new ones are added, and a value no object returns any more
 *   disappears from `indexValues`.
 * - `addIndexers` indexes the objects already held; a name already in use is refused
 *   (`indexer conflict: <name>`). Reading an index that does not exist is an error
 *   (`Index with name <name> does not exist`), as on the platform.
 * - Index functions must not throw and must be pure: they run on every change.
 */
import type { ApiObject } from "./object-client.ts";

/** The values an object is indexed under (none: not in this index). */
export type IndexFunc = (obj: ApiObject) => string[];

/** The platform's namespace index: the object's namespace ("" for cluster-scoped ones). */
export const NAMESPACE_INDEX = "namespace";
export const namespaceIndexFunc: IndexFunc = (obj) => [obj.metadata.namespace ?? ""];

interface Index {
  fn: IndexFunc;
  /** value → keys */
  byValue: Map<string, Set<string>>;
}

export class Indexer {
  private readonly items = new Map<string, ApiObject>();
  private readonly indexes = new Map<string, Index>();

  get(key: string): ApiObject | undefined {
    return this.items.get(key);
  }

  has(key: string): boolean {
    return this.items.has(key);
  }

  keys(): IterableIterator<string> {
    return this.items.keys();
  }

  values(): IterableIterator<ApiObject> {
    return this.items.values();
  }

  entries(): IterableIterator<[string, ApiObject]> {
    return this.items.entries();
  }

  set(key: string, obj: ApiObject): void {
    const old = this.items.get(key);
    this.items.set(key, obj);
    for (const index of this.indexes.values()) {
      if (old) this.unindex(index, key, old);
      this.index(index, key, obj);
    }
  }

  delete(key: string): void {
    const old = this.items.get(key);
    if (!old) return;
    this.items.delete(key);
    for (const index of this.indexes.values()) this.unindex(index, key, old);
  }

  addIndexers(indexers: Record<string, IndexFunc>): void {
    for (const name of Object.keys(indexers)) if (this.indexes.has(name)) throw new Error(`indexer conflict: ${name}`);
    for (const [name, fn] of Object.entries(indexers)) {
      const index: Index = { fn, byValue: new Map() };
      for (const [key, obj] of this.items) this.index(index, key, obj);
      this.indexes.set(name, index);
    }
  }

  /** Keys of the objects indexed under `value` in the index `name`, sorted. */
  indexKeys(name: string, value: string): string[] {
    return [...(this.indexNamed(name).byValue.get(value) ?? [])].sort();
  }

  /** The objects indexed under `value` in the index `name`, in key order. */
  byIndex(name: string, value: string): ApiObject[] {
    return this.indexKeys(name, value).map((k) => this.items.get(k)!);
  }

  /** Every value the index `name` holds at least one object under, sorted. */
  indexValues(name: string): string[] {
    return [...this.indexNamed(name).byValue.keys()].sort();
  }

  private indexNamed(name: string): Index {
    const index = this.indexes.get(name);
    if (!index) throw new Error(`Index with name ${name} does not exist`);
    return index;
  }

  private index(index: Index, key: string, obj: ApiObject): void {
    for (const value of new Set(index.fn(obj))) {
      let keys = index.byValue.get(value);
      if (!keys) index.byValue.set(value, (keys = new Set()));
      keys.add(key);
    }
  }

  private unindex(index: Index, key: string, obj: ApiObject): void {
    for (const value of new Set(index.fn(obj))) {
      const keys = index.byValue.get(value);
      if (!keys) continue;
      keys.delete(key);
      if (keys.size === 0) index.byValue.delete(value);
    }
  }
}
