// The order of a Ready's steps around the WAL's fsync (see handleReady):
// a leader sends its appends before its own save resolves, yet answers no
// request and applies nothing of them before it; a follower answers an
// append only after its save resolved. A save is "held" by resolving it to
// the node only when the test says so (its bytes are written at once, as an
// fsync still in flight would leave them).

import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { StoreResponse } from "../mvcc/index.ts";
import { Wal } from "../wal/index.ts";
import type { Entry, HardState } from "../wal/index.ts";
import { NodeCluster, put, sleep, waitFor } from "./testing/cluster.ts";
import type { RaftNode } from "./raft-node.ts";

interface Hold {
  /** Last index of the held save, once the node issued it. */
  index?: number;
  release(): void;
}

/** Holds the first save with entries into `walDir`: it resolves only after release(). */
function holdNextAppend(walDir: string): Hold {
  const original = Wal.prototype.save;
  let open: () => void = () => {};
  const gate = new Promise<void>((resolve) => (open = resolve));
  const hold: Hold = {
    release: () => {
      spy.mockRestore();
      open();
    },
  };
  const spy = vi.spyOn(Wal.prototype, "save").mockImplementation(function (this: Wal, hs: HardState | undefined, entries: readonly Entry[]) {
    const saved = original.call(this, hs, entries);
    if (this.dir !== walDir || entries.length === 0 || hold.index !== undefined) return saved;
    hold.index = entries[entries.length - 1].index;
    return gate.then(() => saved);
  });
  return hold;
}

interface HeldSave {
  /** Last index of the save. */
  index: number;
  release(): void;
}

/** Holds every save with entries into `walDir`, each until its own release(); restore() releases all and stops holding. */
function holdEveryAppend(walDir: string): { held: HeldSave[]; restore(): void } {
  const original = Wal.prototype.save;
  const held: HeldSave[] = [];
  const spy = vi.spyOn(Wal.prototype, "save").mockImplementation(function (this: Wal, hs: HardState | undefined, entries: readonly Entry[]) {
    const saved = original.call(this, hs, entries);
    if (this.dir !== walDir || entries.length === 0) return saved;
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    held.push({ index: entries[entries.length - 1].index, release: open });
    return gate.then(() => saved);
  });
  return {
    held,
    restore: () => {
      spy.mockRestore();
      for (const h of held) h.release();
    },
  };
}

function matchOf(leader: RaftNode, id: number): number {
  return leader.raftStatus().progress?.[id]?.match ?? 0;
}

/**
 * Waits until every follower acknowledged the leader's whole log. Until then a
 * follower may still be probed (one append in flight, further ones paused):
 * the leader would send it the next entry only in a later Ready, which a held
 * save of the leader's own never lets come.
 */
async function allCaughtUp(leader: RaftNode, followers: readonly RaftNode[]): Promise<void> {
  const last = matchOf(leader, leader.id); // the leader's own log, made durable
  await waitFor(() => followers.every((f) => matchOf(leader, f.id) >= last), "every follower to acknowledge the warm-up");
}

function track(p: Promise<StoreResponse>): { settled: boolean } {
  const state = { settled: false };
  p.then(
    () => (state.settled = true),
    () => (state.settled = true),
  );
  return state;
}

describe("RaftNode: Ready order around the fsync", () => {
  let c: NodeCluster | undefined;
  let hold: Hold | undefined;
  afterEach(async () => {
    hold?.release();
    hold = undefined;
    await c?.close();
    c = undefined;
  });

  it("a leader sends its entries before its own fsync completes, but answers and applies them only after it", async () => {
    // A long election timeout: a held leader sends no heartbeats.
    c = await NodeCluster.create(3, { electionMs: 2000 });
    const leader = await c.leader();
    const followers = c.running().filter((n) => n !== leader);
    await put(leader, "warm", "up");
    await allCaughtUp(leader, followers);

    const h = holdNextAppend(join(c.dataDir(leader.id), "wal"));
    hold = h;
    const request = put(leader, "k", "v");
    const answered = track(request);
    await waitFor(() => h.index !== undefined, "the leader's save of the new entry");
    const index = h.index as number;
    // Both followers got the entry, made it durable and acknowledged it: the
    // leader sent it while its own save was still held.
    await waitFor(() => followers.every((f) => matchOf(leader, f.id) >= index), "both followers to acknowledge the entry");
    // A quorum of followers alone commits it, but it stays unapplied and unanswered here.
    expect(leader.raftStatus().hardState.commit).toBeGreaterThanOrEqual(index);
    await sleep(20); // a few event-loop turns in which a wrong order would show
    expect(leader.appliedIndex).toBeLessThan(index);
    expect(answered.settled).toBe(false);

    h.release();
    const res = await request;
    expect(res.result.type).toBe("put");
    expect(leader.appliedIndex).toBeGreaterThanOrEqual(index);
  });

  it("a leader applies and answers entries already durable while the save of later entries is in flight", async () => {
    c = await NodeCluster.create(3, { electionMs: 2000 });
    const leader = await c.leader();
    const followers = c.running().filter((n) => n !== leader);
    await put(leader, "warm", "up");
    await allCaughtUp(leader, followers);

    const holds = holdEveryAppend(join(c.dataDir(leader.id), "wal"));
    hold = { release: holds.restore };
    const first = put(leader, "a", "1");
    await waitFor(() => holds.held.length === 1, "the leader's save of the first entry");
    const a = holds.held[0].index;
    await waitFor(() => followers.every((f) => matchOf(leader, f.id) >= a), "both followers to acknowledge the first entry");
    // Proposed while the first save is held: its entry goes into the next Ready,
    // which also carries the first entry, now committed, to apply.
    const second = put(leader, "b", "2");
    const secondAnswered = track(second);
    holds.held[0].release();
    await waitFor(() => holds.held.length === 2, "the leader's save of the second entry");
    const b = holds.held[1].index;
    expect(b).toBeGreaterThan(a);

    // The first entry is durable here and on both followers: applied and answered
    // while the second entry's save is still held.
    const answered = track(first);
    await waitFor(() => answered.settled, "the first put's answer while the second save is held", 2000);
    expect((await first).result.type).toBe("put");
    expect(leader.appliedIndex).toBeGreaterThanOrEqual(a);
    await sleep(20);
    expect(leader.appliedIndex).toBeLessThan(b);
    expect(secondAnswered.settled).toBe(false);

    holds.held[1].release();
    expect((await second).result.type).toBe("put");
  });

  it("a follower acknowledges an append only after its own fsync completes", async () => {
    c = await NodeCluster.create(3, { electionMs: 2000 });
    const leader = await c.leader();
    const [held, other] = c.running().filter((n) => n !== leader);
    await put(leader, "warm", "up");
    await allCaughtUp(leader, [held, other]);

    const h = holdNextAppend(join(c.dataDir(held.id), "wal"));
    hold = h;
    const request = put(leader, "k", "v");
    await waitFor(() => h.index !== undefined, "the follower's save of the new entry");
    const index = h.index as number;
    // The other follower's answer arrived; the held one's must not have.
    await waitFor(() => matchOf(leader, other.id) >= index, "the other follower to acknowledge the entry");
    await sleep(20);
    expect(matchOf(leader, held.id)).toBeLessThan(index);

    h.release();
    await request;
    await waitFor(() => matchOf(leader, held.id) >= index, "the released follower to acknowledge the entry");
  });
});
