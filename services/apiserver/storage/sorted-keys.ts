/**
 * An ordered set of keys with cheap inserts and deletes: the keys live in sorted chunks
 * of at most `maxChunk` keys (a B-tree of one level), so a change moves the entries of
 * one chunk only, not of every key (one array splice over 100,000 keys moved all of
 * them), and finding a key is a binary search over the chunks' first keys, then one
 * within its chunk. Iteration is in key order from any start key.
 *
 * Invariants: no chunk is empty; each chunk is sorted; every key of a chunk is below
 * every key of the next; `firsts[i] === chunks[i][0]`.
 */
export const DEFAULT_MAX_CHUNK = 512;

/** The first index of sorted `keys` whose key is not below `target` (keys.length when none). */
export function lowerBound(keys: readonly string[], target: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid] < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class SortedKeys {
  private chunks: string[][] = [];
  private firsts: string[] = [];
  private count = 0;

  constructor(private readonly maxChunk = DEFAULT_MAX_CHUNK) {}

  /** A set of `sorted` (ascending, distinct) keys, in full chunks. */
  static fromSorted(sorted: readonly string[], maxChunk = DEFAULT_MAX_CHUNK): SortedKeys {
    const set = new SortedKeys(maxChunk);
    for (let i = 0; i < sorted.length; i += maxChunk) {
      const chunk = sorted.slice(i, i + maxChunk);
      set.chunks.push(chunk);
      set.firsts.push(chunk[0]);
    }
    set.count = sorted.length;
    return set;
  }

  get size(): number {
    return this.count;
  }

  /** The chunk that holds `key` if present (the last whose first key is not above it; 0 for a key below all). */
  private chunkOf(key: string): number {
    const firsts = this.firsts;
    let lo = 0;
    let hi = firsts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (firsts[mid] <= key) lo = mid + 1;
      else hi = mid;
    }
    return lo > 0 ? lo - 1 : 0;
  }

  has(key: string): boolean {
    if (this.count === 0) return false;
    const chunk = this.chunks[this.chunkOf(key)];
    return chunk[lowerBound(chunk, key)] === key;
  }

  /** Adds `key`; false when it was there already. */
  insert(key: string): boolean {
    if (this.count === 0) {
      this.chunks.push([key]);
      this.firsts.push(key);
      this.count = 1;
      return true;
    }
    const c = this.chunkOf(key);
    const chunk = this.chunks[c];
    const i = lowerBound(chunk, key);
    if (chunk[i] === key) return false;
    chunk.splice(i, 0, key);
    if (i === 0) this.firsts[c] = key;
    this.count++;
    if (chunk.length > this.maxChunk) {
      const upper = chunk.splice(chunk.length >>> 1);
      this.chunks.splice(c + 1, 0, upper);
      this.firsts.splice(c + 1, 0, upper[0]);
    }
    return true;
  }

  /** Removes `key`; false when it was not there. */
  delete(key: string): boolean {
    if (this.count === 0) return false;
    const c = this.chunkOf(key);
    const chunk = this.chunks[c];
    const i = lowerBound(chunk, key);
    if (chunk[i] !== key) return false;
    chunk.splice(i, 1);
    this.count--;
    if (chunk.length === 0) {
      this.chunks.splice(c, 1);
      this.firsts.splice(c, 1);
      return true;
    }
    if (i === 0) this.firsts[c] = chunk[0];
    this.mergeSmall(c);
    return true;
  }

  /** A chunk shrunk below a quarter is joined to its next neighbour when both fit in one, so chunks stay few. */
  private mergeSmall(c: number): void {
    const chunk = this.chunks[c];
    if (chunk.length * 4 >= this.maxChunk || c + 1 >= this.chunks.length) return;
    const next = this.chunks[c + 1];
    if (chunk.length + next.length > this.maxChunk) return;
    for (const k of next) chunk.push(k);
    this.chunks.splice(c + 1, 1);
    this.firsts.splice(c + 1, 1);
  }

  /** Calls `visit` with each key not below `start`, in order, until it returns false. */
  scan(start: string, visit: (key: string) => boolean): void {
    if (this.count === 0) return;
    const chunks = this.chunks;
    let c = this.chunkOf(start);
    let i = lowerBound(chunks[c], start);
    for (; c < chunks.length; c++, i = 0) {
      const chunk = chunks[c];
      for (; i < chunk.length; i++) if (!visit(chunk[i])) return;
    }
  }

  /** The chunks' sizes, in order (for tests of the layout). */
  chunkSizes(): number[] {
    return this.chunks.map((c) => c.length);
  }
}
