import { describe, expect, it } from "vitest";
import { QueueSet, type Decision, type QueueSetMode, type SeatRequest, type SeatRequestSpec } from "./queue-set.ts";
import { RetryAfterTracker } from "./retry-after.ts";
import { dealHand, flowHash } from "./shuffle-shard.ts";

class Clock {
  t = 0;
  readonly now = (): number => this.t;
}

const QUEUE: QueueSetMode = { type: "Queue", queues: 8, handSize: 2, queueLengthLimit: 4 };

function spec(flowSchema: string, distinguisher: string, seats = 1, decisions?: Decision[]): SeatRequestSpec {
  return { flowSchema, distinguisher, hash: flowHash(flowSchema, distinguisher), seats, onDecision: decisions && ((d) => decisions.push(d)) };
}

describe("shuffle sharding", () => {
  it("deals distinct cards within the deck, the same hand for the same flow", () => {
    for (let i = 0; i < 500; i++) {
      const hash = flowHash("fs", `user-${i}`);
      const hand = dealHand(hash, 64, 6);
      expect(new Set(hand).size).toBe(6);
      for (const card of hand) expect(card >= 0 && card < 64).toBe(true);
      expect(dealHand(hash, 64, 6)).toEqual(hand);
    }
    expect(dealHand(0n, 4, 4).sort()).toEqual([0, 1, 2, 3]);
    expect(flowHash("a", "b")).not.toBe(flowHash("a\u0000", "b".slice(1)));
  });
});

