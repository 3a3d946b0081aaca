import { describe, expect, it } from "vitest";
import { Inflights, Progress, ProgressState } from "./progress.ts";

describe("inflights", () => {
  it("fills, frees in order and wraps around", () => {
    const f = new Inflights(3);
    f.add(1);
    f.add(2);
    f.add(5);
    expect(f.full()).toBe(true);
    expect(() => f.add(6)).toThrow(/full/);
    f.freeLE(2);
    expect(f.count).toBe(1);
    f.add(7);
    f.add(9);
    expect(f.full()).toBe(true);
    f.freeLE(4); // nothing at or below 4 left
    expect(f.count).toBe(3);
    f.freeFirstOne();
    expect(f.count).toBe(2);
    f.freeLE(100);
    expect(f.count).toBe(0);
    f.add(10);
    expect(f.count).toBe(1);
  });
});

const pr = (match: number, next: number) => new Progress({ match, next, maxInflight: 4, isLearner: false });

describe("progress", () => {
  it("updates match and next on acknowledgements", () => {
    const p = pr(3, 5);
    expect(p.maybeUpdate(2)).toBe(false);
    expect(p.next).toBe(5);
    expect(p.maybeUpdate(6)).toBe(true);
    expect([p.match, p.next]).toEqual([6, 7]);
  });

  it.each([
    // replicate: stale rejections (<= match) are ignored, others reset next to match+1
    { state: ProgressState.Replicate, match: 5, next: 10, rejected: 5, hint: 5, ok: false, wantNext: 10 },
    { state: ProgressState.Replicate, match: 5, next: 10, rejected: 9, hint: 9, ok: true, wantNext: 6 },
    // probe: only the rejection of the outstanding probe counts
    { state: ProgressState.Probe, match: 0, next: 10, rejected: 8, hint: 3, ok: false, wantNext: 10 },
    { state: ProgressState.Probe, match: 0, next: 10, rejected: 9, hint: 3, ok: true, wantNext: 4 },
    { state: ProgressState.Probe, match: 0, next: 10, rejected: 9, hint: 20, ok: true, wantNext: 9 },
    { state: ProgressState.Probe, match: 5, next: 10, rejected: 9, hint: 1, ok: true, wantNext: 6 },
  ])("maybeDecrTo in state $state (match $match next $next) rejected=$rejected hint=$hint", ({ state, match, next, rejected, hint, ok, wantNext }) => {
    const p = pr(match, next);
    if (state === ProgressState.Replicate) {
      p.becomeReplicate();
      p.next = next;
    }
    expect(p.maybeDecrTo(rejected, hint)).toBe(ok);
    expect(p.next).toBe(wantNext);
  });

  it("pauses by state", () => {
    const p = pr(1, 2);
    expect(p.isPaused()).toBe(false);
    p.probeSent = true;
    expect(p.isPaused()).toBe(true);
    p.becomeReplicate();
    expect(p.isPaused()).toBe(false);
    for (let i = 0; i < 4; i++) p.inflights.add(i + 2);
    expect(p.isPaused()).toBe(true);
    p.becomeSnapshot(10);
    expect(p.isPaused()).toBe(true);
    p.becomeProbe();
    expect(p.next).toBe(11);
    expect(p.state).toBe(ProgressState.Probe);
  });
});
