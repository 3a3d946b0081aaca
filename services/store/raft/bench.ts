// Throughput of the Raft core: a 3-node group in memory (no disk, no
// network), proposals batched at the leader, Ready handled as an application
// would (persist to MemoryStorage, send, apply, advance). Measures entries
// committed and applied on every node per second.
//
// Run: tsx services/store/raft/bench.ts

import type { Message } from "./types.ts";
import { StateType } from "./types.ts";
import { MemoryStorage } from "./storage.ts";
import { RawNode } from "./rawnode.ts";
import { SeededRandom } from "./rand.ts";

interface BenchNode {
  rn: RawNode;
  storage: MemoryStorage;
  applied: number;
}

function makeGroup(): BenchNode[] {
  const voters = [1, 2, 3];
  return voters.map((id) => {
    const storage = new MemoryStorage({ voters, learners: [], votersOutgoing: [], learnersNext: [], autoLeave: false });
    const rn = new RawNode({ id, storage, electionTick: 10, heartbeatTick: 1, maxInflightMsgs: 256, maxSizePerMsg: 1024 * 1024, random: new SeededRandom(id) });
    return { rn, storage, applied: 0 };
  });
}

/** Handles Readies and delivers messages until the group is quiet. */
function pump(nodes: BenchNode[]): void {
  for (;;) {
    const msgs: Message[] = [];
    for (const n of nodes) {
      if (!n.rn.hasReady()) continue;
      const rd = n.rn.ready();
      if (rd.snapshot) n.storage.applySnapshot(rd.snapshot);
      n.storage.append(rd.entries);
      if (rd.hardState) n.storage.setHardState(rd.hardState);
      for (const m of rd.messages) msgs.push(m);
      if (rd.committedEntries.length > 0) n.applied = rd.committedEntries[rd.committedEntries.length - 1].index;
      n.rn.advance();
    }
    if (msgs.length === 0) return;
    for (const m of msgs) nodes[m.to - 1].rn.step(m);
  }
}

function compact(nodes: BenchNode[]): void {
  for (const n of nodes) {
    const keep = n.applied - 1000;
    if (keep > n.storage.firstIndex()) {
      n.storage.createSnapshot(keep, undefined, new Uint8Array(0));
      n.storage.compact(keep);
    }
  }
}

function runOne(batch: number, payloadBytes: number, totalEntries: number): number {
  const nodes = makeGroup();
  nodes[0].rn.campaign();
  pump(nodes);
  if (nodes[0].rn.raft.state !== StateType.Leader) throw new Error("bench: node 1 did not become leader");
  const payload = new Uint8Array(payloadBytes).fill(7);
  const datas = Array.from({ length: batch }, () => payload);
  const start = nodes[0].applied;
  const t0 = performance.now();
  let proposed = 0;
  while (proposed < totalEntries) {
    nodes[0].rn.proposeBatch(datas);
    proposed += batch;
    pump(nodes);
    if (proposed % 10_000 < batch) compact(nodes);
  }
  const ms = performance.now() - t0;
  const committedEverywhere = Math.min(...nodes.map((n) => n.applied)) - start;
  if (committedEverywhere !== proposed) throw new Error(`bench: ${committedEverywhere} of ${proposed} entries applied everywhere`);
  return Math.round((committedEverywhere / ms) * 1000);
}

export async function benchRaft(): Promise<Record<string, number>> {
  const results: Record<string, number> = {};
  const cases: [string, number, number, number][] = [
    ["raft_commit_entries_per_sec_batch1_128B", 1, 128, 20_000],
    ["raft_commit_entries_per_sec_batch16_128B", 16, 128, 100_000],
    ["raft_commit_entries_per_sec_batch64_128B", 64, 128, 200_000],
    ["raft_commit_entries_per_sec_batch256_1KiB", 256, 1024, 200_000],
  ];
  runOne(16, 128, 10_000); // warm up
  for (const [name, batch, bytes, total] of cases) {
    results[name] = runOne(batch, bytes, total);
    console.log(`${name}: ${results[name].toLocaleString("en-US")} entries/s (3 nodes, in memory)`);
  }
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchRaft();
}
