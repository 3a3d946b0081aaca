import { describe, expect, it } from "vitest";
import { RevisionReadBatcher } from "./revision-batcher.ts";

/** A read function whose reads the test answers by hand, in order. */
function manualReads() {
  const pending: Array<{ resolve: (rev: number) => void; reject: (err: Error) => void }> = [];
  return {
    read: () => new Promise<number>((resolve, reject) => pending.push({ resolve, reject })),
    get sent() {
      return pending.length;
    },
    answer(i: number, rev: number) {
      pending[i].resolve(rev);
    },
    fail(i: number, err: Error) {
      pending[i].reject(err);
    },
  };
}

const tick = () => new Promise((r) => setImmediate(r));

describe("RevisionReadBatcher", () => {
  // Each step: callers arriving ("ask" n), or the store answering read i with a revision.
  type Step = { ask: number } | { answer: number; rev: number };
  it.each<{ name: string; steps: Step[]; reads: number; got: number[] }>([
    { name: "one caller, one read", steps: [{ ask: 1 }, { answer: 0, rev: 5 }], reads: 1, got: [5] },
    {
      name: "callers during a read share the next one, not the one in flight",
      steps: [{ ask: 1 }, { ask: 10 }, { answer: 0, rev: 5 }, { answer: 1, rev: 7 }],
      reads: 2,
      got: [5, ...Array<number>(10).fill(7)],
    },
    {
      name: "three waves of callers: at most one read in flight and one queued",
      steps: [{ ask: 3 }, { ask: 4 }, { answer: 0, rev: 1 }, { ask: 5 }, { answer: 1, rev: 2 }, { answer: 2, rev: 3 }],
      reads: 3,
      got: [1, ...Array<number>(2).fill(2), ...Array<number>(4).fill(2), ...Array<number>(5).fill(3)],
    },
    { name: "after all reads settle, a new caller gets a fresh read", steps: [{ ask: 1 }, { answer: 0, rev: 4 }, { ask: 1 }, { answer: 1, rev: 9 }], reads: 2, got: [4, 9] },
  ])("$name", async ({ steps, reads, got }) => {
    const store = manualReads();
    const b = new RevisionReadBatcher(store.read);
    const answers: Array<Promise<number>> = [];
    for (const step of steps) {
      if ("ask" in step) for (let i = 0; i < step.ask; i++) answers.push(b.current());
      else store.answer(step.answer, step.rev);
      await tick();
    }
    expect(store.sent).toBe(reads);
    expect(b.readsSent).toBe(reads);
    expect(await Promise.all(answers)).toEqual(got);
  });

  it("a failed read fails the callers it serves; the queued read still goes out", async () => {
    const store = manualReads();
    const b = new RevisionReadBatcher(store.read);
    const first = b.current();
    const second = b.current();
    store.fail(0, new Error("unavailable"));
    await expect(first).rejects.toThrow("unavailable");
    await tick();
    expect(store.sent).toBe(2);
    store.answer(1, 8);
    expect(await second).toBe(8);
  });
});
