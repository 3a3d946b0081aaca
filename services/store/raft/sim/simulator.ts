// A deterministic randomized simulator of a Raft group, for safety and
// liveness testing. One seed fixes everything: the group size and options,
// the network's behaviour (drops, duplicates, reordering, partitions), node
// crashes and restarts, proposals, snapshots, reads, leadership transfers and
// membership changes.
//
// This file is the entry point: runSchedule(seed) runs one schedule and
// returns its summary; replaySeed(seed) reruns it with a trace of its
// actions. The parts:
//
//   outcome.ts         options, result, SimulationError
//   world.ts           the nodes, the network and the primitive actions
//   node.ts            one node's disk, persistence and state machine
//   network.ts         messages in flight: reordering, drops, duplicates, partitions
//   schedule.ts        what the seed decides: options and the fault phase's actions
//   run.ts             the fault phase and the calm phase (liveness goal)
//   membership.ts      conf change planning and the conf change ledger
//   checks.ts          the safety invariants, checked after every action
//
// Contract: a failure of any check, or an exception from the core, throws
// SimulationError naming the seed; the same seed and options always give the
// same result (and the same digest, see digest.ts).

import type { SimOptions, SimResult } from "./outcome.ts";
import { SimulationError } from "./outcome.ts";
import { Simulation } from "./world.ts";
import { runCalm, runChaos } from "./run.ts";

export type { SimOptions, SimResult } from "./outcome.ts";
export { SimulationError } from "./outcome.ts";

/** Actions of the fault phase of one schedule, by default. */
export const defaultSteps = 2500;

function result(sim: Simulation, steps: number, calmSteps: number): SimResult {
  let maxTerm = 0;
  let committed = 0;
  for (const n of sim.nodes) {
    maxTerm = Math.max(maxTerm, n.persisted.term);
    committed = Math.max(committed, n.commitSeen);
  }
  return {
    seed: sim.seed,
    nodes: sim.n,
    steps,
    calmSteps,
    maxTerm,
    leadersElected: sim.checker.leadersElected,
    committed,
    crashes: sim.stats.crashes,
    snapshotsInstalled: sim.stats.snapshotsInstalled,
    messagesDelivered: sim.stats.delivered,
    membership: { ...sim.ledger.stats, leadersRemoved: sim.stats.leadersRemoved },
    retired: { ...sim.stats.retired },
    livenessWaived: sim.livenessWaived,
    trace: sim.trace,
    digest: sim.digest?.hex() ?? "",
  };
}

/** Runs one schedule; throws SimulationError naming the seed on any violation. */
export function runSchedule(seed: number, opts: SimOptions = {}): SimResult {
  const steps = opts.steps ?? defaultSteps;
  const sim = new Simulation(seed, opts.trace ?? false, opts.unsafeSendBeforePersist ?? false, opts.digest ?? false, opts.membership ?? true);
  try {
    runChaos(sim, steps);
    const calmSteps = runCalm(sim);
    return result(sim, steps, calmSteps);
  } catch (e) {
    if (e instanceof SimulationError) throw e;
    // An exception from the core (e.g. an internal invariant) is a failure of this seed too.
    throw new SimulationError(seed, `exception: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`, sim.trace);
  }
}

/** Reruns the schedule of one seed with a trace (for debugging a failure). */
export function replaySeed(seed: number, opts: Omit<SimOptions, "trace"> = {}): SimResult {
  return runSchedule(seed, { ...opts, trace: true });
}
