// Outgoing messages of a node: the send queue, and the leader's appends,
// snapshots, heartbeats and TimeoutNow.
//
// Contract: messages are only queued (in r.msgs); the application sends them
// after persisting the Ready that carries them. send() stamps the sender and,
// except for campaign messages (which carry their own term) and forwarded
// proposals and read requests (which carry none), the current term.
//
// Invariants kept with the progress tracker: a MsgApp to a follower in
// Replicate state advances pr.next optimistically and takes an inflight slot;
// one in Probe state pauses the follower until it answers; a follower whose
// entries were compacted away gets a snapshot (and Snapshot state) instead.
// A heartbeat never carries a commit index past what the follower holds.

import type { Entry, Message, Snapshot } from "./types.ts";
import { MessageType, None, newMessage } from "./types.ts";
import type { Progress } from "./progress.ts";
import { ProgressState } from "./progress.ts";
import { RaftError } from "./errors.ts";
import type { Raft } from "./raft.ts";

/** Queues m to be sent after the current unstable state is persisted. m is owned by the queue. */
export function send(r: Raft, m: Message): void {
  if (m.from === None) m.from = r.id;
  const t = m.type;
  if (t === MessageType.Vote || t === MessageType.VoteResp || t === MessageType.PreVote || t === MessageType.PreVoteResp) {
    // Campaign messages carry an explicit term: the (pre-)candidate's next term or the vote's term.
    if (m.term === 0) throw new Error(`raft: term should be set when sending ${t}`);
  } else {
    if (m.term !== 0) throw new Error(`raft: term should not be set when sending ${t} (was ${m.term})`);
    // Proposals and read requests are forwarded like local messages: no term.
    if (t !== MessageType.Prop && t !== MessageType.ReadIndex) m.term = r.term;
  }
  r.msgs.push(m);
}

export function sendAppend(r: Raft, to: number): void {
  maybeSendAppend(r, to, true);
}

/**
 * Sends a MsgApp with new entries (if any) and the commit index to `to`,
 * or a snapshot if the entries it needs were compacted. Returns whether a
 * message was sent; with sendIfEmpty=false, empty appends are not sent.
 */
export function maybeSendAppend(r: Raft, to: number, sendIfEmpty: boolean): boolean {
  const pr = r.trk.progress.get(to);
  if (!pr || pr.isPaused()) return false;
  const prevIndex = pr.next - 1;
  const prevTerm = r.log.term(prevIndex);
  let ents: Entry[] | undefined;
  if (prevTerm !== undefined) {
    try {
      ents = r.log.entries(pr.next, r.maxMsgSize);
    } catch (e) {
      if (!(e instanceof RaftError && e.code === "ErrCompacted")) throw e;
    }
  }
  if (prevTerm === undefined || ents === undefined) return maybeSendSnapshot(r, to, pr);
  if (ents.length === 0 && !sendIfEmpty) return false;
  send(r, newMessage({ type: MessageType.App, to, index: prevIndex, logTerm: prevTerm, entries: ents, commit: r.log.committed }));
  pr.sentCommit = Math.max(pr.sentCommit, Math.min(r.log.committed, prevIndex + ents.length));
  if (ents.length > 0) {
    const last = ents[ents.length - 1].index;
    if (pr.state === ProgressState.Replicate) {
      pr.optimisticUpdate(last);
      pr.inflights.add(last);
    } else if (pr.state === ProgressState.Probe) {
      pr.probeSent = true;
    }
  }
  return true;
}

function maybeSendSnapshot(r: Raft, to: number, pr: Progress): boolean {
  if (!pr.recentActive) return false;
  let snap: Snapshot;
  try {
    snap = r.log.snapshot();
  } catch (e) {
    if (e instanceof RaftError && e.code === "ErrSnapshotTemporarilyUnavailable") return false;
    throw e;
  }
  if (snap.metadata.index === 0) throw new Error("raft: need a non-empty snapshot (create one before compacting)");
  pr.becomeSnapshot(snap.metadata.index);
  send(r, newMessage({ type: MessageType.Snap, to, snapshot: snap }));
  return true;
}

