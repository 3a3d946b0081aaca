/**
 * Informers: a local cache of one resource kept current by a Reflector (list once,
 * then watch events; a relist only after a 410), with add/update/delete handlers.
 * Controllers read the cache and react to events; they never list periodically.
 *
 * Contract:
 * - Keys are `<namespace>/<name>` for namespaced objects, `<name>` otherwise.
 * - Handlers run synchronously in stream order; a relist is turned into the adds,
 *   updates and deletes that make the cache equal to the new set. A watched deletion
 *   hands `delete` the event's object (its resourceVersion is the deletion's); one
 *   found by a relist hands the last cached state.
 * - `InformerFactory.informer(resource)` hands every caller the same informer for a
 *   resource, so several controllers share one watch; `start()` resolves when every
 *   informer made so far holds its first complete list.
 * - The cache is indexed (indexer.ts): `addIndexers` at any time, `byIndex` reads an
 *   index; every informer has the platform's `namespace` index.
 */
import { Indexer, NAMESPACE_INDEX, namespaceIndexFunc, type IndexFunc } from "./indexer.ts";
import type { ApiObject, ObjectClient, ResourceRef } from "./object-client.ts";
import { Reflector } from "./reflector.ts";

export interface InformerHandler {
  add?(obj: ApiObject): void;
  update?(oldObj: ApiObject, newObj: ApiObject): void;
  delete?(obj: ApiObject): void;
}

export function objectKey(obj: ApiObject): string {
  const { namespace, name } = obj.metadata;
  return namespace ? `${namespace}/${name ?? ""}` : (name ?? "");
}

/** Splits a key back into namespace (possibly "") and name. */
export function splitKey(key: string): { namespace: string; name: string } {
  const i = key.indexOf("/");
  return i < 0 ? { namespace: "", name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

export class Informer {
  private readonly cache = new Indexer();
  private readonly handlers: InformerHandler[] = [];
  private readonly reflector: Reflector;
  private started: Promise<void> | undefined;
  private synced = false;

  constructor(
    client: ObjectClient,
    readonly resource: ResourceRef,
    opts: { namespace?: string; labelSelector?: string; fieldSelector?: string; backoffMs?: number; log?: (msg: string, fields: Record<string, unknown>) => void } = {},
  ) {
    this.cache.addIndexers({ [NAMESPACE_INDEX]: namespaceIndexFunc });
    this.reflector = new Reflector(client, resource, { replace: (items) => this.replace(items), event: (type, obj) => this.event(type, obj) }, opts);
  }

  get hasSynced(): boolean {
    return this.synced;
  }

  /** Complete lists taken so far (1 after the start; each 410 adds one). */
  get lists(): number {
    return this.reflector.lists;
  }

  /** The last resourceVersion seen. */
  get resourceVersion(): string | undefined {
    return this.reflector.resourceVersion;
  }

  /** Registers a handler; objects already cached are delivered to it as adds. */
  addHandler(h: InformerHandler): void {
    this.handlers.push(h);
    for (const obj of this.cache.values()) h.add?.(obj);
  }

  get(key: string): ApiObject | undefined {
    return this.cache.get(key);
  }

  list(namespace?: string): ApiObject[] {
    return namespace === undefined ? [...this.cache.values()] : this.cache.byIndex(NAMESPACE_INDEX, namespace);
  }

  /** Adds named indexes over the cache (the objects already held are indexed at once); a name in use is refused. */
  addIndexers(indexers: Record<string, IndexFunc>): void {
    this.cache.addIndexers(indexers);
  }

  /** The cached objects an index holds under `value`, in key order. */
  byIndex(name: string, value: string): ApiObject[] {
    return this.cache.byIndex(name, value);
  }

  /** Keys of the cached objects an index holds under `value`, sorted. */
  indexKeys(name: string, value: string): string[] {
    return this.cache.indexKeys(name, value);
  }

  start(): Promise<void> {
    this.started ??= this.reflector.start().then(() => {
      this.synced = true;
    });
    return this.started;
  }

  stop(): void {
    this.reflector.stop();
  }

  private replace(items: ApiObject[]): void {
    const seen = new Set<string>();
    for (const obj of items) {
      const key = objectKey(obj);
      seen.add(key);
      const old = this.cache.get(key);
      this.cache.set(key, obj);
      if (!old) for (const h of this.handlers) h.add?.(obj);
      else if (old.metadata.resourceVersion !== obj.metadata.resourceVersion) for (const h of this.handlers) h.update?.(old, obj);
    }
    for (const [key, old] of [...this.cache.entries()]) {
      if (seen.has(key)) continue;
      this.cache.delete(key);
      for (const h of this.handlers) h.delete?.(old);
    }
  }

  private event(type: "ADDED" | "MODIFIED" | "DELETED", obj: ApiObject): void {
    const key = objectKey(obj);
    const old = this.cache.get(key);
    if (type === "DELETED") {
      // The event's object: its final state, with the resourceVersion of the deletion.
      this.cache.delete(key);
      for (const h of this.handlers) h.delete?.(obj);
      return;
    }
    this.cache.set(key, obj);
    if (old) for (const h of this.handlers) h.update?.(old, obj);
    else for (const h of this.handlers) h.add?.(obj);
  }
}

/** One shared informer per resource and scope (namespace, selectors). */
export class InformerFactory {
  private readonly informers = new Map<string, Informer>();

  constructor(
    private readonly client: ObjectClient,
    private readonly log?: (msg: string, fields: Record<string, unknown>) => void,
  ) {}

  /** The informer of a resource, optionally scoped to a namespace and selectors (one per distinct scope). */
  informer(resource: ResourceRef, scope: { namespace?: string; fieldSelector?: string; labelSelector?: string } = {}): Informer {
    const id = `${resource.group}/${resource.version}/${resource.resource}/${scope.namespace ?? ""}?${scope.fieldSelector ?? ""}&${scope.labelSelector ?? ""}`;
    let inf = this.informers.get(id);
    if (!inf) {
      inf = new Informer(this.client, resource, { ...scope, log: this.log });
      this.informers.set(id, inf);
    }
    return inf;
  }

  /** Starts every informer made so far; resolves when all hold their first list. */
  async start(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.start()));
  }

  stop(): void {
    for (const i of this.informers.values()) i.stop();
  }
}
