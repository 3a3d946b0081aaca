import { describe, expect, it } from "vitest";
import {
  decodeEntry,
  decodeHardState,
  decodeSnapshotMeta,
  encodeEntry,
  encodeHardState,
  encodeSnapshotMeta,
} from "./codec.ts";
import { DecodeError } from "./errors.ts";
import type { Entry } from "./types.ts";

const MAX = Number.MAX_SAFE_INTEGER;

describe("codec", () => {
  it("round-trips entries, including extreme integers and empty data", () => {
    const cases: Entry[] = [
      { index: 1, term: 1, type: 0, data: new Uint8Array(0) },
      { index: MAX, term: MAX, type: 1, data: Uint8Array.from([0, 255, 128, 127]) },
      { index: 128, term: 16384, type: 0, data: new Uint8Array(70_000).fill(7) },
    ];
    for (const e of cases) expect(decodeEntry(encodeEntry(e))).toEqual(e);
    expect(encodeEntry(cases[0]).length).toBe(4);
  });

  it("round-trips hard states and snapshot metadata", () => {
    expect(decodeHardState(encodeHardState({ term: 5, vote: MAX, commit: 0 }))).toEqual({
      term: 5,
      vote: MAX,
      commit: 0,
    });
    const m = {
      index: 99,
      term: 4,
      confState: { voters: [1, 2], learners: [7], votersOutgoing: [1, 2, 3], learnersNext: [3], autoLeave: true },
    };
    expect(decodeSnapshotMeta(encodeSnapshotMeta(m))).toEqual(m);
  });

  it("refuses values it cannot encode exactly", () => {
    const e = (over: Partial<Entry>): Entry => ({ index: 1, term: 1, type: 0, data: new Uint8Array(0), ...over });
    expect(() => encodeEntry(e({ index: -1 }))).toThrow(RangeError);
    expect(() => encodeEntry(e({ term: 1.5 }))).toThrow(RangeError);
    expect(() => encodeEntry(e({ index: MAX + 1 }))).toThrow(RangeError);
    expect(() => encodeEntry({ ...e({}), type: 2 as unknown as 0 })).toThrow(RangeError);
    expect(() => encodeHardState({ term: NaN, vote: 0, commit: 0 })).toThrow(RangeError);
  });

  it("rejects truncated, padded and malformed payloads", () => {
    const b = encodeEntry({ index: 300, term: 2, type: 1, data: Uint8Array.from([1, 2, 3]) });
    for (let n = 0; n < b.length; n++) expect(() => decodeEntry(b.subarray(0, n))).toThrow(DecodeError);
    expect(() => decodeEntry(Uint8Array.from([...b, 0]))).toThrow(DecodeError);
    const badType = Uint8Array.from(b);
    badType[3] = 9; // index 300 takes 2 bytes, term 1 byte, then the type
    expect(() => decodeEntry(badType)).toThrow(/entry type/);
    expect(() => decodeHardState(new Uint8Array(9).fill(0xff))).toThrow(DecodeError);
  });
});
