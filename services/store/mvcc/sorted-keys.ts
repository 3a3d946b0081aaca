import type { KeyId } from "./keys.ts";

const MAX_CHUNK = 512;

/**
 * An ordered set of key ids kept as a list of sorted chunks of at most 512 ids.
 * Locating a key is two binary searches; inserting or removing moves at most one
 * chunk's worth of elements (plus, on a split, the chunk list), so a put of a new key
 * costs O(log n + 512) instead of the O(n) of one flat sorted array.
 */
export class SortedKeySet {
  private chunks: KeyId[][] = [];
  private count = 0;

  static fromSorted(ids: readonly KeyId[]): SortedKeySet {
    const set = new SortedKeySet();
    const half = MAX_CHUNK / 2;
    for (let i = 0; i < ids.length; i += half) set.chunks.push(ids.slice(i, i + half));
    set.count = ids.length;
    return set;
  }

  get size(): number {
    return this.count;
  }

  /** Index of the first chunk whose last id is >= id (chunks.length if none). */
  private chunkFor(id: KeyId): number {
    let lo = 0;
    let hi = this.chunks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const chunk = this.chunks[mid];
      if (chunk[chunk.length - 1] < id) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Adds id; returns false if it was already present. */
  insert(id: KeyId): boolean {
    if (this.chunks.length === 0) {
      this.chunks.push([id]);
      this.count = 1;
      return true;
    }
    let ci = this.chunkFor(id);
    if (ci === this.chunks.length) ci--;
    const chunk = this.chunks[ci];
    const at = lowerBound(chunk, id);
    if (chunk[at] === id) return false;
    chunk.splice(at, 0, id);
    this.count++;
    if (chunk.length > MAX_CHUNK) this.chunks.splice(ci + 1, 0, chunk.splice(chunk.length >>> 1));
    return true;
  }

  /** Removes id; returns false if it was absent. */
  delete(id: KeyId): boolean {
    const ci = this.chunkFor(id);
    if (ci === this.chunks.length) return false;
    const chunk = this.chunks[ci];
    const at = lowerBound(chunk, id);
    if (chunk[at] !== id) return false;
    chunk.splice(at, 1);
    if (chunk.length === 0) this.chunks.splice(ci, 1);
    this.count--;
    return true;
  }

  /**
   * Calls fn for each id in [start, end) in order (end null: unbounded) until fn
   * returns false.
   */
  forEachInRange(start: KeyId, end: KeyId | null, fn: (id: KeyId) => boolean | void): void {
    for (let ci = this.chunkFor(start); ci < this.chunks.length; ci++) {
      const chunk = this.chunks[ci];
      for (let i = chunk[0] < start ? lowerBound(chunk, start) : 0; i < chunk.length; i++) {
        const id = chunk[i];
        if (end !== null && id >= end) return;
        if (fn(id) === false) return;
      }
    }
  }

  toArray(): KeyId[] {
    return this.chunks.flat();
  }
}

function lowerBound(arr: readonly KeyId[], id: KeyId): number {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (arr[mid] < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
