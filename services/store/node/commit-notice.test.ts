// The leader's commit notice (options.ts commitNoticeDelayMs): a moved commit index
// rides on the next append instead of an append of its own, and followers that hold
// committed entries are told within the delay when no append comes, heartbeats or not.
import { afterEach, describe, expect, it } from "vitest";
import { MessageType, type Message } from "../raft/index.ts";
import { filteredTransport, NodeCluster, put, type NodeOverrides, type TransportWrap } from "./testing/cluster.ts";

const PUTS = 20;

interface Recorder {
  wrap: TransportWrap;
  /** Messages the nodes handed to their transports since `reset`. */
  sent: Message[];
  reset(): void;
  dropHeartbeats: boolean;
}

function recorder(): Recorder {
  const rec: Recorder = {
    sent: [],
    dropHeartbeats: false,
    reset: () => void rec.sent.splice(0),
    wrap: (t) => filteredTransport(t, (m) => rec.dropHeartbeats && m.type === MessageType.Heartbeat, rec.sent),
  };
  return rec;
}

let c: NodeCluster | undefined;
afterEach(async () => {
  await c?.close();
  c = undefined;
});

/** A settled 3-node cluster (its leader's heartbeats dropped from then on when asked); PUTS sequential puts on the leader. */
async function sequentialPuts(overrides: NodeOverrides, dropHeartbeats: boolean): Promise<{ rec: Recorder; leaderId: number; followers: number[]; lastIndex: number }> {
  const rec = recorder();
  // Heartbeats every 100 ms, elections after >= 5 s: the test's window (< 4 s after
  // the last append) sees no election while heartbeats are dropped (a new leader's
  // first append would tell the followers too).
  c = await NodeCluster.create(3, { heartbeatMs: 100, electionMs: 5000, ...overrides }, rec.wrap);
  const leader = await c.leader(25_000);
  await put(leader, "warm", "up");
  await c.converge();
  rec.dropHeartbeats = dropHeartbeats;
  rec.reset();
  for (let i = 0; i < PUTS; i++) await put(leader, `k${i}`, String(i));
  const lastIndex = leader.status().raftIndex;
  return { rec, leaderId: leader.id, followers: c.running().filter((n) => n.id !== leader.id).map((n) => n.id), lastIndex };
}

const appendsTo = (sent: Message[], from: number, to: number) => sent.filter((m) => m.from === from && m.to === to && m.type === MessageType.App);

describe("the leader's commit notice", () => {
  it("tells the followers of the last commit when no append and no heartbeat comes", async () => {
    const { lastIndex } = await sequentialPuts({ commitNoticeDelayMs: 5 }, true);
    await c?.converge(lastIndex, 4000); // only the notice can tell them: heartbeats are dropped
  });

  it("lets sequential puts cost one append per follower each: the next put's append carries the commit", async () => {
    // A delay far above a put's round trip, so that no notice falls between two puts
    // even on a loaded machine (a shorter one sends one where a put came later).
    const { rec, leaderId, followers, lastIndex } = await sequentialPuts({ commitNoticeDelayMs: 500, electionMs: 1000 }, false);
    await c?.converge(lastIndex, 5000);
    for (const f of followers) {
      const apps = appendsTo(rec.sent, leaderId, f);
      expect(apps.filter((m) => m.entries.length > 0)).toHaveLength(PUTS);
      expect(apps.length).toBeLessThan(PUTS * 1.5);
    }
  });

  it("with no delay (etcd's order), every commit is an append of its own to every follower", async () => {
    const { rec, leaderId, followers, lastIndex } = await sequentialPuts({ commitNoticeDelayMs: 0, electionMs: 1000 }, false);
    await c?.converge(lastIndex, 5000);
    for (const f of followers) expect(appendsTo(rec.sent, leaderId, f).length).toBeGreaterThanOrEqual(PUTS * 2);
  });
});
