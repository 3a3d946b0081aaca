import { describe, expect, it } from "vitest";
import { RevisionReadBatcher } from "./revision-batcher.ts";

/**
 * A store whose reads the test answers by hand, and an event loop whose turns the test
 * ends by hand: the batcher's end-of-turn callbacks run only in `endTurn()`. Time stands
 * still unless the test moves it (`advance`), which runs the timers that fall due.
 * Regrouping is off unless `regroupMaxMs` is given.
 */
function harness(maxInFlight?: number, regroupMaxMs = 0) {
  const reads: Array<{ resolve: (rev: number) => void; reject: (err: Error) => void; sentAt: number; done?: boolean }> = [];
  const endOfTurn: Array<() => void> = [];
  let clock = 0;
  let inFlight = 0;
  let maxSeenInFlight = 0;
  const read = () =>
    new Promise<number>((resolve, reject) => {
      inFlight++;
      maxSeenInFlight = Math.max(maxSeenInFlight, inFlight);
      const settle = () => inFlight--;
      reads.push({
        sentAt: ++clock,
        resolve: (rev) => {
          settle();
          resolve(rev);
        },
        reject: (err) => {
          settle();
          reject(err);
        },
      });
    });
  let ms = 0;
  const timers: Array<{ at: number; fn: () => void; cancelled: boolean }> = [];
  const after = (fn: () => void, delay: number) => {
    const t = { at: ms + delay, fn, cancelled: false };
    timers.push(t);
    return () => void (t.cancelled = true);
  };
  const b = new RevisionReadBatcher(read, { maxInFlight, endOfTurn: (fn) => endOfTurn.push(fn), regroupMaxMs, after, now: () => ms });
  return {
    b,
    reads,
    /** Timers set and not cancelled or run yet. */
    get pendingTimers() {
      return timers.filter((t) => !t.cancelled && t.at > ms).length;
    },
    /** Moves time on by `delta` ms and runs the timers that fall due. */
    advance(delta: number) {
      ms += delta;
      for (const t of timers.splice(0)) {
        if (t.cancelled) continue;
        if (t.at <= ms) t.fn();
        else timers.push(t);
      }
    },
    get maxSeenInFlight() {
      return maxSeenInFlight;
    },
    /** A caller asks now; its answer and the moment it asked. */
    ask() {
      const askedAt = ++clock;
      return { askedAt, answer: b.current() };
    },
    /** Ends the turn: the callbacks queued for its end run (and may queue more for the next). */
    async endTurn() {
      await flushMicrotasks();
      const due = endOfTurn.splice(0);
      for (const fn of due) fn();
      await flushMicrotasks();
    },
  };
}

