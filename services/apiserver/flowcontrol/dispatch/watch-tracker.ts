/**
 * The open watches of one replica, counted as the platform's watch tracker counts them for
 * the work estimate of writes: by (API group, resource, namespace, name) of the watch
 * request; selectors are ignored (every event has to be checked against them anyway).
 * A write is of interest to the watches of its whole resource, those of its namespace and
 * those of its very object. Read-only verbs have no interested watches. Deterministic and
 * synchronous; `register` returns the function that forgets the watch (once).
 */

/** What identifies a group of similar watches (and the object a write touches). */
export interface WatchScope {
  apiGroup: string;
  resource: string;
  namespace: string;
  name: string;
}

const READ_ONLY_VERBS = new Set(["get", "list", "watch", "proxy"]);

function keyOf(apiGroup: string, resource: string, namespace = "", name = ""): string {
  return `${apiGroup}\u0000${resource}\u0000${namespace}\u0000${name}`;
}

export class WatchTracker {
  private readonly counts = new Map<string, number>();

  /** Counts one open watch; the returned function forgets it (later calls do nothing). */
  register(scope: WatchScope): () => void {
    const key = keyOf(scope.apiGroup, scope.resource, scope.namespace, scope.name);
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    let forgotten = false;
    return () => {
      if (forgotten) return;
      forgotten = true;
      const left = (this.counts.get(key) ?? 1) - 1;
      if (left > 0) this.counts.set(key, left);
      else this.counts.delete(key);
    };
  }

  /** The watches that may receive an event of a request with this verb on this object. */
  interestedCount(verb: string, scope: WatchScope): number {
    if (READ_ONLY_VERBS.has(verb)) return 0;
    let n = this.counts.get(keyOf(scope.apiGroup, scope.resource)) ?? 0;
    if (scope.namespace !== "") n += this.counts.get(keyOf(scope.apiGroup, scope.resource, scope.namespace)) ?? 0;
    if (scope.name !== "") n += this.counts.get(keyOf(scope.apiGroup, scope.resource, scope.namespace, scope.name)) ?? 0;
    return n;
  }

  /** Open watches in all (for tests and dumps). */
  get size(): number {
    let n = 0;
    for (const c of this.counts.values()) n += c;
    return n;
  }
}
