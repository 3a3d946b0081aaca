import { describe, expect, it } from "vitest";
import { SortedKeySet } from "./sorted-keys.ts";
import { rng } from "./testing/helpers.ts";

const item = (id: string) => ({ id });

describe("SortedKeySet", () => {
  it("matches a sorted array under random inserts, deletes and range scans", () => {
    const rand = rng(7);
    const set = new SortedKeySet<{ id: string }>();
    const ref = new Set<string>();
    const key = () => String.fromCharCode(...Array.from({ length: 1 + Math.floor(rand() * 3) }, () => 0x61 + Math.floor(rand() * 20)));
    for (let step = 0; step < 20_000; step++) {
      const k = key();
      if (rand() < 0.6) {
        expect(set.insert(item(k))).toBe(!ref.has(k));
        ref.add(k);
      } else {
        expect(set.delete(k)).toBe(ref.has(k));
        ref.delete(k);
      }
      if (step % 500 === 0) {
        const sorted = [...ref].sort();
        expect(set.toArray().map((x) => x.id)).toEqual(sorted);
        expect(set.size).toBe(sorted.length);
        const [lo, hi] = [key(), key()].sort();
        const got: string[] = [];
        set.forEachInRange(lo, hi, (x) => void got.push(x.id));
        expect(got).toEqual(sorted.filter((k2) => k2 >= lo && k2 < hi));
        const open: string[] = [];
        set.forEachInRange(lo, null, (x) => void open.push(x.id));
        expect(open).toEqual(sorted.filter((k2) => k2 >= lo));
      }
    }
    expect(set.size).toBeGreaterThan(1000); // enough to span several chunks
  });

  it("stops a scan when the callback returns false", () => {
    const set = SortedKeySet.fromSorted(["a", "b", "c", "d"].map(item));
    const seen: string[] = [];
    set.forEachInRange("b", null, (x) => {
      seen.push(x.id);
      return seen.length < 2;
    });
    expect(seen).toEqual(["b", "c"]);
  });
});