describe("queue set", () => {
  it("exempt: every request executes, seats are counted", () => {
    const clock = new Clock();
    const qs = new QueueSet("exempt", { type: "Exempt" }, 0, clock.now);
    const reqs = [1, 2, 3].map(() => qs.start(spec("exempt", "", 3)));
    expect(reqs.every((r) => r.state === "executing")).toBe(true);
    expect(qs.seatsInUse).toBe(9);
    for (const r of reqs) qs.finish(r);
    expect(qs.isIdle).toBe(true);
  });

  it("reject: requests beyond the limit get concurrency-limit; a request wider than the limit runs alone", () => {
    const qs = new QueueSet("catch-all", { type: "Reject" }, 2, new Clock().now);
    const a = qs.start(spec("catch-all", "", 1));
    const b = qs.start(spec("catch-all", "", 1));
    const c = qs.start(spec("catch-all", "", 1));
    expect([a.state, b.state, c.state]).toEqual(["executing", "executing", "rejected"]);
    expect(c.decision).toBe("concurrency-limit");
    qs.finish(a);
    qs.finish(b);
    const wide = qs.start(spec("catch-all", "", 5));
    expect(wide.state).toBe("executing");
    expect(qs.start(spec("catch-all", "", 1)).decision).toBe("concurrency-limit");
    expect(qs.dump()).toMatchObject({ dispatched: 3, rejected: 2 });
  });

  it("queue: waits when the seats are taken, rejects queue-full past the queue length limit, dispatches on finish", () => {
    const qs = new QueueSet("pl", { type: "Queue", queues: 1, handSize: 1, queueLengthLimit: 2 }, 1, new Clock().now);
    const decisions: Decision[] = [];
    const running = qs.start(spec("fs", "u"));
    const w1 = qs.start(spec("fs", "u", 1, decisions));
    const w2 = qs.start(spec("fs", "u", 1, decisions));
    const full = qs.start(spec("fs", "u"));
    expect([running.state, w1.state, w2.state, full.state]).toEqual(["executing", "waiting", "waiting", "rejected"]);
    expect(full.decision).toBe("queue-full");
    expect(qs.demand).toBe(3);
    qs.finish(running);
    expect(w1.state).toBe("executing");
    expect(decisions).toEqual(["execute"]);
    qs.cancel(w2, "time-out");
    expect(w2.decision).toBe("time-out");
    expect(decisions).toEqual(["execute", "time-out"]);
    qs.finish(w1);
    expect(qs.isIdle).toBe(true);
    expect(qs.dump()).toMatchObject({ dispatched: 2, rejected: 1, timedOut: 1, cancelled: 0 });
  });

  it("a raised limit (borrowing) dispatches waiting requests at once", () => {
    const qs = new QueueSet("pl", QUEUE, 1, new Clock().now);
    qs.start(spec("fs", "a"));
    const waiting = qs.start(spec("fs", "b"));
    expect(waiting.state).toBe("waiting");
    qs.setLimit(2);
    expect(waiting.state).toBe("executing");
  });

  it("a wide request waits until its seats are free; it is not overtaken forever by narrow ones", () => {
    const clock = new Clock();
    const qs = new QueueSet("pl", { type: "Queue", queues: 2, handSize: 1, queueLengthLimit: 100 }, 4, clock.now);
    const wideHash = [...Array(50).keys()].map((i) => `w${i}`).find((d) => dealHand(flowHash("fs", d), 2, 1)[0] === 0) ?? "";
    const narrowHash = [...Array(50).keys()].map((i) => `n${i}`).find((d) => dealHand(flowHash("fs", d), 2, 1)[0] === 1) ?? "";
    const executing: SeatRequest[] = [];
    for (let i = 0; i < 4; i++) executing.push(qs.start(spec("fs", narrowHash)));
    const wide = qs.start(spec("fs", wideHash, 4));
    for (let i = 0; i < 20; i++) qs.start(spec("fs", narrowHash));
    let steps = 0;
    while (wide.state === "waiting" && steps < 100) {
      clock.t += 5;
      const done = executing.shift();
      if (done) qs.finish(done);
      for (const r of qs.dump().queues.flatMap((q) => q.executing)) if (!executing.includes(r)) executing.push(r);
      steps++;
    }
    expect(wide.state).toBe("executing");
    expect(steps).toBeLessThan(12);
  });

  it("simulation: a flood from one flow does not starve another flow of the same level", () => {
    const clock = new Clock();
    const qs = new QueueSet("pl", { type: "Queue", queues: 64, handSize: 6, queueLengthLimit: 50 }, 4, clock.now);
    const waits: Record<string, number[]> = { noisy: [], tenant: [] };
    const running: Array<{ req: SeatRequest; endsAt: number }> = [];
    const start = (who: "noisy" | "tenant", seats: number, serviceMs: number): void => {
      const arrived = clock.t;
      const req = qs.start({
        ...spec("fs", who, seats),
        onDecision: (d) => {
          if (d === "execute") {
            waits[who].push(clock.t - arrived);
            running.push({ req, endsAt: clock.t + serviceMs });
          }
        },
      });
      if (req.state === "executing" && !running.some((r) => r.req === req)) {
        waits[who].push(0);
        running.push({ req, endsAt: clock.t + serviceMs });
      }
    };
    let tenantRejected = 0;
    for (let ms = 0; ms < 1500; ms++) {
      clock.t = ms;
      for (const r of running.filter((x) => x.endsAt <= ms)) {
        running.splice(running.indexOf(r), 1);
        qs.finish(r.req);
      }
      for (let k = 0; k < 5; k++) start("noisy", 2, 40); // far more than the level can serve
      if (ms % 20 === 0) {
        const before = qs.dump().rejected;
        start("tenant", 1, 2);
        if (qs.dump().rejected > before) tenantRejected++;
      }
    }
    const sorted = [...waits.tenant].sort((a, b) => a - b);
    const p99 = sorted[Math.floor(sorted.length * 0.99)];
    expect(tenantRejected).toBe(0);
    expect(waits.tenant.length).toBeGreaterThan(70);
    // A seat frees every 20 ms; fair queuing gives the tenant's queue one of every 7 active
    // queues' turns (6 of the noisy hand + its own): at most about 7 turns, where first come
    // first served would put it behind the 300 noisy requests waiting (6 s).
    expect(p99).toBeLessThanOrEqual(150);
    expect(qs.dump().rejected).toBeGreaterThan(1000);
  });
});

