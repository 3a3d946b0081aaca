// Throughput of a 3-node in-process store cluster: RaftNodes over the
// in-memory network (every message through the binary codec) with real WALs
// (fsync per group commit) in a temporary directory. Puts of 128-byte values
// to distinct keys, proposed on the leader by 1 and by 64 concurrent
// proposers, each waiting for its result (committed on a quorum, applied).
//
// Run: tsx services/store/node/bench.ts

import { NodeCluster } from "./testing/cluster.ts";
import type { RaftNode } from "./raft-node.ts";

const enc = new TextEncoder();
const VALUE = new Uint8Array(128).fill(120);

async function run(leader: RaftNode, proposers: number, ms: number, tag: string): Promise<{ putsPerSec: number; fsyncsPerPut: number; p50Ms: number }> {
  const end = performance.now() + ms;
  const lat: number[] = [];
  const fsyncsBefore = leader.walStats().fsyncs;
  const t0 = performance.now();
  let done = 0;
  await Promise.all(
    Array.from({ length: proposers }, async (_, p) => {
      for (let i = 0; performance.now() < end; i++) {
        const s = performance.now();
        await leader.propose({ type: "put", request: { key: enc.encode(`${tag}/${p}/${i}`), value: VALUE } });
        lat.push(performance.now() - s);
        done++;
      }
    }),
  );
  const elapsed = performance.now() - t0;
  lat.sort((a, b) => a - b);
  return {
    putsPerSec: Math.round((done / elapsed) * 1000),
    fsyncsPerPut: Number(((leader.walStats().fsyncs - fsyncsBefore) / done).toFixed(3)),
    p50Ms: Number(lat[Math.floor(lat.length / 2)].toFixed(2)),
  };
}

export async function benchNode(): Promise<Record<string, number>> {
  const cluster = await NodeCluster.create(3, { heartbeatMs: 50, electionMs: 500, requestTimeoutMs: 10_000, snapshotThreshold: 10_000 });
  try {
    const leader = await cluster.leader(10_000);
    await run(leader, 8, 300, "warmup");
    const one = await run(leader, 1, 1500, "one");
    const many = await run(leader, 64, 2000, "many");
    return {
      puts_per_sec_1_proposer: one.putsPerSec,
      puts_per_sec_64_proposers: many.putsPerSec,
      p50_ms_1_proposer: one.p50Ms,
      p50_ms_64_proposers: many.p50Ms,
      leader_fsyncs_per_put_1_proposer: one.fsyncsPerPut,
      leader_fsyncs_per_put_64_proposers: many.fsyncsPerPut,
    };
  } finally {
    await cluster.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchNode().then(
    (r) => console.log(JSON.stringify(r, null, 2)),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
