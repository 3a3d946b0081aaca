/**
 * The pure core of the etcd Watch feed: watch responses become strictly consecutive
 * revisions (tables), and the feed over a real etcd member is tested in
 * test/storage/etcd-backend*.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { PbEvent } from "../../../shared/etcd/wire.ts";
import { PROGRESS_SETTLE_MS, RevisionOrderError, RevisionSequencer } from "./etcd-watch-feed.ts";

function put(key: string, revision: number): PbEvent {
  const kv = { key: Buffer.from(key), value: Buffer.from("v"), create_revision: revision, mod_revision: revision, version: 1, lease: 0 };
  return { type: "PUT", kv } as unknown as PbEvent;
}

/** Each delivered revision with its keys ("" for a bridged one). */
const shape = (changes: Array<{ revision: number; changes: Array<{ key: string }> }>) => changes.map((c) => `${c.revision}:${c.changes.map((k) => k.key).join("+")}`);

describe("RevisionSequencer", () => {
  const eventCases: Array<{ name: string; last: number; events: PbEvent[]; want: string[] }> = [
    { name: "consecutive revisions pass unchanged", last: 4, events: [put("/a", 5), put("/b", 6)], want: ["5:/a", "6:/b"] },
    { name: "keys of one revision are one change", last: 4, events: [put("/a", 5), put("/b", 5), put("/c", 6)], want: ["5:/a+/b", "6:/c"] },
    { name: "a gap before an event is bridged", last: 4, events: [put("/a", 7)], want: ["5:", "6:", "7:/a"] },
    { name: "a gap between two events is bridged", last: 4, events: [put("/a", 5), put("/b", 8)], want: ["5:/a", "6:", "7:", "8:/b"] },
    { name: "no events, nothing delivered", last: 4, events: [], want: [] },
  ];
  for (const c of eventCases) {
    it(c.name, () => {
      const s = new RevisionSequencer(c.last);
      expect(shape(s.events(c.events))).toEqual(c.want);
      expect(s.last).toBe(c.want.length > 0 ? Number(c.want[c.want.length - 1].split(":")[0]) : c.last);
    });
  }

  it("refuses an event at or below a revision already delivered or bridged", () => {
    const s = new RevisionSequencer(4);
    s.progress(9);
    expect(() => s.events([put("/late", 7)])).toThrow(RevisionOrderError);
    expect(() => new RevisionSequencer(4).events([put("/old", 4)])).toThrow(RevisionOrderError);
  });

  const progressCases: Array<{ name: string; last: number; progress: number; want: string[] }> = [
    { name: "a progress notification bridges up to its revision", last: 4, progress: 7, want: ["5:", "6:", "7:"] },
    { name: "a progress notification at the position changes nothing", last: 4, progress: 4, want: [] },
    { name: "a progress notification behind the position changes nothing", last: 4, progress: 2, want: [] },
  ];
  for (const c of progressCases) {
    it(c.name, () => {
      expect(shape(new RevisionSequencer(c.last).progress(c.progress))).toEqual(c.want);
    });
  }

  it("ignores requested progress until the watch is synced", () => {
    const t0 = 1_000_000;
    const cases: Array<{ name: string; sync: (s: RevisionSequencer) => void; want: string[] }> = [
      { name: "created behind the store (replaying)", sync: (s) => s.created(9), want: [] },
      { name: "a replayed batch (header ahead of its events)", sync: (s) => s.events([put("/a", 5)], 9), want: [] },
      { name: "created at the store's revision", sync: (s) => s.created(4), want: ["5:", "6:"] },
      { name: "a live batch (header at its last event)", sync: (s) => s.events([put("/a", 5)], 5), want: ["6:"] },
      { name: "a progress notification of the watch", sync: (s) => s.progress(5), want: ["6:"] },
    ];
    for (const c of cases) {
      const s = new RevisionSequencer(4);
      c.sync(s);
      s.requestedProgress(6, t0);
      expect(shape(s.requestedProgress(9, t0 + PROGRESS_SETTLE_MS)), c.name).toEqual(c.want);
    }
  });

  it("bridges a requested progress only once a later answer confirms it (settle time)", () => {
    const s = new RevisionSequencer(4);
    s.created(4);
    const t0 = 1_000_000;
    const steps: Array<{ revision: number; at: number; want: string[] }> = [
      { revision: 6, at: t0, want: [] }, // first answer: remembered, not trusted yet
      { revision: 8, at: t0 + PROGRESS_SETTLE_MS - 1, want: [] }, // too soon: ignored
      { revision: 9, at: t0 + PROGRESS_SETTLE_MS, want: ["5:", "6:"] }, // the first answer's revision
      { revision: 9, at: t0 + 2 * PROGRESS_SETTLE_MS, want: ["7:", "8:", "9:"] },
      { revision: 9, at: t0 + 3 * PROGRESS_SETTLE_MS, want: [] },
    ];
    for (const step of steps) expect(shape(s.requestedProgress(step.revision, step.at))).toEqual(step.want);
  });
});