describe("queue set: service of executing requests counts while they run", () => {
  // One flow (6 queues of its hand) holds all 6 seats with requests that run for a second
  // and has 6 more waiting (arrived at 0); another flow's request arrives at 1 s. Counting
  // the noisy queues' service only when their requests end, they looked idle and won the
  // next 6 releases, one per queue; counted while they run, the newcomer goes first.
  it.each([
    { noisyRunMs: 1000, releaseEveryMs: 10, newcomerGoesAfterReleases: 1 },
    { noisyRunMs: 200, releaseEveryMs: 10, newcomerGoesAfterReleases: 1 },
    { noisyRunMs: 1000, releaseEveryMs: 100, newcomerGoesAfterReleases: 1 },
  ])("after $noisyRunMs ms of noisy service, releases every $releaseEveryMs ms: the newcomer goes after $newcomerGoesAfterReleases", ({ noisyRunMs, releaseEveryMs, newcomerGoesAfterReleases }) => {
    const clock = new Clock();
    const qs = new QueueSet("pl", { type: "Queue", queues: 64, handSize: 6, queueLengthLimit: 50 }, 6, clock.now);
    const executing: SeatRequest[] = [];
    for (let i = 0; i < 6; i++) executing.push(qs.start(spec("fs", "noisy")));
    const waiting = Array.from({ length: 6 }, () => qs.start(spec("fs", "noisy")));
    expect(executing.every((r) => r.state === "executing") && waiting.every((r) => r.state === "waiting")).toBe(true);
    expect(new Set(qs.dump().queues.filter((q) => q.executing.length > 0).map((q) => q.index)).size).toBe(6);
    clock.t = noisyRunMs;
    const newcomer = qs.start(spec("fs", "tenant"));
    expect(newcomer.state).toBe("waiting");
    let releases = 0;
    while (newcomer.state === "waiting" && releases < 12) {
      clock.t += releaseEveryMs;
      const done = executing.shift();
      if (done) qs.finish(done);
      releases++;
      for (const r of waiting.filter((w) => w.state === "executing")) {
        waiting.splice(waiting.indexOf(r), 1);
        executing.push(r);
      }
    }
    expect(releases).toBe(newcomerGoesAfterReleases);
  });
});

describe("retry after", () => {
  it("doubles under sustained rejections (at most once per retryAfter seconds, up to 32) and decays by one", () => {
    const t = new RetryAfterTracker();
    expect(t.retryAfter("pl")).toBe(1);
    const seen: number[] = [];
    for (let s = 0; s < 12; s++) {
      for (let k = 0; k < 100; k++) t.recordRejection("pl", s * 1000 + k);
      seen.push(t.retryAfter("pl"));
    }
    expect(seen.slice(0, 6)).toEqual([1, 2, 2, 4, 4, 4]);
    expect(Math.max(...seen)).toBeLessThanOrEqual(32);
    // a quiet stretch: one rejection per second brings it down one second at a time
    const before = t.retryAfter("pl");
    t.recordRejection("pl", 40_000);
    t.recordRejection("pl", 41_000);
    expect(t.retryAfter("pl")).toBe(before - 2);
    expect(t.retryAfter("other")).toBe(1);
  });
});

describe("queue set: a request's final seats after it ends", () => {
  it("occupies max(initial, final) seats, keeps them for the additional latency, then dispatches the next", () => {
    const clock = new Clock();
    const scheduled: Array<{ at: number; fn: () => void }> = [];
    const schedule = (ms: number, fn: () => void) => scheduled.push({ at: clock.t + ms, fn });
    const qs = new QueueSet("pl", { type: "Queue", queues: 1, handSize: 1, queueLengthLimit: 4 }, 4, clock.now, undefined, schedule);
    const write = qs.start({ ...spec("fs", "writer", 1), finalSeats: 3, additionalLatencyMs: 5 });
    expect(write.state).toBe("executing");
    expect(qs.seatsInUse).toBe(3);
    expect(write.work).toBeCloseTo(0.003 + 3 * 0.005, 9);
    const decisions: Decision[] = [];
    const wide = qs.start(spec("fs", "reader", 2, decisions));
    expect(wide.state).toBe("waiting");
    clock.t = 10;
    qs.finish(write);
    // execution over, the seats stay taken for 5 ms
    expect(write.state).toBe("releasing");
    expect(qs.executingRequests).toBe(0);
    expect(qs.seatsInUse).toBe(3);
    expect(qs.isIdle).toBe(false);
    expect(wide.state).toBe("waiting");
    expect(scheduled.map((s) => s.at)).toEqual([15]);
    clock.t = 15;
    scheduled[0].fn();
    expect(write.state).toBe("finished");
    expect(decisions).toEqual(["execute"]);
    expect(qs.seatsInUse).toBe(2);
    qs.finish(wide);
    expect(qs.isIdle).toBe(true);
  });

  it("without final seats the latency is ignored and seats come back at once", () => {
    const scheduled: Array<() => void> = [];
    const qs = new QueueSet("pl", { type: "Reject" }, 2, new Clock().now, undefined, (_ms, fn) => scheduled.push(fn));
    const r = qs.start({ ...spec("fs", "u", 1), finalSeats: 0, additionalLatencyMs: 5 });
    qs.finish(r);
    expect(scheduled).toHaveLength(0);
    expect(qs.isIdle).toBe(true);
  });
});
