/**
 * The cluster chaos suite (cluster-chaos.ts) at CI size: the whole topology as
 * real processes (3 store members behind peer proxies, Redis, 2 apiserver
 * replicas behind haproxy), the recording workload and 2 watchers through
 * haproxy, and one round of every fault: replica SIGKILL, rolling SIGTERM restart,
 * store leader SIGKILL, follower SIGSTOP/SIGCONT, member partition, slowed member,
 * Redis restart, stream trim, clock jump. Asserts the promises: no acknowledged
 * write lost, no committed write answered as a failure (5xx or timeout), no
 * unexpected answer, no watch event lost, duplicated, out of order or wrong, and a
 * linearizable history. LONG=1 runs `npm run chaos -- --duration 10m` instead.
 * CHAOS_SEED replays a seed's choices (timing still varies).
 */
import { describe, expect, it } from "vitest";
import { brokenFigures, formatChaosReport } from "./chaos-report.ts";
import { CI_CHAOS, LONG_CHAOS, runClusterChaos } from "./cluster-chaos.ts";
import { CLUSTER_FAULTS } from "./cluster-faults.ts";

const LONG = process.env.LONG === "1";
const SEED = Number(process.env.CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 31));

describe("cluster under faults (store, Redis, apiserver replicas, haproxy: real processes)", () => {
  it(
    "loses no acknowledged write, answers no committed write as failed, delivers every watch event once and in order, stays linearizable",
    async () => {
      const figures = await runClusterChaos({ ...(LONG ? LONG_CHAOS : CI_CHAOS), seed: SEED }, (line) => console.log(line));
      const report = formatChaosReport(figures);
      console.log(report);
      for (const fault of CLUSTER_FAULTS) expect(figures.faults.join("\n"), `${fault} ran`).toMatch(faultLogPattern(fault));
      expect(figures.acknowledgedWrites, report).toBeGreaterThan(20);
      expect(figures.watchers.every((w) => w.received > 0), report).toBe(true);
      expect(brokenFigures(figures), report).toEqual([]);
    },
    LONG ? 60 * 60_000 : 15 * 60_000,
  );
});

/** The log line each fault writes when it starts (cluster-faults.ts, faults.ts). */
function faultLogPattern(fault: (typeof CLUSTER_FAULTS)[number]): RegExp {
  const lines: Record<(typeof CLUSTER_FAULTS)[number], RegExp> = {
    "kill-replica": /SIGKILL apiserver-/,
    "rolling-restart": /SIGTERM apiserver-\d+ \(rolling restart\)/,
    "kill-store-leader": /SIGKILL leader s\d/,
    "pause-store-follower": /SIGSTOP follower s\d/,
    "partition-store-member": /partition s\d/,
    "slow-store-member": /delay peer traffic into s\d/,
    "restart-redis": /restart redis-server/,
    "trim-stream": /XTRIM revisions MAXLEN 0/,
    "clock-jump": /clock of apiserver-\d+ jumps \d+ s ahead/,
  };
  return lines[fault];
}
