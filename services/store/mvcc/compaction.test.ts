import { describe, expect, it } from "vitest";
import { ErrCompacted, ErrFutureRev } from "./errors.ts";
import { MvccStore } from "./store.ts";
import { b, changes, kvs, rng } from "./testing/helpers.ts";

function history(): MvccStore {
  const s = new MvccStore();
  s.put({ key: b("a"), value: b("1") }); // 2
  s.put({ key: b("a"), value: b("2") }); // 3
  s.put({ key: b("b"), value: b("1") }); // 4
  s.deleteRange({ key: b("b") }); // 5
  s.put({ key: b("c"), value: b("1") }); // 6
  s.deleteRange({ key: b("c") }); // 7
  s.put({ key: b("a"), value: b("3") }); // 8
  return s;
}

const all = { key: new Uint8Array([0]), rangeEnd: new Uint8Array([0]) };

describe("compaction", () => {
  it("makes reads below the compact revision fail and keeps reads at or above it exact", () => {
    const s = history();
    const expected = new Map<number, string[]>();
    for (let rev = 5; rev <= 8; rev++) expected.set(rev, kvs(s.range({ ...all, revision: rev }).kvs));
    s.compact(5);
    expect(s.compactRevision).toBe(5);
    for (const rev of [1, 2, 4]) {
      expect(() => s.range({ ...all, revision: rev })).toThrow(ErrCompacted);
      expect(() => s.range({ ...all, revision: rev })).toThrow("mvcc: required revision has been compacted");
    }
    for (let rev = 5; rev <= 8; rev++) expect(kvs(s.range({ ...all, revision: rev }).kvs)).toEqual(expected.get(rev));
    expect(kvs(s.range(all).kvs)).toEqual(["a=3@2/8/v3"]);
  });

  it("drops tombstones and superseded versions from the key index", () => {
    const s = history();
    expect(s.indexedKeys).toBe(3);
    s.compact(8);
    // b and c were deleted below 8: their keys are gone; a keeps only its live version
    expect(s.indexedKeys).toBe(1);
    const snap = MvccStore.fromSnapshot(s.snapshot());
    expect(kvs(snap.range(all).kvs)).toEqual(["a=3@2/8/v3"]);
    // only one stored entry remains for "a" (a smaller snapshot than before compaction)
    expect(s.snapshot().length).toBeLessThan(history().snapshot().length / 2);
  });

  it("keeps a delete exactly at the compact revision in the watch history", () => {
    const s = history();
    s.compact(7);
    expect(changes(s.changesSince(7))).toEqual(["7: DELETE c=@0/7/v0 prev c=1@6/6/v1", "8: PUT a=3@2/8/v3 prev a=2@2/3/v2"]);
    expect(() => s.changesSince(6)).toThrow(ErrCompacted);
    let thrown: unknown;
    try {
      s.changesSince(1);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ErrCompacted);
    expect((thrown as ErrCompacted).compactRevision).toBe(7);
    expect(s.range({ key: b("c"), revision: 7 }).count).toBe(0);
    expect(() => s.range({ key: b("c"), revision: 6 })).toThrow(ErrCompacted);
  });

  it("rejects compacting at or below the compact revision and above the current one", () => {
    const s = history();
    expect(() => s.compact(9)).toThrow(ErrFutureRev);
    s.compact(4);
    expect(() => s.compact(4)).toThrow(ErrCompacted);
    expect(() => s.compact(3)).toThrow(ErrCompacted);
    expect(s.compact(8).revision).toBe(8);
    expect(s.currentRevision).toBe(8);
  });

  it("repeated compactions keep the visible state and the history above them", () => {
    const s = new MvccStore();
    const seen: string[][] = [];
    for (let i = 0; i < 60; i++) {
      s.put({ key: b(`k${i % 7}`), value: b(String(i)) });
      if (i % 5 === 4) s.deleteRange({ key: b(`k${i % 3}`) });
      seen[s.currentRevision] = kvs(s.range(all).kvs);
      if (i % 10 === 9) s.compact(s.currentRevision - 3);
      for (let rev = s.compactRevision; rev <= s.currentRevision; rev++) {
        if (seen[rev] !== undefined) expect(kvs(s.range({ ...all, revision: rev }).kvs)).toEqual(seen[rev]);
      }
    }
    // the change history starts exactly at the compact revision
    expect(s.changesSince(s.compactRevision)[0].revision).toBe(s.compactRevision);
  });

  it("compacting at the current revision keeps the newest state and its change", () => {
    const s = history();
    s.compact(8);
    expect(changes(s.changesSince(8))).toEqual(["8: PUT a=3@2/8/v3 prev a=2@2/3/v2"]);
    s.put({ key: b("a"), value: b("4") });
    expect(kvs(s.range({ key: b("a") }).kvs)).toEqual(["a=4@2/9/v4"]);
  });
});

describe("compaction over a long mixed history", () => {
  it.each([3, 11, 99])("drops all it must and keeps reads, history and space in use equal to a store rebuilt from its snapshot (seed %i)", (seed) => {
    const next = rng(seed);
    const rand = (n: number) => Math.floor(next() * n);
    const s = new MvccStore();
    s.leaseGrant({ id: 5n, ttl: 60 });
    for (let step = 0; step < 3000; step++) {
      const key = b(`k${rand(60)}`);
      const op = rand(40);
      if (op < 24) s.put({ key, value: b("v".repeat(rand(50))) });
      else if (op < 32) s.deleteRange({ key });
      else if (op < 35) s.deleteRange({ key: b("k1"), rangeEnd: b("k2") });
      else if (op < 38) {
        // rolled back: the first put (possibly creating a key) is undone
        expect(() => s.txn({ success: [{ type: "put", request: { key: b(`new${step}`), value: b("x") } }, { type: "put", request: { key, value: b("y"), lease: 77n } }] })).toThrow();
      } else {
        const from = s.compactRevision + 1;
        if (from <= s.currentRevision) s.compact(from + rand(Math.min(200, s.currentRevision - from + 1)));
      }
      if (step % 500 === 499) {
        // nothing left below the compact revision but one put per key, its first entry
        for (const ki of s.snapshotView().keys) {
          const below = ki.generations.flatMap((g) => g.entries).filter((e) => e.main < s.compactRevision);
          expect(below.length).toBeLessThanOrEqual(1);
          if (below.length === 1) expect([below[0].kv !== null, ki.generations[0].entries[0]]).toEqual([true, below[0]]);
        }
        const rebuilt = MvccStore.fromSnapshot(s.snapshot());
        expect(s.space().inUse).toBe(rebuilt.space().inUse);
        expect(s.indexedKeys).toBe(rebuilt.indexedKeys);
        for (let rev = s.compactRevision; rev <= s.currentRevision; rev += 37) {
          if (rev < 1) continue;
          expect(kvs(s.range({ ...all, revision: rev }).kvs)).toEqual(kvs(rebuilt.range({ ...all, revision: rev }).kvs));
        }
        expect(changes(s.changesSince(Math.max(s.compactRevision, 2)))).toEqual(changes(rebuilt.changesSince(Math.max(rebuilt.compactRevision, 2))));
      }
    }
    expect(s.compactRevision).toBeGreaterThan(100);
  });
});