function sendHeartbeat(r: Raft, to: number, ctx: Uint8Array | undefined): void {
  const pr = r.trk.progress.get(to);
  // Never tell a follower to commit past what it is known to hold.
  const commit = Math.min(pr ? pr.match : 0, r.log.committed);
  send(r, newMessage({ type: MessageType.Heartbeat, to, commit, context: ctx }));
  if (pr) pr.sentCommit = Math.max(pr.sentCommit, commit);
}

/**
 * Whether the follower holds committed entries it has not been told are committed,
 * and can be sent to now (a paused one learns it from its next append or heartbeat).
 */
function owesCommit(r: Raft, pr: Progress): boolean {
  return pr.sentCommit < Math.min(pr.match, r.log.committed) && !pr.isPaused();
}

/** Under lazyCommitBroadcast: whether some follower holds committed entries it was not told are committed. */
export function hasUnsentCommit(r: Raft): boolean {
  let owed = false;
  r.trk.visit((id, pr) => {
    if (id !== r.id && !owed && owesCommit(r, pr)) owed = true;
  });
  return owed;
}

/**
 * Under lazyCommitBroadcast: tells every follower that holds committed entries it
 * was not told of the commit index (an empty append, or the entries it still
 * needs), bounding how long a follower lags when no append or heartbeat comes.
 */
export function sendUnsentCommits(r: Raft): void {
  r.trk.visit((id, pr) => {
    if (id !== r.id && owesCommit(r, pr)) maybeSendAppend(r, id, true);
  });
}

/** Sends an append (or snapshot) to every other member, in tracker order. */
export function bcastAppend(r: Raft): void {
  r.trk.visit((id) => {
    if (id !== r.id) sendAppend(r, id);
  });
}

/**
 * The commit index moved up from `committedBefore`: tells the other members.
 * Without lazyCommitBroadcast (etcd's order), and when the move commits a
 * pending conf change (a member being removed must learn that before the
 * leader applies it and stops sending to it), every other member gets an
 * append. Otherwise an append goes to every other member that has entries to
 * receive (or a snapshot it needs), and to one whose forwarded proposals are
 * now committed (its proposer waits to apply them); the others learn the index
 * with a later append or heartbeat.
 */
export function bcastCommit(r: Raft, committedBefore: number): void {
  const confChangeCommitted = committedBefore < r.pendingConfIndex && r.pendingConfIndex <= r.log.committed;
  const everyone = !r.lazyCommitBroadcast || confChangeCommitted;
  r.trk.visit((id) => {
    if (id === r.id) return;
    const proposed = r.forwardedProposals.get(id);
    const owed = proposed !== undefined && proposed <= r.log.committed;
    if (owed) r.forwardedProposals.delete(id);
    if (everyone) sendAppend(r, id);
    else maybeSendAppend(r, id, owed);
  });
}

/** Heartbeats every other member, carrying the context of the newest pending read (if any). */
export function bcastHeartbeat(r: Raft): void {
  bcastHeartbeatWithCtx(r, r.readOnly.lastPendingRequestCtx());
}

export function bcastHeartbeatWithCtx(r: Raft, ctx: Uint8Array | undefined): void {
  r.trk.visit((id) => {
    if (id !== r.id) sendHeartbeat(r, id, ctx);
  });
}

/** Asks `to` to campaign now; carries the commit index, capped (like a heartbeat's) at what `to` holds. */
export function sendTimeoutNow(r: Raft, to: number): void {
  const pr = r.trk.progress.get(to);
  const commit = Math.min(pr ? pr.match : 0, r.log.committed);
  send(r, newMessage({ type: MessageType.TimeoutNow, to, commit }));
}
