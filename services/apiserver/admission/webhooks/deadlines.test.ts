/**
 * Deadlines on one timer, over a manual clock: which calls expire when, how many
 * timers are made (one per earliest deadline, none per finished call), and that
 * finished calls never expire.
 */
import { describe, expect, it } from "vitest";
import { Deadlines, type Clock } from "./deadlines.ts";

class ManualClock implements Clock {
  t = 0;
  timers = new Map<number, { at: number; fn: () => void }>();
  made = 0;
  private next = 0;

  now(): number {
    return this.t;
  }
  setTimer(fn: () => void, ms: number): unknown {
    this.made++;
    const id = this.next++;
    this.timers.set(id, { at: this.t + ms, fn });
    return id;
  }
  clearTimer(handle: unknown): void {
    this.timers.delete(handle as number);
  }
  /** Moves time to `to`, firing due timers in order. */
  advance(to: number): void {
    for (;;) {
      const due = [...this.timers.entries()].filter(([, t]) => t.at <= to).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.t = due[1].at;
      due[1].fn();
    }
    this.t = to;
  }
}

/** A script: at each time, start calls (name, timeout) and finish calls; expect the expiries that happened by then. */
interface Step {
  at: number;
  start?: Array<[string, number]>;
  finish?: string[];
  expired: string[];
}

const SCRIPTS: Array<{ name: string; steps: Step[]; timers: number }> = [
  {
    name: "sequential calls that finish make one timer, which finds nothing due",
    steps: [
      { at: 0, start: [["a", 1000]], expired: [] },
      { at: 10, finish: ["a"], start: [["b", 1000]], expired: [] },
      { at: 20, finish: ["b"], start: [["c", 1000]], expired: [] },
      { at: 30, finish: ["c"], expired: [] },
      { at: 5000, expired: [] },
    ],
    timers: 1,
  },
  {
    name: "a call that hangs expires at its own deadline; the timer is re-armed for the next",
    steps: [
      { at: 0, start: [["a", 1000]], expired: [] },
      { at: 500, start: [["b", 1000]], expired: [] },
      { at: 999, expired: [] },
      { at: 1000, expired: ["a"] },
      { at: 1499, expired: ["a"] },
      { at: 1500, expired: ["a", "b"] },
    ],
    timers: 2,
  },
  {
    name: "a shorter timeout started later re-arms earlier",
    steps: [
      { at: 0, start: [["long", 10_000]], expired: [] },
      { at: 100, start: [["short", 1000]], expired: [] },
      { at: 1100, expired: ["short"] },
      { at: 9999, expired: ["short"] },
      { at: 10_000, expired: ["short", "long"] },
    ],
    timers: 3,
  },
  {
    name: "finished calls ahead of a pending one are skipped",
    steps: [
      { at: 0, start: [["a", 1000], ["b", 1000], ["c", 1000]], expired: [] },
      { at: 100, finish: ["a", "b"], expired: [] },
      { at: 1000, expired: ["c"] },
    ],
    timers: 1,
  },
];

describe("Deadlines", () => {
  for (const s of SCRIPTS) {
    it(s.name, () => {
      const clock = new ManualClock();
      const deadlines = new Deadlines(clock);
      const handles = new Map<string, { finish(): void }>();
      const expired: string[] = [];
      for (const step of s.steps) {
        clock.advance(step.at);
        for (const name of step.finish ?? []) handles.get(name)?.finish();
        for (const [name, ms] of step.start ?? []) handles.set(name, deadlines.start(ms, () => expired.push(name)));
        expect(expired, `at ${step.at}`).toEqual(step.expired);
      }
      expect(clock.made).toBe(s.timers);
      expect(deadlines.pending()).toBe(0);
    });
  }

  it("holds a bounded queue while calls keep finishing", () => {
    const clock = new ManualClock();
    const deadlines = new Deadlines(clock);
    for (let i = 0; i < 100_000; i++) {
      clock.advance(i);
      deadlines.start(1000, () => undefined).finish();
    }
    expect(deadlines.pending()).toBe(0);
    expect(clock.made).toBeLessThan(200);
  });
});
