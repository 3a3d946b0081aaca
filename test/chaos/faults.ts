/**
 * The faults of the store chaos test and their schedule. Each fault is injected
 * while the client load runs; `inject` logs what it did (with the time since the
 * start of the run) so that a failure report can show the schedule.
 */
import { pick, type Rng } from "../support/seeded-rng.ts";
import type { StoreCluster } from "./store-cluster.ts";

export type Fault = "kill-leader" | "pause-follower" | "pause-leader" | "restart-node" | "restart-redis";

/**
 * pause-leader is etcd's "stale read after a pause" case: the stopped leader is
 * replaced, and when it continues it must not answer reads or writes as leader.
 */
export const ALL_FAULTS: readonly Fault[] = ["kill-leader", "pause-follower", "pause-leader", "restart-node", "restart-redis"];

/** Every fault once per round; the first round in the listed order, later rounds shuffled. */
export function faultSchedule(rng: Rng, rounds: number): Fault[] {
  const out: Fault[] = [...ALL_FAULTS];
  for (let r = 1; r < rounds; r++) {
    const round = [...ALL_FAULTS];
    for (let i = round.length - 1; i > 0; i--) {
      const j = Math.floor(rng() * (i + 1));
      [round[i], round[j]] = [round[j], round[i]];
    }
    out.push(...round);
  }
  return out;
}

export interface FaultTimings {
  /** How long a killed leader stays down before it is restarted. */
  downMs: number;
  /** How long a follower stays stopped. */
  pauseMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function inject(cluster: StoreCluster, fault: Fault, rng: Rng, t: FaultTimings, log: (line: string) => void, hooks: { beforeRedisRestart?: () => Promise<void> } = {}): Promise<void> {
  switch (fault) {
    case "kill-leader": {
      const l = await cluster.waitForLeader();
      log(`SIGKILL leader s${l}`);
      await cluster.kill(l);
      await sleep(t.downMs);
      log(`restart s${l} with its data`);
      await cluster.restart(l);
      log(`s${l} serving; leader now s${await cluster.waitForLeader()}`);
      return;
    }
    case "pause-follower": {
      const l = await cluster.waitForLeader();
      const f = pick(
        rng,
        cluster.nodes.map((_, i) => i).filter((i) => i !== l),
      );
      log(`SIGSTOP follower s${f} (leader s${l}) for ${t.pauseMs} ms`);
      cluster.pause(f);
      await sleep(t.pauseMs);
      cluster.resume(f);
      log(`SIGCONT s${f}`);
      return;
    }
    case "pause-leader": {
      const l = await cluster.waitForLeader();
      log(`SIGSTOP leader s${l} for ${t.pauseMs} ms`);
      cluster.pause(l);
      await sleep(t.pauseMs);
      cluster.resume(l);
      log(`SIGCONT s${l}; leader now s${await cluster.waitForLeader()}`);
      return;
    }
    case "restart-node": {
      const i = Math.floor(rng() * cluster.nodes.length);
      const l = await cluster.leader();
      log(`restart s${i}${i === l ? " (the leader)" : ""} with its data (SIGTERM, start)`);
      await cluster.restart(i);
      log(`s${i} serving; leader now s${await cluster.waitForLeader()}`);
      return;
    }
    case "restart-redis": {
      await hooks.beforeRedisRestart?.();
      log("restart redis-server (the stream is lost)");
      await cluster.redis.restart();
      log("redis-server up");
      return;
    }
  }
}