async function flushMicrotasks(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

describe("RevisionReadBatcher", () => {
  it("sends one read at the end of the turn for every caller of that turn", async () => {
    const h = harness();
    const callers = [h.ask(), h.ask(), h.ask()];
    expect(h.reads.length).toBe(0);
    await h.endTurn();
    expect(h.reads.length).toBe(1);
    h.reads[0].resolve(5);
    expect(await Promise.all(callers.map((c) => c.answer))).toEqual([5, 5, 5]);
  });

  it("callers arriving while a read is in flight get a new read at the end of their turn, not the one in flight", async () => {
    const h = harness(2);
    const first = h.ask();
    await h.endTurn();
    const later = [h.ask(), h.ask()];
    await h.endTurn();
    expect(h.reads.length).toBe(2);
    h.reads[0].resolve(5);
    h.reads[1].resolve(7);
    expect(await first.answer).toBe(5);
    expect(await Promise.all(later.map((c) => c.answer))).toEqual([7, 7]);
  });

  it("with maxInFlight reads out, new callers share one read sent when one settles", async () => {
    const h = harness(2);
    h.ask();
    await h.endTurn();
    h.ask();
    await h.endTurn();
    const queued = [h.ask(), h.ask()];
    await h.endTurn();
    h.ask(); // a later turn, still no room: joins the same waiting batch
    await h.endTurn();
    expect(h.reads.length).toBe(2);
    h.reads[1].resolve(6);
    await h.endTurn();
    expect(h.reads.length).toBe(3);
    expect(h.reads[2].sentAt).toBeGreaterThan(Math.max(...queued.map((c) => c.askedAt)));
    h.reads[2].resolve(9);
    expect(await Promise.all(queued.map((c) => c.answer))).toEqual([9, 9]);
  });

  it("maxInFlight 1 is one read in flight and one batch waiting", async () => {
    const h = harness(1);
    const a = h.ask();
    await h.endTurn();
    const b = [h.ask(), h.ask()];
    await h.endTurn();
    const c = h.ask();
    await h.endTurn();
    expect(h.reads.length).toBe(1);
    h.reads[0].resolve(1);
    await h.endTurn();
    expect(h.reads.length).toBe(2);
    h.reads[1].resolve(2);
    expect(await a.answer).toBe(1);
    expect(await Promise.all([...b, c].map((x) => x.answer))).toEqual([2, 2, 2]);
  });

  // The linearizability contract over many random schedules: every caller's answer comes
  // from a read sent after it asked, and no more than maxInFlight reads are ever out.
  it.each([
    [1, 0],
    [2, 0],
    [3, 0],
    [1, 10],
    [2, 10],
  ])("every answer comes from a read sent after its caller asked (maxInFlight %i, regroupMaxMs %i, random schedules)", async (maxInFlight, regroupMaxMs) => {
    let seed = 7 + maxInFlight;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (let schedule = 0; schedule < 30; schedule++) {
      const h = harness(maxInFlight, regroupMaxMs);
      const callers: Array<{ askedAt: number; answer: Promise<number> }> = [];
      let answered = 0;
      // Answers an open read chosen at random (reads may come back out of order), with its
      // send time as the revision: a caller's answer then names the read that served it.
      const answerOne = () => {
        const open = h.reads.filter((x) => !x.done);
        const next = open[Math.floor(random() * open.length)];
        next.done = true;
        answered++;
        next.resolve(next.sentAt);
      };
      for (let step = 0; step < 60; step++) {
        const r = random();
        if (r < 0.4) callers.push(h.ask());
        else if (r < 0.7 && answered < h.reads.length) answerOne();
        else if (r < 0.8) h.advance(1 + Math.floor(random() * 6));
        else await h.endTurn();
      }
      for (;;) {
        await h.endTurn();
        h.advance(regroupMaxMs); // any regrouping wait ends
        await h.endTurn();
        if (answered === h.reads.length) break;
        answerOne();
      }
      const settled = await Promise.all(callers.map(async (c) => ({ askedAt: c.askedAt, readSentAt: await c.answer })));
      for (const s of settled) expect(s.readSentAt).toBeGreaterThan(s.askedAt);
      expect(h.maxSeenInFlight).toBeLessThanOrEqual(maxInFlight);
    }
  });

  it("a failed read fails the callers it serves; the next batch is sent as usual", async () => {
    const h = harness(1);
    const first = h.ask();
    await h.endTurn();
    const second = h.ask();
    await h.endTurn();
    h.reads[0].reject(new Error("unavailable"));
    await expect(first.answer).rejects.toThrow("unavailable");
    await h.endTurn();
    expect(h.reads.length).toBe(2);
    h.reads[1].resolve(8);
    expect(await second.answer).toBe(8);
    expect(h.b.readsSent).toBe(2);
  });

  it("run at once (a store in process): the first caller's read leaves as it asks; callers during it share the next, sent when it settles", async () => {
    const sent: Array<(rev: number) => void> = [];
    const b = new RevisionReadBatcher(() => new Promise<number>((resolve) => sent.push(resolve)), { endOfTurn: (send) => send(), regroupMaxMs: 0 });
    const first = b.current();
    expect(sent.length).toBe(1);
    const during = [b.current(), b.current()];
    expect(sent.length).toBe(1);
    sent[0](4);
    expect(await first).toBe(4);
    await flushMicrotasks();
    expect(sent.length).toBe(2);
    sent[1](6);
    expect(await Promise.all(during)).toEqual([6, 6]);
  });

  it("a read function that throws fails its batch only", async () => {
    let calls = 0;
    const endOfTurn: Array<() => void> = [];
    const b = new RevisionReadBatcher(
      () => {
        if (++calls === 1) throw new Error("closed");
        return Promise.resolve(3);
      },
      { endOfTurn: (fn) => endOfTurn.push(fn), regroupMaxMs: 0 },
    );
    const first = b.current();
    endOfTurn.splice(0).forEach((fn) => fn());
    await expect(first).rejects.toThrow("closed");
    const second = b.current();
    endOfTurn.splice(0).forEach((fn) => fn());
    expect(await second).toBe(3);
  });
  describe("regrouping after a read settles", () => {
    it("the next read waits for the callers the settled read served, then carries them and those already waiting", async () => {
      const h = harness(1, 10);
      const served = [h.ask(), h.ask()];
      await h.endTurn();
      const waiting = h.ask();
      await h.endTurn();
      h.advance(4);
      h.reads[0].resolve(5);
      await h.endTurn();
      expect(await Promise.all(served.map((c) => c.answer))).toEqual([5, 5]);
      expect(h.reads.length).toBe(1); // sent at once before: without the two callers about to ask again
      const again = [h.ask()];
      await h.endTurn();
      expect(h.reads.length).toBe(1);
      again.push(h.ask()); // 3 waiting: as many as expected
      await h.endTurn();
      expect(h.reads.length).toBe(2);
      expect(h.pendingTimers).toBe(0);
      h.reads[1].resolve(8);
      expect(await Promise.all([waiting, ...again].map((c) => c.answer))).toEqual([8, 8, 8]);
    });

    it("waits at most half the settled read's latency (and regroupMaxMs), then sends for whoever waits", async () => {
      const h = harness(1, 10);
      h.ask();
      h.ask();
      await h.endTurn();
      h.advance(6); // the read takes 6 ms: the wait is at most 3 ms
      h.reads[0].resolve(1);
      await h.endTurn();
      const late = h.ask();
      h.advance(2);
      await h.endTurn();
      expect(h.reads.length).toBe(1);
      h.advance(1);
      await h.endTurn();
      expect(h.reads.length).toBe(2);
      h.reads[1].resolve(2);
      expect(await late.answer).toBe(2);

      const slow = harness(1, 10);
      slow.ask();
      slow.ask();
      await slow.endTurn();
      slow.advance(100);
      slow.reads[0].resolve(1);
      await slow.endTurn();
      slow.ask();
      slow.advance(9);
      await slow.endTurn();
      expect(slow.reads.length).toBe(1);
      slow.advance(1);
      await slow.endTurn();
      expect(slow.reads.length).toBe(2);
    });

    it("a lone caller that asks again is sent at the end of its turn", async () => {
      const h = harness(1, 10);
      const first = h.ask();
      await h.endTurn();
      h.advance(4);
      h.reads[0].resolve(3);
      await h.endTurn();
      expect(await first.answer).toBe(3);
      const next = h.ask();
      await h.endTurn();
      expect(h.reads.length).toBe(2);
      expect(h.reads[1].sentAt).toBeGreaterThan(next.askedAt);
      expect(h.pendingTimers).toBe(0);
    });

    it("a caller with no read settled before it is not held", async () => {
      const h = harness(1, 10);
      h.ask();
      await h.endTurn();
      expect(h.reads.length).toBe(1);
      expect(h.pendingTimers).toBe(0);
    });
  });
});
