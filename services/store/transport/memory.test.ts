import { afterEach, describe, expect, it } from "vitest";
import { MessageType, SnapshotStatus, newMessage, type Message } from "../raft/index.ts";
import { MemoryNetwork, type MemoryTransport } from "./memory.ts";

// A delivery takes two macrotasks of the check phase (the sender's flush, then
// the receiver's inbox): a timer followed by two immediates ends after both,
// however late the timer fires on a loaded machine (immediates run in order).
const tick = (): Promise<void> => new Promise((r) => setTimeout(() => setImmediate(() => setImmediate(r)), 5));

describe("memory transport", () => {
  const opened: MemoryTransport[] = [];
  afterEach(async () => {
    for (const t of opened.splice(0)) await t.close();
  });

  function pair(net: MemoryNetwork): { a: MemoryTransport; b: MemoryTransport; got: Message[]; unreachable: number[]; snaps: [number, SnapshotStatus][] } {
    const a = net.endpoint(1);
    const b = net.endpoint(2);
    opened.push(a, b);
    a.addPeer(2);
    b.addPeer(1);
    const got: Message[] = [];
    const unreachable: number[] = [];
    const snaps: [number, SnapshotStatus][] = [];
    b.onMessage((m) => got.push(m));
    a.onUnreachable((id) => unreachable.push(id));
    a.onSnapshotStatus((id, s) => snaps.push([id, s]));
    return { a, b, got, unreachable, snaps };
  }

  it("delivers in order, asynchronously, through the codec", async () => {
    const net = new MemoryNetwork();
    const { a, got } = pair(net);
    const msgs = [1, 2, 3].map((i) => newMessage({ type: MessageType.Heartbeat, from: 1, to: 2, term: 1, commit: i }));
    a.send(msgs);
    expect(got).toHaveLength(0);
    await tick();
    expect(got.map((m) => m.commit)).toEqual([1, 2, 3]);
    expect(got[0]).not.toBe(msgs[0]);
    expect(got[0]).toEqual(msgs[0]);
  });

  it("loses messages on cut links silently and reports unknown or detached peers unreachable", async () => {
    const net = new MemoryNetwork();
    const { a, b, got, unreachable } = pair(net);
    net.cut(1, 2, true);
    a.send([newMessage({ type: MessageType.Heartbeat, from: 1, to: 2, term: 1 })]);
    await tick();
    expect(got).toHaveLength(0);
    expect(unreachable).toEqual([]);
    net.heal();
    await b.close();
    a.send([newMessage({ type: MessageType.Heartbeat, from: 1, to: 2, term: 1 })]);
    a.send([newMessage({ type: MessageType.Heartbeat, from: 1, to: 3, term: 1 })]);
    await tick();
    expect(unreachable).toEqual([2, 3]);
  });

  it("reports snapshot status", async () => {
    const net = new MemoryNetwork();
    const { a, snaps, got } = pair(net);
    const snap = newMessage({ type: MessageType.Snap, from: 1, to: 2, term: 1 });
    snap.snapshot = { data: new Uint8Array([1]), metadata: { index: 5, term: 1, confState: { voters: [1, 2], learners: [], votersOutgoing: [], learnersNext: [], autoLeave: false } } };
    a.send([snap]);
    await tick();
    net.partition([1], [2]);
    a.send([snap]);
    await tick();
    expect(snaps).toEqual([
      [2, SnapshotStatus.Finish],
      [2, SnapshotStatus.Failure],
    ]);
    expect(got).toHaveLength(1);
  });

  it("refuses a removed peer's messages, with its removal notice when given", async () => {
    const net = new MemoryNetwork();
    const { a, b, got, unreachable } = pair(net);
    const notices: unknown[] = [];
    a.onRemoved((peer, notice) => notices.push([peer, notice]));
    b.removePeer(1, { index: 9, term: 2 });
    a.send([newMessage({ type: MessageType.PreVote, from: 1, to: 2, term: 3 })]);
    await tick();
    expect(got).toHaveLength(0);
    expect(unreachable).toEqual([2]);
    expect(notices).toEqual([[2, { index: 9, term: 2 }]]);
    b.removePeer(1);
    a.send([newMessage({ type: MessageType.PreVote, from: 1, to: 2, term: 3 })]);
    await tick();
    expect(unreachable).toEqual([2, 2]);
    expect(notices).toHaveLength(1);
    b.addPeer(1);
    a.send([newMessage({ type: MessageType.PreVote, from: 1, to: 2, term: 3 })]);
    await tick();
    expect(got).toHaveLength(1);
    expect(net.stats.refused).toBe(2);
  });

  it("drops a seeded fraction of messages", async () => {
    const net = new MemoryNetwork(3);
    const { a, got } = pair(net);
    net.setDropRate(0.5);
    a.send(Array.from({ length: 1000 }, (_, i) => newMessage({ type: MessageType.Heartbeat, from: 1, to: 2, term: 1, commit: i })));
    while (net.stats.lost + got.length < 1000) await tick();
    expect(got.length).toBeGreaterThan(400);
    expect(got.length).toBeLessThan(600);
    expect(net.stats.lost + got.length).toBe(1000);
  });
});
