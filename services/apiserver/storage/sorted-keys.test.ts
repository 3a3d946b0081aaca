/**
 * SortedKeys against a plain sorted array: every insert, delete, lookup and scan
 * agrees, with chunks small enough that splits, emptied chunks and merges all happen;
 * and the keys stay in bounded chunks (a change moves one chunk, not every key).
 */
import { describe, expect, it } from "vitest";
import { SortedKeys } from "./sorted-keys.ts";

function scanned(set: SortedKeys, start: string, limit = Infinity): string[] {
  const out: string[] = [];
  set.scan(start, (k) => {
    out.push(k);
    return out.length < limit;
  });
  return out;
}

function random(seed: number): (n: number) => number {
  let s = seed;
  return (n) => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s % n;
  };
}

describe("SortedKeys", () => {
  it("agrees with a sorted array over random inserts, deletes and scans", () => {
    const rnd = random(11);
    const set = new SortedKeys(4);
    let reference: string[] = [];
    for (let step = 0; step < 3000; step++) {
      const key = `/registry/core/configmaps/ns-${rnd(4)}/cm-${rnd(60)}`;
      // Phases: mostly inserts, then mostly deletes (chunks empty and merge), then mixed.
      const deleting = step < 1000 ? rnd(4) === 0 : step < 2000 ? rnd(4) !== 0 : rnd(2) === 0;
      if (deleting) {
        expect(set.delete(key)).toBe(reference.includes(key));
        reference = reference.filter((k) => k !== key);
      } else {
        expect(set.insert(key)).toBe(!reference.includes(key));
        if (!reference.includes(key)) reference = [...reference, key].sort();
      }
      expect(set.size).toBe(reference.length);
      const probe = `/registry/core/configmaps/ns-${rnd(4)}/cm-${rnd(60)}`;
      expect(set.has(probe)).toBe(reference.includes(probe));
      if (step % 7 === 0) {
        expect(scanned(set, "")).toEqual(reference);
        expect(scanned(set, probe)).toEqual(reference.filter((k) => k >= probe));
        expect(scanned(set, probe, 3)).toEqual(reference.filter((k) => k >= probe).slice(0, 3));
      }
      const sizes = set.chunkSizes();
      expect(sizes.every((n) => n > 0 && n <= 4)).toBe(true);
      expect(sizes.reduce((a, b) => a + b, 0)).toBe(reference.length);
    }
  });

  it("builds full chunks from sorted keys and keeps them bounded as keys are added", () => {
    const keys = Array.from({ length: 1000 }, (_, i) => `k-${String(i).padStart(4, "0")}`);
    const set = SortedKeys.fromSorted(keys, 64);
    expect(set.chunkSizes()).toEqual([...Array(15).fill(64), 40]);
    expect(scanned(set, "k-0500", 2)).toEqual(["k-0500", "k-0501"]);
    for (let i = 0; i < 1000; i++) set.insert(`k-${String(i).padStart(4, "0")}x`);
    expect(set.size).toBe(2000);
    expect(Math.max(...set.chunkSizes())).toBeLessThanOrEqual(64);
    expect(set.chunkSizes().length).toBeGreaterThan(2000 / 64);
    expect(scanned(set, "")).toEqual([...keys, ...keys.map((k) => `${k}x`)].sort());
  });

  it("scans nothing when empty and from past the last key", () => {
    const set = new SortedKeys(4);
    expect(scanned(set, "")).toEqual([]);
    expect(set.delete("a")).toBe(false);
    set.insert("b");
    set.insert("a");
    expect(scanned(set, "")).toEqual(["a", "b"]);
    expect(scanned(set, "c")).toEqual([]);
    expect(set.delete("a") && set.delete("b")).toBe(true);
    expect(set.chunkSizes()).toEqual([]);
  });
});
