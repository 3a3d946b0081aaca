// Smoke test of RaftNodes over the real peer stream transport on loopback.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { StreamTransport } from "../transport/stream-transport.ts";
import type { Member } from "./members.ts";
import { RaftNode } from "./raft-node.ts";
import { FAST, get, put, sleep, waitFor } from "./testing/cluster.ts";

describe("RaftNode over the peer stream", () => {
  let dir: string | undefined;
  const nodes = new Map<number, RaftNode>();
  afterEach(async () => {
    await Promise.all([...nodes.values()].map((n) => n.stop()));
    nodes.clear();
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it("3 nodes: replicate, kill the leader, keep writing, bring it back", async () => {
    dir = await mkdtemp(join(tmpdir(), "store-stream-"));
    const clusterId = 0x5eedn;
    const transports = await Promise.all([1, 2, 3].map((id) => StreamTransport.listen({ id, clusterId, listen: "127.0.0.1:0" })));
    const members: Member[] = transports.map((t) => ({ id: t.id, name: `n${t.id}`, peerUrls: [`http://127.0.0.1:${t.port}`], clientUrls: [], isLearner: false }));
    const start = async (transport: StreamTransport): Promise<RaftNode> => {
      const n = await RaftNode.start({ ...FAST, heartbeatMs: 20, electionMs: 200, id: transport.id, clusterId, dataDir: join(dir!, `n${transport.id}`), transport, initialMembers: members });
      nodes.set(n.id, n);
      return n;
    };
    await Promise.all(transports.map(start));
    const running = (): RaftNode[] => [...nodes.values()].filter((n) => !n.isStopped);
    const leader = async (): Promise<RaftNode> => {
      await waitFor(() => running().filter((n) => n.isLeader).length === 1 && running().every((n) => n.leaderId === running().find((x) => x.isLeader)!.id), "a leader", 8000);
      return running().find((n) => n.isLeader)!;
    };

    const l1 = await leader();
    await Promise.all(Array.from({ length: 100 }, (_, i) => put(running()[i % 3], `a${i}`, `${i}`)));
    const target = l1.status().raftIndex;
    await waitFor(() => running().every((n) => n.appliedIndex >= target), "replication");
    for (const n of running()) expect(get(n, "a99")).toBe("99");

    // Kill the leader; the other two elect a new one and keep taking writes.
    await l1.stop();
    nodes.delete(l1.id);
    const l2 = await leader();
    expect(l2.id).not.toBe(l1.id);
    const acked: string[] = [];
    for (let i = 0; i < 50; i++) {
      const key = `b${i}`;
      await put(running()[i % 2], key, key);
      acked.push(key);
    }
    // Bring the old leader back on its port; it catches up over the stream.
    const port = Number(members.find((m) => m.id === l1.id)!.peerUrls[0].split(":").pop());
    await sleep(50);
    const back = await start(await StreamTransport.listen({ id: l1.id, clusterId, listen: `127.0.0.1:${port}` }));
    const t2 = l2.status().raftIndex;
    await waitFor(() => back.appliedIndex >= t2, "the restarted node to catch up", 8000);
    for (const key of acked) expect(get(back, key)).toBe(key);
    await back.readBarrier();
    await waitFor(() => running().every((n) => n.appliedIndex === running()[0].appliedIndex), "same applied index");
    expect(new Set(running().map((n) => Buffer.from(n.mvcc.snapshot()).toString("hex"))).size).toBe(1);
  }, 30_000);
});
