import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Deadline } from "./deadline.ts";
import { DeadlineTimers } from "./deadline-timers.ts";

class Recorded extends Deadline {
  constructor(
    readonly name: string,
    expiresAt: number,
    private readonly fired: string[],
  ) {
    super(expiresAt);
  }
  override expireNow(): void {
    if (this.settled) return;
    this.fired.push(`${this.name}@${Date.now()}`);
    this.expire(new Error(this.name));
  }
}

describe("deadline timers", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  // [scheduled: name, at ms, duration ms; settled before they are due; expected expiries (name@time)]
  it.each([
    ["one deadline", [["a", 0, 100]], [], ["a@100"]],
    ["settled before the deadline", [["a", 0, 100]], ["a"], []],
    ["same duration, in order", [["a", 0, 100], ["b", 30, 100], ["c", 60, 100]], [], ["a@100", "b@130", "c@160"]],
    ["a settled head does not hold back the next", [["a", 0, 100], ["b", 30, 100]], ["a"], ["b@130"]],
    ["two durations each on time", [["long", 0, 300], ["short", 10, 50]], [], ["short@60", "long@300"]],
    ["only the pending one of three", [["a", 0, 100], ["b", 10, 100], ["c", 20, 100]], ["a", "c"], ["b@110"]],
  ] as const)("%s", async (_name, scheduled, settled, expected) => {
    const timers = new DeadlineTimers();
    const fired: string[] = [];
    const byName = new Map<string, Recorded>();
    for (const [name, at, ms] of scheduled) {
      await vi.advanceTimersByTimeAsync(at - Date.now());
      const d = new Recorded(name, Date.now() + ms, fired);
      byName.set(name, d);
      timers.schedule(ms, d);
    }
    for (const name of settled) byName.get(name)?.settle();
    await vi.advanceTimersByTimeAsync(1000);
    expect(fired).toEqual(expected);
    expect(timers.durations).toBe(0);
  });

  it("runs expiry callbacks once and keeps no queue once everything is settled", async () => {
    const timers = new DeadlineTimers();
    const d = new Deadline(Date.now() + 20);
    let calls = 0;
    d.onExpire(() => calls++);
    timers.schedule(20, d);
    await vi.advanceTimersByTimeAsync(25);
    d.expireNow();
    expect(calls).toBe(1);
    expect(d.expired).toBe(true);
    expect(timers.durations).toBe(0);
  });
});
