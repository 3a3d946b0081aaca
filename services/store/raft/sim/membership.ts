// Membership changes in the simulator: an administrator that plans conf
// changes, and a ledger that checks how they are applied.
//
// planConfChange picks one change the leader's current config allows: add a
// voter or a learner (from ids never used), promote a learner, demote or
// remove a voter (the leader included), remove a learner, enter a joint
// config with several of these (left automatically or explicitly), or leave
// an explicit joint config. A plan is validated against the leader's config
// with the core's own Changer; that config is the one the change is applied
// to if it commits, because the leader accepts a conf change only once every
// earlier one is applied. Removed ids are never added again (as in etcd).
//
// The ConfLedger records, for every committed conf change (by log index), the
// configuration it produced, in log order. Each node's applied conf changes
// must follow that order without gaps (a snapshot may skip over changes, but
// then its ConfState must be the configuration at its index), and must
// produce the same configuration everywhere.

import type { ConfChange, ConfChangeSingle, ConfState } from "../types.ts";
import { ConfChangeTransition, ConfChangeType } from "../types.ts";
import type { ProgressTracker } from "../tracker.ts";
import { isJoint } from "../tracker.ts";
import { Changer, applyChange } from "../confchange.ts";
import { RaftError } from "../errors.ts";
import type { SeededRandom } from "../rand.ts";

/** Every id a ConfState names (voters, learners, outgoing voters, staged learners). */
export function members(cs: ConfState): Set<number> {
  return new Set([...cs.voters, ...cs.learners, ...cs.votersOutgoing, ...cs.learnersNext]);
}

/** A canonical text of a ConfState, for comparisons. */
export function confKey(cs: ConfState): string {
  const s = (a: number[]): string => [...a].sort((x, y) => x - y).join(",");
  return `v=${s(cs.voters)} l=${s(cs.learners)} vo=${s(cs.votersOutgoing)} ln=${s(cs.learnersNext)} al=${cs.autoLeave}`;
}

/** Voters of a config never planned below this (so that faults keep mattering). */
const minVoters = 2;

/**
 * Plans a conf change for the leader whose tracker is trk, or undefined when
 * none is possible. `unused` are ids that were never members.
 */
export function planConfChange(rng: SeededRandom, trk: ProgressTracker, lastIndex: number, leaderId: number, unused: number[]): ConfChange | undefined {
  const cfg = trk.config;
  if (isJoint(cfg)) {
    // Joint configs with autoLeave are left by the leader itself.
    return cfg.autoLeave ? undefined : { transition: ConfChangeTransition.Auto, changes: [] };
  }
  const voters = [...cfg.voters.incoming].sort((a, b) => a - b);
  const learners = [...cfg.learners].sort((a, b) => a - b);
  const options: ConfChangeSingle[] = [];
  for (const id of unused) {
    options.push({ type: ConfChangeType.AddNode, nodeId: id }, { type: ConfChangeType.AddLearnerNode, nodeId: id });
  }
  for (const id of learners) options.push({ type: ConfChangeType.AddNode, nodeId: id }, { type: ConfChangeType.RemoveNode, nodeId: id });
  for (const id of voters) options.push({ type: ConfChangeType.AddLearnerNode, nodeId: id }, { type: ConfChangeType.RemoveNode, nodeId: id });
  if (rng.chance(0.15)) {
    // Remove the leader itself.
    options.push({ type: ConfChangeType.RemoveNode, nodeId: leaderId }, { type: ConfChangeType.RemoveNode, nodeId: leaderId });
  }
  if (options.length === 0) return undefined;
  const joint = rng.chance(0.35);
  const changes: ConfChangeSingle[] = [rng.pick(options)];
  if (joint) {
    const second = rng.pick(options);
    if (second.nodeId !== changes[0].nodeId) changes.push(second);
  }
  const transition = joint ? rng.pick([ConfChangeTransition.Auto, ConfChangeTransition.JointImplicit, ConfChangeTransition.JointExplicit]) : ConfChangeTransition.Auto;
  const cc: ConfChange = { transition, changes };
  try {
    const res = applyChange(new Changer(trk, lastIndex), cc);
    if (res.config.voters.incoming.size < minVoters) return undefined;
  } catch (e) {
    if (e instanceof RaftError && e.code === "ErrInvalidConfChange") return undefined;
    throw e;
  }
  return cc;
}

