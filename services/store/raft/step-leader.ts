// The leader's step function (messages of its own term, after step.ts).
//
// Contract: the leader appends proposals (dropping them while a leadership
// transfer is in progress, when it is not a member, or over the uncommitted
// size limit), replicates with per-follower flow control, heartbeats, serves
// ReadIndex, steps down when a check-quorum round finds no active quorum,
// and hands leadership over on MsgTransferLeader once the transferee's log
// is up to date (MsgTimeoutNow).
//
// Invariants: at most one conf change is pending (proposed but not applied);
// a conf change that may not be proposed is kept as an empty normal entry so
// that callers' indexes stay valid; a joint config is left only by an empty
// conf change and entered only from a simple one. Responses from non-members
// are ignored. Progress state moves Probe -> Replicate on a successful
// append response, and back to Probe on a rejection or unreachability.

import type { ConfChange, Message } from "./types.ts";
import { EntryType, MessageType, None } from "./types.ts";
import type { Progress } from "./progress.ts";
import { ProgressState } from "./progress.ts";
import { isJoint } from "./tracker.ts";
import { decodeConfChange } from "./confchange.ts";
import { ProposalDroppedError } from "./errors.ts";
import { appendEntry, maybeCommit } from "./append-commit.ts";
import { bcastAppend, bcastHeartbeat, bcastCommit, maybeSendAppend, sendAppend, sendTimeoutNow } from "./send.ts";
import { leaderReadIndex, readIndexAck, releasePendingReadIndexMessages } from "./read-index.ts";
import { abortLeaderTransfer, becomeFollower } from "./transitions.ts";
import { isVoter } from "./membership.ts";
import type { Raft } from "./raft.ts";

export function stepLeader(r: Raft, m: Message): void {
  // Messages that need no progress of the sender.
  switch (m.type) {
    case MessageType.Beat:
      bcastHeartbeat(r);
      return;
    case MessageType.CheckQuorum:
      if (!r.trk.quorumActive()) {
        becomeFollower(r, r.term, None);
      }
      r.trk.visit((id, pr) => {
        if (id !== r.id) pr.recentActive = false;
      });
      return;
    case MessageType.Prop:
      leaderPropose(r, m);
      return;
    case MessageType.ReadIndex:
      leaderReadIndex(r, m);
      return;
  }

  const pr = r.trk.progress.get(m.from);
  if (!pr) return;
  switch (m.type) {
    case MessageType.AppResp:
      handleAppendResponse(r, m, pr);
      return;
    case MessageType.HeartbeatResp:
      handleHeartbeatResponse(r, m, pr);
      return;
    case MessageType.SnapStatus:
      if (pr.state !== ProgressState.Snapshot) return;
      if (m.reject) pr.pendingSnapshot = 0; // failed: probe from match, not from the snapshot
      pr.becomeProbe();
      // Wait for the follower's MsgAppResp (or a heartbeat) before the next append.
      pr.probeSent = true;
      return;
    case MessageType.Unreachable:
      // Appends sent optimistically were probably lost.
      if (pr.state === ProgressState.Replicate) pr.becomeProbe();
      return;
    case MessageType.TransferLeader:
      handleTransferLeader(r, m, pr);
      return;
  }
}

function leaderPropose(r: Raft, m: Message): void {
  if (m.entries.length === 0) throw new Error("raft: stepped empty MsgProp");
  if (!r.trk.progress.has(r.id)) throw new ProposalDroppedError("not-member", "raft proposal dropped: this leader is not a member of the config");
  if (r.leadTransferee !== None) {
    throw new ProposalDroppedError("transfer-in-progress", `raft proposal dropped: leadership transfer to ${r.leadTransferee} in progress`);
  }
  const ents = m.entries.slice();
  for (let i = 0; i < ents.length; i++) {
    const e = ents[i];
    if (e.type !== EntryType.ConfChange) continue;
    const refused = confChangeRefusal(r, e.data);
    if (refused !== undefined) {
      // Keep the slot (the caller's indexes stay valid) but neutralize the change.
      ents[i] = { term: 0, index: 0, type: EntryType.Normal, data: new Uint8Array(0) };
    } else {
      r.pendingConfIndex = r.log.lastIndex() + i + 1;
    }
  }
  if (!appendEntry(r, ents)) {
    throw new ProposalDroppedError("uncommitted-size-exceeded", "raft proposal dropped: uncommitted entries exceed maxUncommittedEntriesSize");
  }
  if (r.lazyCommitBroadcast && m.from !== r.id && m.from !== None) r.forwardedProposals.set(m.from, r.log.lastIndex());
  bcastAppend(r);
}

