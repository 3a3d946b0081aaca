import { describe, expect, it } from "vitest";
import { RevisionReadBatcher } from "./revision-batcher.ts";

/**
 * A store whose reads the test answers by hand, and an event loop whose turns the test
 * ends by hand: the batcher's end-of-turn callbacks run only in `endTurn()`.
 */
function harness(maxInFlight?: number) {
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
  const b = new RevisionReadBatcher(read, { maxInFlight, endOfTurn: (fn) => endOfTurn.push(fn) });
  return {
    b,
    reads,
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
  it.each([1, 2, 3])("every answer comes from a read sent after its caller asked (maxInFlight %i, random schedules)", async (maxInFlight) => {
    let seed = 7 + maxInFlight;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (let schedule = 0; schedule < 30; schedule++) {
      const h = harness(maxInFlight);
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
        else await h.endTurn();
      }
      for (;;) {
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
    const b = new RevisionReadBatcher(() => new Promise<number>((resolve) => sent.push(resolve)), { endOfTurn: (send) => send() });
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
      { endOfTurn: (fn) => endOfTurn.push(fn) },
    );
    const first = b.current();
    endOfTurn.splice(0).forEach((fn) => fn());
    await expect(first).rejects.toThrow("closed");
    const second = b.current();
    endOfTurn.splice(0).forEach((fn) => fn());
    expect(await second).toBe(3);
  });
});
