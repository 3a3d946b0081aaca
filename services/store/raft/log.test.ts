import { describe, expect, it } from "vitest";
import type { Entry } from "./types.ts";
import { EntryType, emptyConfState } from "./types.ts";
import { MemoryStorage, RaftLog } from "./log.ts";
import { isRaftError } from "./errors.ts";

const e = (index: number, term: number, size = 0): Entry => ({ index, term, type: EntryType.Normal, data: new Uint8Array(size) });
const terms = (es: Entry[]) => es.map((x) => x.term);

function errCode(f: () => unknown): string | undefined {
  try {
    f();
  } catch (err) {
    for (const code of ["ErrCompacted", "ErrUnavailable", "ErrSnapOutOfDate"] as const) if (isRaftError(err, code)) return code;
    throw err;
  }
  return undefined;
}

describe("MemoryStorage", () => {
  function ms(): MemoryStorage {
    const s = new MemoryStorage();
    s.append([e(1, 1), e(2, 1), e(3, 2), e(4, 3), e(5, 3)]);
    return s;
  }

  it("answers term, entries, first and last index", () => {
    const s = ms();
    expect([s.firstIndex(), s.lastIndex()]).toEqual([1, 5]);
    expect(s.term(0)).toBe(0);
    expect(s.term(3)).toBe(2);
    expect(errCode(() => s.term(6))).toBe("ErrUnavailable");
    expect(terms(s.entries(2, 5, Infinity))).toEqual([1, 2, 3]);
    expect(errCode(() => s.entries(2, 7, Infinity))).toBe("ErrUnavailable");
  });

  it("limits entries by size but returns at least one", () => {
    const s = new MemoryStorage();
    s.append([e(1, 1, 10), e(2, 1, 10), e(3, 1, 10)]);
    expect(s.entries(1, 4, 0)).toHaveLength(1);
    expect(s.entries(1, 4, 52)).toHaveLength(2);
    expect(s.entries(1, 4, 1000)).toHaveLength(3);
  });

  it("truncates a conflicting suffix on append and refuses a gap", () => {
    const s = ms();
    s.append([e(4, 4), e(5, 4), e(6, 4)]);
    expect(terms(s.entries(1, 7, Infinity))).toEqual([1, 1, 2, 4, 4, 4]);
    s.append([e(2, 5)]);
    expect(terms(s.entries(1, 3, Infinity))).toEqual([1, 5]);
    expect(() => s.append([e(9, 5)])).toThrow(/missing log entry/);
  });

  it("creates snapshots, compacts and applies snapshots", () => {
    const s = ms();
    const cs = { ...emptyConfState(), voters: [1, 2, 3] };
    const snap = s.createSnapshot(3, cs, new Uint8Array([7]));
    expect(snap.metadata).toMatchObject({ index: 3, term: 2, confState: cs });
    expect(errCode(() => s.createSnapshot(2, cs, new Uint8Array()))).toBe("ErrSnapOutOfDate");
    s.compact(3);
    expect([s.firstIndex(), s.lastIndex()]).toEqual([4, 5]);
    expect(s.term(3)).toBe(2);
    expect(errCode(() => s.term(2))).toBe("ErrCompacted");
    expect(errCode(() => s.entries(3, 5, Infinity))).toBe("ErrCompacted");
    expect(errCode(() => s.compact(2))).toBe("ErrCompacted");
    // Entries before the first index are ignored on append.
    s.append([e(3, 2), e(4, 3), e(5, 3), e(6, 3)]);
    expect(s.lastIndex()).toBe(6);
    s.applySnapshot({ data: new Uint8Array(), metadata: { index: 10, term: 4, confState: cs } });
    expect([s.firstIndex(), s.lastIndex(), s.term(10)]).toEqual([11, 10, 4]);
    expect(errCode(() => s.applySnapshot({ data: new Uint8Array(), metadata: { index: 9, term: 4, confState: cs } }))).toBe("ErrSnapOutOfDate");
  });
});

describe("RaftLog", () => {
  function log(): RaftLog {
    const s = new MemoryStorage();
    s.append([e(1, 1), e(2, 2), e(3, 2)]);
    return new RaftLog(s);
  }

  it("appends unstable entries over stable ones and reports stability", () => {
    const l = log();
    l.append([e(3, 3), e(4, 3)]);
    expect(l.lastIndex()).toBe(4);
    expect(l.term(3)).toBe(3);
    expect(terms(l.unstableEntries())).toEqual([3, 3]);
    expect(terms(l.slice(1, 5, Infinity))).toEqual([1, 2, 3, 3]);
    // A stale acknowledgement (wrong term) does not mark anything stable.
    l.stableTo(4, 2);
    expect(l.unstableEntries()).toHaveLength(2);
    l.stableTo(4, 3);
    expect(l.unstableEntries()).toHaveLength(0);
  });

  it("refuses to truncate committed entries", () => {
    const l = log();
    l.commitTo(3);
    expect(() => l.maybeAppend(1, 1, 3, [e(2, 5)])).toThrow(/conflicts with committed/);
    expect(() => l.commitTo(9)).toThrow(/out of range/);
  });

  it.each([
    { index: 3, term: 2, want: [3, 2] },
    { index: 3, term: 1, want: [1, 1] },
    { index: 3, term: 5, want: [3, 2] },
    { index: 2, term: 0, want: [0, 0] },
    { index: 9, term: 2, want: [9, 0] },
  ])("findConflictByTerm($index, $term) = $want", ({ index, term, want }) => {
    expect(log().findConflictByTerm(index, term)).toEqual(want);
  });

  it("hands out committed entries once, in order", () => {
    const l = log();
    l.commitTo(2);
    expect(l.nextEnts().map((x) => x.index)).toEqual([1, 2]);
    l.appliedTo(2);
    expect(l.hasNextEnts()).toBe(false);
    l.commitTo(3);
    expect(l.nextEnts().map((x) => x.index)).toEqual([3]);
  });

  it("is up to date by last term, then by last index (§5.4.1)", () => {
    const l = log();
    expect(l.isUpToDate(3, 2)).toBe(true);
    expect(l.isUpToDate(2, 2)).toBe(false);
    expect(l.isUpToDate(1, 3)).toBe(true);
    expect(l.isUpToDate(10, 1)).toBe(false);
  });
});
