// Membership changes. The Changer computes a new (config, progress map) from
// the current one without modifying it, validating the transition:
//
//   simple(...)     at most one voter added or removed (learner changes free);
//   enterJoint(...) C_old -> C_old,new: the outgoing config keeps the old voters;
//   leaveJoint()    C_old,new -> C_new; staged learners (learnersNext) join.
//
// Also: encoding of a ConfChange into entry data, and restore() that rebuilds
// a config from a ConfState (snapshot or bootstrap).

import type { ConfChange, ConfChangeSingle, ConfState } from "./types.ts";
import { ConfChangeTransition, ConfChangeType } from "./types.ts";
import { Progress } from "./progress.ts";
import type { ProgressMap, ProgressTracker, TrackerConfig } from "./tracker.ts";
import { cloneTrackerConfig, emptyTrackerConfig, isJoint } from "./tracker.ts";
import { RaftError } from "./errors.ts";

export interface ChangeResult {
  config: TrackerConfig;
  progress: ProgressMap;
}

const invalid = (msg: string): RaftError => new RaftError("ErrInvalidConfChange", msg);

export class Changer {
  constructor(
    private readonly tracker: Pick<ProgressTracker, "config" | "progress" | "maxInflight">,
    private readonly lastIndex: number,
  ) {}

  enterJoint(autoLeave: boolean, changes: ConfChangeSingle[]): ChangeResult {
    const { config, progress } = this.checkAndCopy();
    if (isJoint(config)) throw invalid("config is already joint");
    if (config.voters.incoming.size === 0) throw invalid("can't make a zero-voter config joint");
    config.voters.outgoing = new Set(config.voters.incoming);
    this.apply(config, progress, changes);
    config.autoLeave = autoLeave;
    checkInvariants(config, progress);
    return { config, progress };
  }

  leaveJoint(): ChangeResult {
    const { config, progress } = this.checkAndCopy();
    if (!isJoint(config)) throw invalid("can't leave a non-joint config");
    for (const id of config.learnersNext) {
      config.learners.add(id);
      const pr = progress.get(id);
      if (pr) pr.isLearner = true;
    }
    config.learnersNext = new Set();
    for (const id of config.voters.outgoing) {
      if (!config.voters.incoming.has(id) && !config.learners.has(id)) progress.delete(id);
    }
    config.voters.outgoing = new Set();
    config.autoLeave = false;
    checkInvariants(config, progress);
    return { config, progress };
  }

  simple(changes: ConfChangeSingle[]): ChangeResult {
    const { config, progress } = this.checkAndCopy();
    if (isJoint(config)) throw invalid("can't apply simple config change in joint config");
    this.apply(config, progress, changes);
    if (symdiff(this.tracker.config.voters.incoming, config.voters.incoming) > 1) {
      throw invalid("more than one voter changed without entering joint config");
    }
    checkInvariants(config, progress);
    return { config, progress };
  }

  private apply(config: TrackerConfig, progress: ProgressMap, changes: ConfChangeSingle[]): void {
    for (const cc of changes) {
      if (cc.nodeId === 0) continue; // a change the application chose to neutralize
      switch (cc.type) {
        case ConfChangeType.AddNode:
          this.makeVoter(config, progress, cc.nodeId);
          break;
        case ConfChangeType.AddLearnerNode:
          this.makeLearner(config, progress, cc.nodeId);
          break;
        case ConfChangeType.RemoveNode:
          this.remove(config, progress, cc.nodeId);
          break;
        case ConfChangeType.UpdateNode:
          break;
        default:
          throw invalid(`unexpected conf change type ${String(cc.type)}`);
      }
    }
    if (config.voters.incoming.size === 0) throw invalid("removed all voters");
  }

  private makeVoter(config: TrackerConfig, progress: ProgressMap, id: number): void {
    const pr = progress.get(id);
    if (!pr) {
      this.initProgress(config, progress, id, false);
      return;
    }
    pr.isLearner = false;
    config.learners.delete(id);
    config.learnersNext.delete(id);
    config.voters.incoming.add(id);
  }

