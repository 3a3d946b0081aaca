import { describe, expect, it } from "vitest";
import { PendingRequests } from "./pending.ts";
import { ReadIndexQueue } from "./read-index.ts";

describe("waiting requests", () => {
  it("PendingRequests resolves by seq and times out on sweep", async () => {
    let now = 0;
    const p = new PendingRequests<string>(100, () => now);
    const a = p.register();
    now = 50;
    const b = p.register();
    expect(p.resolve(a.seq, "ok")).toBe(true);
    expect(p.resolve(a.seq, "again")).toBe(false);
    await expect(a.promise).resolves.toBe("ok");
    now = 149;
    p.sweep();
    expect(p.size).toBe(1);
    now = 150;
    p.sweep();
    await expect(b.promise).rejects.toMatchObject({ code: "timeout" });
  });

  it("ReadIndexQueue batches callers, holds new ones behind a request in flight, retries, and releases on apply", async () => {
    let now = 0;
    const sent: string[] = [];
    let leader = true;
    const sender = {
      readIndex: (ctx: Uint8Array) => {
        if (!leader) throw new Error("no leader");
        sent.push(Buffer.from(ctx).toString("hex"));
      },
      hasLeader: () => leader,
    };
    const q = new ReadIndexQueue(9, 1000, 100, () => now);
    const done: number[] = [];
    const w = [q.wait(), q.wait(), q.wait()].map((p, i) => p.then(() => done.push(i)));
    q.flush(sender);
    expect(sent).toHaveLength(1); // three callers, one request
    now = 100;
    q.flush(sender);
    expect(sent).toEqual([sent[0], sent[0]]); // retried with the same context
    q.onReadState({ index: 10, requestCtx: Buffer.from(sent[0], "hex") });
    q.release(9);
    await Promise.resolve();
    expect(done).toEqual([]);
    q.release(10);
    await Promise.all(w);
    expect(done.sort()).toEqual([0, 1, 2]);

    // Callers arriving while a request awaits its answer share the next one, sent once the answer came.
    now = 200;
    const first = q.wait();
    q.flush(sender);
    expect(sent).toHaveLength(3);
    const laterDone: number[] = [];
    const later = [q.wait(), q.wait()].map((p, i) => p.then(() => laterDone.push(i)));
    q.flush(sender);
    q.flush(sender);
    expect(sent).toHaveLength(3); // held back behind the request in flight
    q.onReadState({ index: 11, requestCtx: Buffer.from(sent[2], "hex") });
    q.flush(sender);
    expect(sent).toHaveLength(4); // one request for both
    q.release(11);
    await first;
    expect(laterDone).toEqual([]); // their read index comes from their own request
    q.onReadState({ index: 12, requestCtx: Buffer.from(sent[3], "hex") });
    q.release(12);
    await Promise.all(later);
    // A request unanswered for retryMs holds nobody back: new callers get their own (and it is retried).
    const stuck = q.wait();
    q.flush(sender);
    expect(sent).toHaveLength(5);
    now = 300;
    const next = q.wait();
    q.flush(sender);
    // a new request for the new caller, and the stuck one's retry with its own context
    expect(sent.slice(4)).toEqual([sent[4], sent[5], sent[4]]);
    expect(sent[5]).not.toBe(sent[4]);
    q.onReadState({ index: 13, requestCtx: Buffer.from(sent[4], "hex") });
    q.onReadState({ index: 13, requestCtx: Buffer.from(sent[5], "hex") });
    q.release(13);
    await Promise.all([stuck, next]);

    leader = false;
    const refused = q.wait();
    q.flush(sender);
    await expect(refused).rejects.toMatchObject({ code: "no-leader" });
    leader = true;
    const late = q.wait();
    q.flush(sender);
    now = 5000;
    q.sweep(true);
    await expect(late).rejects.toMatchObject({ code: "timeout" });
  });
});
