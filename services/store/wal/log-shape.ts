// The index/term shape of the log, shared by replay and by the writer so that
// a save accepted now is exactly what replay will accept later.
//
// Rules (the last write of an index wins):
// - an entry at lastIndex+1 appends;
// - an entry at an index already held overwrites it and drops everything after;
// - an entry at or below `base` (covered by a snapshot), or beyond lastIndex+1
//   (a gap), is refused;
// - a snapshot marker (index, term) whose entry is held with the same term
//   compacts the log up to it; any other newer marker (an installed snapshot)
//   discards the whole log and restarts it after the snapshot; a marker at or
//   below `base` changes nothing.

export type MarkerEffect = "ignored" | "compacted" | "reset";

export class LogShape {
  /** Entries start at base + 1. */
  base: number;
  /** terms[i] is the term of entry base + 1 + i. */
  private terms: number[] = [];

  constructor(base: number) {
    this.base = base;
  }

  lastIndex(): number {
    return this.base + this.terms.length;
  }

  /** Why an entry at `index` may not be written now, or undefined if it may. */
  refuse(index: number): string | undefined {
    if (index <= this.base) return `entry ${index} is at or below the snapshot/base index ${this.base}`;
    if (index > this.lastIndex() + 1) return `entry ${index} leaves a gap after last index ${this.lastIndex()}`;
    return undefined;
  }

  /** Caller has checked refuse(). Returns how many held entries are kept before it. */
  append(index: number, term: number): number {
    const keep = index - this.base - 1;
    this.terms.length = keep;
    this.terms.push(term);
    return keep;
  }

  marker(index: number, term: number): MarkerEffect {
    if (index <= this.base) return "ignored";
    if (index <= this.lastIndex() && this.terms[index - this.base - 1] === term) {
      this.terms = this.terms.slice(index - this.base);
      this.base = index;
      return "compacted";
    }
    this.terms = [];
    this.base = index;
    return "reset";
  }
}