/** Why a proposed conf change may not be appended now, or undefined if it may. */
function confChangeRefusal(r: Raft, data: Uint8Array): string | undefined {
  let cc: ConfChange;
  try {
    cc = decodeConfChange(data);
  } catch {
    return "malformed conf change";
  }
  const alreadyPending = r.pendingConfIndex > r.log.applied;
  const alreadyJoint = isJoint(r.trk.config);
  const wantsLeaveJoint = cc.changes.length === 0;
  if (alreadyPending) return `possible unapplied conf change at index ${r.pendingConfIndex} (applied to ${r.log.applied})`;
  if (alreadyJoint && !wantsLeaveJoint) return "must transition out of joint config first";
  if (!alreadyJoint && wantsLeaveJoint) return "not in joint state; refusing empty conf change";
  return undefined;
}

function handleAppendResponse(r: Raft, m: Message, pr: Progress): void {
  pr.recentActive = true;
  if (m.reject) {
    // rejectHint is where the follower guesses the logs match; logTerm is its
    // term there. Skip every index of ours whose term is larger than that:
    // a probe there would be rejected too (one probe per term, not per index).
    let nextProbeIdx = m.rejectHint;
    if (m.logTerm > 0) nextProbeIdx = r.log.findConflictByTerm(m.rejectHint, m.logTerm)[0];
    if (pr.maybeDecrTo(m.index, nextProbeIdx)) {
      if (pr.state === ProgressState.Replicate) pr.becomeProbe();
      sendAppend(r, m.from);
    }
    return;
  }
  const oldPaused = pr.isPaused();
  if (!(pr.maybeUpdate(m.index) || (pr.match === m.index && pr.state === ProgressState.Probe))) return;
  if (pr.state === ProgressState.Probe) {
    pr.becomeReplicate();
  } else if (pr.state === ProgressState.Snapshot && pr.match + 1 >= r.log.firstIndex()) {
    // The follower can be caught up from the log again.
    pr.becomeProbe();
    pr.becomeReplicate();
  } else if (pr.state === ProgressState.Replicate) {
    pr.inflights.freeLE(m.index);
  }
  const committedBefore = r.log.committed;
  if (maybeCommit(r)) {
    releasePendingReadIndexMessages(r);
    bcastCommit(r, committedBefore);
  } else if (oldPaused) {
    // The follower was paused and may miss the latest commit index.
    sendAppend(r, m.from);
  }
  // Flow control may allow more (size-limited) messages now.
  while (maybeSendAppend(r, m.from, false)) {
    // keep sending
  }
  if (m.from === r.leadTransferee && pr.match === r.log.lastIndex()) {
    sendTimeoutNow(r, m.from);
    // A leader that is no longer a voter was only handing over.
    if (!isVoter(r) && r.stepDownOnRemoval) becomeFollower(r, r.term, None);
  }
}

function handleHeartbeatResponse(r: Raft, m: Message, pr: Progress): void {
  pr.recentActive = true;
  pr.probeSent = false;
  // Free one slot so that a follower whose appends were all lost is not stuck.
  if (pr.state === ProgressState.Replicate && pr.inflights.full()) pr.inflights.freeFirstOne();
  if (pr.match < r.log.lastIndex()) sendAppend(r, m.from);
  readIndexAck(r, m);
}

function handleTransferLeader(r: Raft, m: Message, pr: Progress): void {
  if (pr.isLearner) return;
  const transferee = m.from;
  if (r.leadTransferee !== None) {
    if (r.leadTransferee === transferee) return;
    abortLeaderTransfer(r);
  }
  if (transferee === r.id) return;
  // The transfer must finish within an election timeout.
  r.electionElapsed = 0;
  r.leadTransferee = transferee;
  if (pr.match === r.log.lastIndex()) sendTimeoutNow(r, transferee);
  else sendAppend(r, transferee);
}
