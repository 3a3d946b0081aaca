// The run loop of one schedule, in two phases:
//
//   fault phase  `steps` actions drawn by schedule.ts, each followed by
//                the safety checks;
//   calm phase   the network heals and turns reliable, crashed nodes restart,
//                and global ticks alternate with settling (delivering
//                messages and handling Readies until nothing is left). The
//                goal: a leader, and a proposal of this phase applied on every
//                member of the last committed configuration.
//
// Contract: runCalm returns the rounds it took, or fails with a liveness
// error, unless the goal was not fair to ask (quorumLackingConfig): then
// it records why in sim.livenessWaived and returns its round budget.

import type { RawNode } from "../rawnode.ts";
import { StateType } from "../types.ts";
import { ProposalDroppedError } from "../errors.ts";
import { confKey, members } from "./membership.ts";
import { chaosStep } from "./schedule.ts";
import type { Simulation } from "./world.ts";

export function runChaos(sim: Simulation, steps: number): void {
  for (sim.action = 0; sim.action < steps; sim.action++) {
    chaosStep(sim);
    sim.checkInvariants();
  }
}

/** Heals everything, then requires a leader and a committed proposal applied everywhere. */
export function runCalm(sim: Simulation): number {
  sim.network.makeReliable();
  for (const n of sim.nodes) if (!n.rn && !n.retired) sim.restart(n);
  sim.log("calm phase");
  const maxRounds = 40 * sim.options.electionTick;
  let lastProposal = -Infinity;
  for (let round = 0; round < maxRounds; round++) {
    for (const n of sim.nodes) if (n.rn) sim.tickNode(n);
    settle(sim);
    // The goal concerns the members of the last committed configuration.
    const current = members(sim.ledger.latest());
    const group = sim.nodes.filter((n) => current.has(n.id));
    const leader = group.find((n) => n.rn?.raft.state === StateType.Leader && group.every((o) => (o.rn as RawNode).raft.term <= (n.rn as RawNode).raft.term));
    if (group.every((n) => n.sawLive)) return round;
    if (leader && round - lastProposal >= 3 * sim.options.electionTick) {
      const key = `live${sim.seed}-${round}`;
      sim.liveKeys.add(key);
      try {
        (leader.rn as RawNode).propose(new TextEncoder().encode(key));
        sim.log(`live proposal ${key} at ${leader.id}`);
        lastProposal = round;
      } catch (e) {
        if (!(e instanceof ProposalDroppedError)) throw e;
      }
      settle(sim);
    }
  }
  const lacking = quorumLackingConfig(sim);
  if (lacking !== undefined) {
    // Not a liveness violation: the documented case (retirement.ts) where
    // no live member may win an election. Safety was checked throughout.
    sim.log(`liveness not required: ${lacking}`);
    sim.livenessWaived = lacking;
    return maxRounds;
  }
  const states = sim.nodes.map((n) =>
    n.rn ? `${n.id}:${n.rn.status().state}@${n.rn.raft.term} commit=${n.rn.raft.log.committed} applied=${n.sm.applied} live=${n.sawLive} config=${confKey(n.confState)}` : `${n.id}:retired`,
  );
  sim.fail(`liveness: no committed proposal on every node after ${maxRounds} calm rounds [${states.join(" ")}]`);
}

/**
 * The fair premise of the liveness goal: every live node that is a voter
 * of its own current configuration (so may campaign) must find, in each
 * half of that configuration, a majority of voters that did not shut down
 * after their removal. Returns a description of the first config that
 * lacks one, or undefined when the goal is fair.
 */
function quorumLackingConfig(sim: Simulation): string | undefined {
  const live = (id: number): boolean => sim.nodes[id - 1]?.rn !== undefined;
  for (const n of sim.nodes) {
    if (!n.rn) continue;
    const cs = n.confState;
    if (!cs.voters.includes(n.id) && !cs.votersOutgoing.includes(n.id)) continue;
    for (const half of [cs.voters, cs.votersOutgoing]) {
      if (half.length === 0) continue;
      const alive = half.filter(live).length;
      if (2 * alive <= half.length) return `node ${n.id} uses ${confKey(cs)}; live voters of {${half.join(",")}}: ${alive}`;
    }
  }
  return undefined;
}

/** Delivers messages and handles Readies until nothing is left to do. */
function settle(sim: Simulation): void {
  for (let guard = 0; guard < 100_000; guard++) {
    sim.action++;
    let busy = false;
    for (const n of sim.nodes) {
      if (n.rn?.hasReady()) {
        sim.handleReady(n);
        busy = true;
      }
    }
    if (sim.network.length > 0) {
      sim.deliverOne();
      busy = true;
    }
    sim.checkInvariants();
    if (!busy) return;
  }
  sim.fail("calm phase did not settle");
}