  private makeLearner(config: TrackerConfig, progress: ProgressMap, id: number): void {
    const pr = progress.get(id);
    if (!pr) {
      this.initProgress(config, progress, id, true);
      return;
    }
    if (pr.isLearner) return;
    this.remove(config, progress, id);
    progress.set(id, pr);
    // A voter of the outgoing config cannot also be a learner: stage it.
    if (config.voters.outgoing.has(id)) {
      config.learnersNext.add(id);
    } else {
      pr.isLearner = true;
      config.learners.add(id);
    }
  }

  private remove(config: TrackerConfig, progress: ProgressMap, id: number): void {
    if (!progress.has(id)) return;
    config.voters.incoming.delete(id);
    config.learners.delete(id);
    config.learnersNext.delete(id);
    if (!config.voters.outgoing.has(id)) progress.delete(id);
  }

  private initProgress(config: TrackerConfig, progress: ProgressMap, id: number, isLearner: boolean): void {
    if (isLearner) config.learners.add(id);
    else config.voters.incoming.add(id);
    // Probe from the last index; a new member is counted as recently active so
    // that check-quorum does not depose the leader before it could answer.
    progress.set(id, new Progress({ match: 0, next: Math.max(this.lastIndex, 1), maxInflight: this.tracker.maxInflight, isLearner, recentActive: true }));
  }

  private checkAndCopy(): ChangeResult {
    const config = cloneTrackerConfig(this.tracker.config);
    const progress: ProgressMap = new Map();
    for (const [id, pr] of this.tracker.progress) progress.set(id, pr.clone());
    checkInvariants(config, progress);
    return { config, progress };
  }
}

export function checkInvariants(config: TrackerConfig, progress: ProgressMap): void {
  for (const set of [config.voters.incoming, config.voters.outgoing, config.learners, config.learnersNext]) {
    for (const id of set) if (!progress.has(id)) throw invalid(`no progress for ${id}`);
  }
  for (const id of config.learnersNext) {
    if (!config.voters.outgoing.has(id)) throw invalid(`${id} is in learnersNext, but not in the outgoing voters`);
    if (progress.get(id)?.isLearner) throw invalid(`${id} is in learnersNext, but is already marked as learner`);
  }
  for (const id of config.learners) {
    if (config.voters.outgoing.has(id)) throw invalid(`${id} is in learners and the outgoing voters`);
    if (config.voters.incoming.has(id)) throw invalid(`${id} is in learners and the incoming voters`);
    if (!progress.get(id)?.isLearner) throw invalid(`${id} is in learners, but is not marked as learner`);
  }
  if (!isJoint(config)) {
    if (config.learnersNext.size > 0) throw invalid("learnersNext must be empty when not joint");
    if (config.autoLeave) throw invalid("autoLeave must be false when not joint");
  }
}

function symdiff(a: ReadonlySet<number>, b: ReadonlySet<number>): number {
  let n = 0;
  for (const id of a) if (!b.has(id)) n++;
  for (const id of b) if (!a.has(id)) n++;
  return n;
}

/** Whether the change leaves a joint config (an empty change list). */
export function isLeaveJoint(cc: ConfChange): boolean {
  return cc.changes.length === 0;
}

/** Whether the change enters a joint config, and if so whether it is left automatically. */
export function enterJoint(cc: ConfChange): { enter: boolean; autoLeave: boolean } {
  if (cc.transition !== ConfChangeTransition.Auto || cc.changes.length > 1) {
    return { enter: true, autoLeave: cc.transition !== ConfChangeTransition.JointExplicit };
  }
  return { enter: false, autoLeave: false };
}

/** Applies a ConfChange with the right Changer operation. */
export function applyChange(changer: Changer, cc: ConfChange): ChangeResult {
  if (isLeaveJoint(cc)) return changer.leaveJoint();
  const j = enterJoint(cc);
  if (j.enter) return changer.enterJoint(j.autoLeave, cc.changes);
  return changer.simple(cc.changes);
}

