// Membership: applying committed conf changes, and installing a snapshot
// (which replaces the log and the configuration at once).
//
// Contract: the application calls applyConfChange for each committed conf
// change entry, in log order; the returned ConfState is what it stores with
// its snapshots. A snapshot is installed only by a follower that is a member
// of the snapshot's configuration and whose log does not already hold the
// snapshot's last entry.
//
// Invariants: after a config switch, isLearner reflects this node's role; a
// leader removed from the config (or demoted to learner) hands leadership
// over and steps down when stepDownOnRemoval is set (see handOverLeadership);
// a leader that stays recomputes its commit index
// under the new quorum rules and probes new members at once; a transfer to a
// node that is no longer a voter is aborted. A snapshot at or below the
// commit index is never installed (committed entries are never replaced).

import type { ConfChange, ConfState, Snapshot } from "./types.ts";
import { None, StateType } from "./types.ts";
import type { ProgressMap, TrackerConfig } from "./tracker.ts";
import { ProgressTracker } from "./tracker.ts";
import { Changer, applyChange, restoreConfState } from "./confchange.ts";
import { maybeCommit } from "./append-commit.ts";
import { bcastAppend, maybeSendAppend, sendAppend, sendTimeoutNow } from "./send.ts";
import { abortLeaderTransfer, becomeFollower } from "./transitions.ts";
import type { Raft } from "./raft.ts";

/** Applies a committed conf change; returns the new ConfState. */
export function applyConfChange(r: Raft, cc: ConfChange): ConfState {
  const changer = new Changer(r.trk, r.log.lastIndex());
  const res = applyChange(changer, cc);
  return switchToConfig(r, res.config, res.progress);
}

/** Makes config (with its progress) the current one and reacts to the change. */
export function switchToConfig(r: Raft, config: TrackerConfig, progress: ProgressMap): ConfState {
  r.trk.setConfig(config, progress);
  const cs = r.trk.confState();
  const pr = r.trk.progress.get(r.id);
  r.isLearner = pr !== undefined && pr.isLearner;
  if ((!pr || r.isLearner) && r.state === StateType.Leader) {
    if (r.stepDownOnRemoval) handOverLeadership(r);
    return cs;
  }
  if (r.state !== StateType.Leader || cs.voters.length === 0) return cs;
  if (maybeCommit(r)) {
    // The new config may commit more: tell everyone.
    bcastAppend(r);
  } else {
    // Probe the new members right away.
    r.trk.visit((id) => {
      if (id !== r.id) maybeSendAppend(r, id, false);
    });
  }
  if (r.leadTransferee !== None && !r.trk.config.voters.incoming.has(r.leadTransferee) && !r.trk.config.voters.outgoing.has(r.leadTransferee)) {
    abortLeaderTransfer(r);
  }
  return cs;
}

/** Whether this node is a voter (incoming or outgoing) of its current config. */
export function isVoter(r: Raft): boolean {
  return r.trk.config.voters.incoming.has(r.id) || r.trk.config.voters.outgoing.has(r.id);
}

/**
 * A leader that is no longer a voter steps down, but not before one voter of
 * the new config holds its whole log and learns a commit index that includes
 * the conf change. Stepping down at once could leave the group without any
 * electable node: a voter that does not know the change committed still uses
 * the old config, whose quorum may need this node's vote, which it refuses to
 * a candidate with a shorter log. So: transfer leadership to the most caught
 * up voter (MsgTimeoutNow carries the commit index), and become a follower
 * when sending it. Until then proposals are refused (transfer in progress);
 * a transfer that does not finish in an election timeout is retried.
 */
export function handOverLeadership(r: Raft): void {
  let target = None;
  let targetMatch = -1;
  for (const id of r.trk.voterNodes()) {
    const pr = r.trk.progress.get(id);
    if (id === r.id || !pr || pr.match <= targetMatch) continue;
    target = id;
    targetMatch = pr.match;
  }
  if (target === None) {
    becomeFollower(r, r.term, None);
    return;
  }
  r.electionElapsed = 0;
  r.leadTransferee = target;
  if (targetMatch === r.log.lastIndex()) {
    sendTimeoutNow(r, target);
    becomeFollower(r, r.term, None);
  } else {
    sendAppend(r, target);
  }
}

/** Installs a snapshot from the leader. Returns false if it was ignored (stale, or the log already has it). */
export function restoreSnapshot(r: Raft, s: Snapshot): boolean {
  if (s.metadata.index <= r.log.committed) return false;
  if (r.state !== StateType.Follower) {
    // Defensive: only followers restore snapshots.
    becomeFollower(r, r.term + 1, None);
    return false;
  }
  const cs = s.metadata.confState;
  if (!cs.voters.includes(r.id) && !cs.learners.includes(r.id) && !cs.votersOutgoing.includes(r.id)) {
    return false;
  }
  if (r.log.matchTerm(s.metadata.index, s.metadata.term)) {
    // The log already holds the snapshot's last entry: just move the commit index.
    r.log.commitTo(s.metadata.index);
    return false;
  }
  r.log.restore(s);
  r.trk = new ProgressTracker(r.trk.maxInflight);
  const restored = restoreConfState(r.trk, r.log.lastIndex(), cs);
  switchToConfig(r, restored.config, restored.progress);
  return true;
}
