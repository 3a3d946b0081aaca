// Schedule generation: what the seed decides. drawOptions fixes a run's
// Raft options and fault rates; chaosStep draws one action of the fault
// phase (deliver, handle a Ready, tick, propose, change membership, or a
// fault: crash, restart, partition, heal, snapshot, leadership transfer,
// read index, campaign) and performs it on the world.
//
// Contract: each function draws from the world's one SeededRandom in a fixed
// order; changing that order (or the probabilities) changes every seed's
// schedule, and so every digest of digest.ts.

import type { RawNode } from "../rawnode.ts";
import type { SeededRandom } from "../rand.ts";
import { StateType } from "../types.ts";
import { ProposalDroppedError } from "../errors.ts";
import { describeConfChange, members, planConfChange } from "./membership.ts";
import type { SimNode } from "./node.ts";
import type { Simulation } from "./world.ts";

export interface WorldOptions {
  electionTick: number;
  preVote: boolean;
  checkQuorum: boolean;
  heartbeatTick: number;
  maxInflight: number;
  maxSizePerMsg: number;
  dropRate: number;
  dupRate: number;
  reorderRate: number;
  faultRate: number;
}

/** The options of one run, drawn first from the seed's generator. */
export function drawOptions(r: SeededRandom): WorldOptions {
  return {
    electionTick: r.pick([5, 8]),
    preVote: r.chance(0.6),
    checkQuorum: r.chance(0.6),
    heartbeatTick: 1 + r.intn(2),
    maxInflight: 1 + r.intn(8),
    maxSizePerMsg: r.pick([0, 40, 1024 * 1024]),
    dropRate: r.pick([0, 0.02, 0.1, 0.25]),
    dupRate: r.pick([0, 0.02, 0.1]),
    reorderRate: r.pick([0, 0.2, 0.5]),
    faultRate: r.pick([0.01, 0.03, 0.06]),
  };
}

/** One action of the fault phase. */
export function chaosStep(sim: Simulation): void {
  const r = sim.rng;
  const alive = sim.alive();
  const x = r.float();
  if (x < sim.options.faultRate) {
    fault(sim);
  } else if (x < 0.55) {
    for (let k = 1 + r.intn(3); k > 0; k--) sim.deliverOne();
  } else if (x < 0.85) {
    if (alive.length > 0) sim.handleReady(r.pick(alive), r.chance(sim.unsafe ? 0.05 : 0.01));
  } else if (x < 0.93) {
    if (alive.length > 0) {
      // Mostly a global clock tick; sometimes one node's clock runs ahead.
      const ticked = r.chance(0.8) ? alive : [r.pick(alive)];
      sim.log(`tick ${ticked.map((n) => n.id).join(",")}`);
      for (const n of ticked) sim.tickNode(n);
    }
  } else if (sim.membership && r.chance(0.15)) {
    changeMembership(sim);
  } else {
    if (alive.length > 0) sim.propose(r.pick(alive));
  }
}

/** The administrator: proposes a conf change at the leader of the highest term, if there is one. */
function changeMembership(sim: Simulation): void {
  let leader: SimNode | undefined;
  for (const n of sim.nodes) {
    const raft = n.rn?.raft;
    if (raft?.state !== StateType.Leader) continue;
    if (!leader || raft.term > (leader.rn as RawNode).raft.term) leader = n;
  }
  if (!leader) return;
  const raft = (leader.rn as RawNode).raft;
  const unused = sim.nodes.filter((n) => !sim.ledger.removedAt.has(n.id) && !members(sim.ledger.latest()).has(n.id) && !raft.trk.progress.has(n.id)).map((n) => n.id);
  const cc = planConfChange(sim.rng, raft.trk, raft.log.lastIndex(), leader.id, unused);
  if (!cc) return;
  try {
    (leader.rn as RawNode).proposeConfChange(cc);
    sim.log(`propose conf change ${describeConfChange(cc)} at ${leader.id}`);
    sim.digest?.string("accepted");
  } catch (e) {
    if (!(e instanceof ProposalDroppedError)) throw e;
    sim.log(`propose conf change ${describeConfChange(cc)} at ${leader.id} dropped: ${e.reason}`);
    sim.digest?.string(e.reason);
  }
}

function fault(sim: Simulation): void {
  const r = sim.rng;
  const alive = sim.alive();
  const dead = sim.nodes.filter((n) => !n.rn && !n.retired);
  switch (r.intn(8)) {
    case 0:
      if (alive.length > 0) {
        const n = r.pick(alive);
        sim.log(`crash ${n.id}`);
        sim.crash(n);
      }
      return;
    case 1:
      if (dead.length > 0) sim.restart(r.pick(dead));
      return;
    case 2: {
      const side = new Set<number>();
      for (const n of sim.nodes) if (r.chance(0.5)) side.add(n.id);
      sim.network.split(side);
      sim.log(`partition {${[...side].join(",")}}`);
      return;
    }
    case 3:
      sim.network.heal();
      sim.log("heal");
      return;
    case 4:
      if (alive.length > 0) sim.snapshot(r.pick(alive));
      return;
    case 5:
      if (alive.length > 0) {
        const n = r.pick(alive);
        const to = 1 + r.intn(sim.nodes.length);
        sim.log(`transfer leader at ${n.id} to ${to}`);
        (n.rn as RawNode).transferLeader(to);
      }
      return;
    case 6:
      if (alive.length > 0) {
        const n = r.pick(alive);
        try {
          (n.rn as RawNode).readIndex(new TextEncoder().encode(`r${sim.action}`));
        } catch (e) {
          if (!(e instanceof ProposalDroppedError)) throw e;
        }
      }
      return;
    default:
      if (alive.length > 0) {
        const n = r.pick(alive);
        sim.log(`campaign ${n.id}`);
        (n.rn as RawNode).campaign();
      }
  }
}