/**
 * Rebuilds the config described by a ConfState, starting from an empty config:
 * the outgoing voters are added one at a time, then the joint config is
 * entered with the incoming voters and the learners.
 */
export function restoreConfState(tracker: Pick<ProgressTracker, "maxInflight">, lastIndex: number, cs: ConfState): ChangeResult {
  let cur: ChangeResult = { config: emptyTrackerConfig(), progress: new Map() };
  const step = (f: (c: Changer) => ChangeResult): void => {
    cur = f(new Changer({ config: cur.config, progress: cur.progress, maxInflight: tracker.maxInflight }, lastIndex));
  };
  const incoming: ConfChangeSingle[] = [];
  if (cs.votersOutgoing.length === 0) {
    for (const id of cs.voters) step((c) => c.simple([{ type: ConfChangeType.AddNode, nodeId: id }]));
    for (const id of cs.learners) step((c) => c.simple([{ type: ConfChangeType.AddLearnerNode, nodeId: id }]));
    return cur;
  }
  for (const id of cs.votersOutgoing) step((c) => c.simple([{ type: ConfChangeType.AddNode, nodeId: id }]));
  for (const id of cs.votersOutgoing) incoming.push({ type: ConfChangeType.RemoveNode, nodeId: id });
  for (const id of cs.voters) incoming.push({ type: ConfChangeType.AddNode, nodeId: id });
  for (const id of cs.learners) incoming.push({ type: ConfChangeType.AddLearnerNode, nodeId: id });
  // learnersNext are outgoing voters that become learners when leaving.
  for (const id of cs.learnersNext) incoming.push({ type: ConfChangeType.AddLearnerNode, nodeId: id });
  step((c) => c.enterJoint(cs.autoLeave, incoming));
  return cur;
}

// ---- entry data encoding --------------------------------------------------
// Layout: u8 version(1) | u8 transition | u32 count | count * (u8 type, f64 nodeId) | u32 ctxLen | ctx.
// An empty byte array decodes to the empty change (leave joint).

const CC_VERSION = 1;

export function encodeConfChange(cc: ConfChange): Uint8Array {
  const ctx = cc.context ?? new Uint8Array(0);
  const buf = new Uint8Array(1 + 1 + 4 + cc.changes.length * 9 + 4 + ctx.byteLength);
  const dv = new DataView(buf.buffer);
  let o = 0;
  dv.setUint8(o++, CC_VERSION);
  dv.setUint8(o++, cc.transition);
  dv.setUint32(o, cc.changes.length);
  o += 4;
  for (const c of cc.changes) {
    dv.setUint8(o++, c.type);
    dv.setFloat64(o, c.nodeId);
    o += 8;
  }
  dv.setUint32(o, ctx.byteLength);
  o += 4;
  buf.set(ctx, o);
  return buf;
}

export function decodeConfChange(data: Uint8Array): ConfChange {
  if (data.byteLength === 0) return { transition: ConfChangeTransition.Auto, changes: [] };
  const dv = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const fail = (): never => {
    throw invalid("malformed conf change data");
  };
  if (data.byteLength < 10 || dv.getUint8(0) !== CC_VERSION) fail();
  const transition = dv.getUint8(1);
  if (transition > 2) fail();
  const n = dv.getUint32(2);
  let o = 6;
  if (data.byteLength < o + n * 9 + 4) fail();
  const changes: ConfChangeSingle[] = [];
  for (let i = 0; i < n; i++) {
    const type = dv.getUint8(o);
    const nodeId = dv.getFloat64(o + 1);
    if (type > 3 || !Number.isSafeInteger(nodeId) || nodeId < 0) fail();
    changes.push({ type: type as ConfChangeType, nodeId });
    o += 9;
  }
  const ctxLen = dv.getUint32(o);
  o += 4;
  if (data.byteLength !== o + ctxLen) fail();
  const cc: ConfChange = { transition: transition as ConfChangeTransition, changes };
  if (ctxLen > 0) cc.context = data.slice(o, o + ctxLen);
  return cc;
}
