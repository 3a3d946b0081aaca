import { describe, expect, it } from "vitest";
import { RevisionSnapshots } from "./revision-snapshots.ts";

/** One write: a key set to a value (a string) or deleted (undefined), at a time. */
type Op = [revision: number, key: string, value: string | undefined, timeMs?: number];

/**
 * Drives the core as the watch cache does (a current map plus one record per change)
 * and keeps a full copy of the state per revision as the model to compare with.
 */
function drive(start: Record<string, string>, ops: Op[], limits = { retainMs: 75_000, maxChanges: 1000 }, startRevision = 10) {
  const current = new Map(Object.entries(start));
  const snaps = new RevisionSnapshots<string>(limits);
  snaps.reset(startRevision);
  const model = new Map<number, Map<string, string>>([[startRevision, new Map(current)]]);
  let now = 0;
  for (const [revision, key, value, timeMs] of ops) {
    now = timeMs ?? now;
    const before = current.get(key);
    if (value === undefined) current.delete(key);
    else current.set(key, value);
    snaps.record(key, revision, before, value !== undefined, now);
    snaps.advance(revision, now);
    model.set(revision, new Map(current));
  }
  const listNow = (prefix: string, from = prefix): Array<[string, string]> =>
    [...current.entries()].filter(([k]) => k.startsWith(prefix) && k >= from).sort(([a], [b]) => (a < b ? -1 : 1));
  const listAt = (revision: number, prefix: string, from = prefix) => snaps.listAt(revision, prefix, from, listNow(prefix, from));
  const modelAt = (revision: number, prefix: string, from = prefix): Array<[string, string]> => {
    const rev = Math.max(...[...model.keys()].filter((r) => r <= revision));
    return [...(model.get(rev) ?? new Map<string, string>()).entries()].filter(([k]) => k.startsWith(prefix) && k >= from).sort(([a], [b]) => (a < b ? -1 : 1));
  };
  return { snaps, listAt, modelAt, advance: (rev: number, t: number) => snaps.advance(rev, t) };
}