interface LedgerRecord {
  index: number;
  change: string;
  after: ConfState;
  key: string;
}

export interface MembershipStats {
  confChanges: number;
  added: number;
  removed: number;
  promoted: number;
  jointEntered: number;
  jointLeft: number;
}

export class ConfLedger {
  private readonly records: LedgerRecord[] = [];
  /** Ids removed by a committed conf change, with its index; never members again. */
  readonly removedAt = new Map<number, number>();
  readonly stats: MembershipStats = { confChanges: 0, added: 0, removed: 0, promoted: 0, jointEntered: 0, jointLeft: 0 };

  constructor(private readonly initial: ConfState) {}

  /** The configuration after every conf change at or below index. */
  configAt(index: number): ConfState {
    let cs = this.initial;
    for (const r of this.records) {
      if (r.index > index) break;
      cs = r.after;
    }
    return cs;
  }

  /** Ids removed by conf changes at or below index. */
  removedUpTo(index: number): number[] {
    return [...this.removedAt].filter(([, at]) => at <= index).map(([id]) => id);
  }

  /** The configuration after the last committed conf change known. */
  latest(): ConfState {
    return this.records.length > 0 ? this.records[this.records.length - 1].after : this.initial;
  }

  /**
   * Checks that a node whose last applied conf change (or snapshot) is at
   * `cursor` applied `change` at `index` with result `after`, in the global
   * order. Returns a description of the violation, or undefined.
   */
  recordApply(cursor: number, index: number, change: string, after: ConfState): string | undefined {
    const next = this.records.find((r) => r.index > cursor);
    if (next === undefined) {
      this.append(index, change, after);
      return undefined;
    }
    if (next.index < index) return `skipped the conf change at ${next.index} (applied ${index} after ${cursor})`;
    if (next.index > index) return `applied a conf change at ${index} that the others did not (next known one is at ${next.index})`;
    if (next.change !== change) return `applied a different conf change at ${index}: ${change} vs ${next.change}`;
    if (next.key !== confKey(after)) return `conf change at ${index} produced ${confKey(after)}, elsewhere ${next.key}`;
    return undefined;
  }

  private append(index: number, change: string, after: ConfState): void {
    const before = this.latest();
    const was = members(before);
    const now = members(after);
    for (const id of now) if (!was.has(id)) this.stats.added++;
    for (const id of was) {
      if (now.has(id)) continue;
      this.stats.removed++;
      this.removedAt.set(id, index);
    }
    for (const id of before.learners) if (after.voters.includes(id)) this.stats.promoted++;
    if (before.votersOutgoing.length === 0 && after.votersOutgoing.length > 0) this.stats.jointEntered++;
    if (before.votersOutgoing.length > 0 && after.votersOutgoing.length === 0) this.stats.jointLeft++;
    this.stats.confChanges++;
    this.records.push({ index, change, after, key: confKey(after) });
  }
}

/** A short text of a conf change, for traces and ledger comparisons. */
export function describeConfChange(cc: ConfChange): string {
  if (cc.changes.length === 0) return "leave-joint";
  const names: Record<number, string> = { [ConfChangeType.AddNode]: "voter", [ConfChangeType.AddLearnerNode]: "learner", [ConfChangeType.RemoveNode]: "remove", [ConfChangeType.UpdateNode]: "update" };
  return `${["auto", "joint-implicit", "joint-explicit"][cc.transition]}[${cc.changes.map((c) => `${names[c.type]} ${c.nodeId}`).join(", ")}]`;
}
