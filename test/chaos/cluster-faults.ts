/**
 * The faults of the cluster chaos suite and their schedule. Store faults that the
 * store-only suite has too (leader SIGKILL, follower SIGSTOP/SIGCONT, Redis restart)
 * are injected by faults.ts; this file adds the apiserver replicas, the peer
 * network (partition and delay through the PeerProxies), the revision stream trim
 * and a replica's clock jump. `injectClusterFault` logs what it does and returns
 * once the fault is over and the cluster is whole again (every process serving).
 */
import { Redis } from "ioredis";
import { pick, type Rng } from "../support/seeded-rng.ts";
import type { ApiCluster } from "./api-cluster.ts";
import { inject, type FaultTimings } from "./faults.ts";
import { STREAM } from "./store-cluster.ts";

export const CLUSTER_FAULTS = [
  "kill-replica",
  "rolling-restart",
  "kill-store-leader",
  "pause-store-follower",
  "partition-store-member",
  "slow-store-member",
  "restart-redis",
  "trim-stream",
  "clock-jump",
] as const;
export type ClusterFault = (typeof CLUSTER_FAULTS)[number];

export interface ClusterFaultTimings extends FaultTimings {
  /** How long a partition or a slowed member lasts. */
  partitionMs: number;
  /** Delay added to each peer message into a slowed member. */
  peerDelayMs: number;
  /** How long a replica's clock stays shifted, and by how much. */
  clockHoldMs: number;
  clockJumpMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The faults of round `round`: every fault once, the first round in the listed order, later rounds shuffled. */
export function faultRound(rng: Rng, round: number): ClusterFault[] {
  const faults: ClusterFault[] = [...CLUSTER_FAULTS];
  for (let i = faults.length - 1; i > 0 && round > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [faults[i], faults[j]] = [faults[j], faults[i]];
  }
  return faults;
}

async function trimStream(url: string): Promise<number> {
  const redis = new Redis(url, { maxRetriesPerRequest: 2, lazyConnect: true });
  redis.on("error", () => {});
  try {
    await redis.connect();
    return Number(await redis.xtrim(STREAM, "MAXLEN", 0));
  } finally {
    redis.disconnect();
  }
}

export async function injectClusterFault(cluster: ApiCluster, fault: ClusterFault, rng: Rng, t: ClusterFaultTimings, log: (line: string) => void): Promise<void> {
  const replicas = cluster.replicas.map((_, i) => i);
  const store = cluster.store;
  switch (fault) {
    case "kill-replica": {
      const i = pick(rng, replicas);
      log(`SIGKILL ${cluster.replicas[i].name}`);
      await cluster.killReplica(i);
      await sleep(t.downMs);
      log(`start ${cluster.replicas[i].name} again`);
      await cluster.startReplica(i);
      log(`${cluster.replicas[i].name} ready`);
      return;
    }
    case "rolling-restart":
      for (const i of replicas) {
        log(`SIGTERM ${cluster.replicas[i].name} (rolling restart)`);
        await cluster.restartReplica(i);
        log(`${cluster.replicas[i].name} ready`);
      }
      return;
    case "kill-store-leader":
      return inject(store, "kill-leader", rng, t, log);
    case "pause-store-follower":
      return inject(store, "pause-follower", rng, t, log);
    case "restart-redis":
      return inject(store, "restart-redis", rng, t, log);
    case "partition-store-member":
    case "slow-store-member": {
      const leader = await store.waitForLeader();
      const i = rng() < 0.5 ? leader : pick(rng, store.nodes.map((_, j) => j).filter((j) => j !== leader));
      const role = i === leader ? "the leader" : "a follower";
      if (fault === "partition-store-member") {
        log(`partition s${i} (${role}) from the other members for ${t.partitionMs} ms`);
        store.partition(i);
      } else {
        log(`delay peer traffic into s${i} (${role}) by ${t.peerDelayMs} ms for ${t.partitionMs} ms`);
        store.delayPeers(i, t.peerDelayMs);
      }
      await sleep(t.partitionMs);
      store.heal();
      log(`healed; leader now s${await store.waitForLeader()}`);
      return;
    }
    case "trim-stream":
      log(`XTRIM ${STREAM} MAXLEN 0: ${await trimStream(store.redis.url)} entries removed`);
      return;
    case "clock-jump": {
      const i = pick(rng, replicas);
      log(`clock of ${cluster.replicas[i].name} jumps ${t.clockJumpMs / 1000} s ahead`);
      cluster.setClockOffset(i, t.clockJumpMs);
      await sleep(t.clockHoldMs);
      cluster.setClockOffset(i, 0);
      log(`clock of ${cluster.replicas[i].name} jumps back`);
      return;
    }
  }
}