describe("RevisionSnapshots", () => {
  const cases: Array<{ name: string; start: Record<string, string>; ops: Op[]; at: number; prefix: string; from?: string; want: Array<[string, string]> }> = [
    { name: "no change since the revision: the current state", start: { "/a/1": "x" }, ops: [], at: 10, prefix: "/a/", want: [["/a/1", "x"]] },
    { name: "an update after the revision is undone", start: { "/a/1": "x", "/a/2": "y" }, ops: [[11, "/a/1", "x2"]], at: 10, prefix: "/a/", want: [["/a/1", "x"], ["/a/2", "y"]] },
    { name: "the update is seen at its own revision", start: { "/a/1": "x" }, ops: [[11, "/a/1", "x2"]], at: 11, prefix: "/a/", want: [["/a/1", "x2"]] },
    { name: "a create after the revision is hidden", start: { "/a/1": "x" }, ops: [[11, "/a/0", "new"]], at: 10, prefix: "/a/", want: [["/a/1", "x"]] },
    { name: "a delete after the revision is restored in key order", start: { "/a/1": "x", "/a/2": "y", "/a/3": "z" }, ops: [[11, "/a/2", undefined]], at: 10, prefix: "/a/", want: [["/a/1", "x"], ["/a/2", "y"], ["/a/3", "z"]] },
    { name: "several changes of one key: the first one after the revision wins", start: { "/a/1": "v0" }, ops: [[11, "/a/1", "v1"], [12, "/a/1", "v2"], [13, "/a/1", undefined], [14, "/a/1", "v4"]], at: 12, prefix: "/a/", want: [["/a/1", "v2"]] },
    { name: "deleted then recreated: absent in between", start: { "/a/1": "v0" }, ops: [[11, "/a/1", undefined], [12, "/a/1", "v2"]], at: 11, prefix: "/a/", want: [] },
    { name: "other prefixes are left out", start: { "/a/1": "x", "/b/1": "y" }, ops: [[11, "/b/1", undefined], [12, "/b/2", "n"]], at: 10, prefix: "/a/", want: [["/a/1", "x"]] },
    { name: "a start key skips earlier keys, deleted ones included", start: { "/a/1": "x", "/a/2": "y", "/a/3": "z" }, ops: [[11, "/a/1", undefined], [12, "/a/3", undefined]], at: 10, prefix: "/a/", from: "/a/2", want: [["/a/2", "y"], ["/a/3", "z"]] },
    { name: "between two changes: the older one stays", start: {}, ops: [[11, "/a/1", "p"], [15, "/a/1", "q"]], at: 13, prefix: "/a/", want: [["/a/1", "p"]] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const d = drive(c.start, c.ops);
      expect(d.listAt(c.at, c.prefix, c.from)).toEqual(c.want);
      expect(d.listAt(c.at, c.prefix, c.from)).toEqual(d.modelAt(c.at, c.prefix, c.from ?? c.prefix));
    });
  }

  const windows: Array<{ name: string; ops: Op[]; limits: { retainMs: number; maxChanges: number }; nowMs: number; covered: number[]; notCovered: number[] }> = [
    { name: "everything since the start within the time window", ops: [[11, "/a/1", "x", 0], [12, "/a/2", "y", 1000]], limits: { retainMs: 75_000, maxChanges: 100 }, nowMs: 2000, covered: [10, 11, 12], notCovered: [9, 13] },
    { name: "changes older than the window leave, and the revisions before them", ops: [[11, "/a/1", "x", 0], [12, "/a/2", "y", 50_000], [13, "/a/3", "z", 80_000]], limits: { retainMs: 75_000, maxChanges: 100 }, nowMs: 80_000, covered: [11, 12, 13], notCovered: [10] },
    { name: "the count bound drops the oldest records", ops: [[11, "/a/1", "x", 0], [12, "/a/1", "y", 0], [13, "/a/1", "z", 0]], limits: { retainMs: 75_000, maxChanges: 2 }, nowMs: 0, covered: [11, 12, 13], notCovered: [10] },
    { name: "time passing without writes empties the window down to the latest revision", ops: [[11, "/a/1", "x", 0], [12, "/a/1", "y", 0]], limits: { retainMs: 1000, maxChanges: 100 }, nowMs: 5000, covered: [12], notCovered: [10, 11] },
  ];
  for (const w of windows) {
    it(`window: ${w.name}`, () => {
      const d = drive({}, w.ops, w.limits);
      d.snaps.trim(w.nowMs);
      for (const r of w.covered) expect([r, d.snaps.covers(r)]).toEqual([r, true]);
      for (const r of w.notCovered) expect([r, d.snaps.covers(r)]).toEqual([r, false]);
      for (const r of w.notCovered) expect(d.listAt(r, "/a/")).toBeUndefined();
      for (const r of w.covered) expect(d.listAt(r, "/a/")).toEqual(d.modelAt(r, "/a/"));
    });
  }

  it("compaction: revisions below the compacted one are no longer served, later ones still are", () => {
    const d = drive({ "/a/1": "x" }, [[11, "/a/1", "y", 0], [12, "/a/2", "z", 0], [13, "/a/1", undefined, 0]]);
    d.snaps.compact(12);
    expect([10, 11, 12, 13].map((r) => d.snaps.covers(r))).toEqual([false, false, true, true]);
    expect(d.listAt(12, "/a/")).toEqual([["/a/1", "y"], ["/a/2", "z"]]);
    expect(d.snaps.size).toBe(1);
    d.snaps.compact(20); // beyond the latest revision: nothing is served until the cache gets there
    expect(d.snaps.covers(13)).toBe(false);
    d.snaps.record("/a/3", 20, undefined, true, 0);
    d.snaps.advance(20, 0);
    expect(d.snaps.covers(20)).toBe(true);
  });

  it("a deleted key leaves the index with its last record", () => {
    const d = drive({ "/a/1": "x" }, [[11, "/a/1", undefined, 0], [12, "/a/2", "y", 10_000]], { retainMs: 5000, maxChanges: 100 });
    d.snaps.trim(10_000);
    expect(d.snaps.size).toBe(1);
    expect(d.listAt(11, "/a/")).toEqual([]);
    expect(d.snaps.covers(10)).toBe(false);
  });

  it("clear: no snapshot until reset; reset starts at the given revision", () => {
    const d = drive({ "/a/1": "x" }, [[11, "/a/1", "y", 0]]);
    d.snaps.clear();
    expect(d.snaps.covers(11)).toBe(false);
    d.snaps.record("/a/1", 12, "y", true, 0);
    expect(d.snaps.size).toBe(0);
    d.snaps.reset(20);
    expect([d.snaps.covers(19), d.snaps.covers(20)]).toEqual([false, true]);
  });

  it("matches the full-copy model over random histories, bounded by maxChanges", () => {
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    for (let round = 0; round < 20; round++) {
      const ops: Op[] = [];
      let rev = 10;
      for (let i = 0; i < 200; i++) {
        rev += 1 + rand(3);
        const key = `/${"ab"[rand(2)]}/${rand(12)}`;
        ops.push([rev, key, rand(4) === 0 ? undefined : `v${i}`, i]);
      }
      const limits = { retainMs: 1_000_000, maxChanges: 50 + rand(200) };
      const d = drive({ "/a/0": "s0", "/a/5": "s5", "/b/3": "s3" }, ops, limits);
      expect(d.snaps.size).toBeLessThanOrEqual(limits.maxChanges);
      for (let r = d.snaps.oldestRevision; r <= rev; r++) {
        const from = `/a/${rand(12)}`;
        expect(d.listAt(r, "/a/", from)).toEqual(d.modelAt(r, "/a/", from));
        expect(d.listAt(r, "/b/")).toEqual(d.modelAt(r, "/b/"));
      }
      expect(d.listAt(d.snaps.oldestRevision - 1, "/a/")).toBeUndefined();
    }
  });
});
