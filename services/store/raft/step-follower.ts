// The follower's step function (messages of its own term, after step.ts),
// and the handlers of the leader's appends, heartbeats and snapshots (which a
// candidate also uses once it learns of a leader).
//
// Contract: a follower forwards proposals, read requests and transfer
// requests to the leader it knows (or drops them without one), resets its
// election timer on every message of the leader, and campaigns at once on
// MsgTimeoutNow (a transfer skips pre-vote).
//
// Invariants: a follower never truncates an entry at or below its commit
// index (an append below it is answered with the commit index); it accepts
// entries only where its log matches the leader's at (index, logTerm)
// (§5.3); a rejection hints the largest index of ours with a term not above
// the leader's, so the leader skips a whole divergent term per probe.

import type { Message } from "./types.ts";
import { MessageType, None, emptySnapshot, newMessage } from "./types.ts";
import { ProposalDroppedError } from "./errors.ts";
import { hup } from "./election.ts";
import { restoreSnapshot } from "./membership.ts";
import { send } from "./send.ts";
import type { Raft } from "./raft.ts";

export function stepFollower(r: Raft, m: Message): void {
  switch (m.type) {
    case MessageType.Prop:
      if (r.lead === None) throw new ProposalDroppedError("no-leader", `raft proposal dropped: no leader at term ${r.term}`);
      if (r.disableProposalForwarding) {
        throw new ProposalDroppedError("forwarding-disabled", `raft proposal dropped: not forwarding to leader ${r.lead}`);
      }
      send(r, { ...m, to: r.lead });
      return;
    case MessageType.App:
      r.electionElapsed = 0;
      r.lead = m.from;
      handleAppendEntries(r, m);
      return;
    case MessageType.Heartbeat:
      r.electionElapsed = 0;
      r.lead = m.from;
      handleHeartbeat(r, m);
      return;
    case MessageType.Snap:
      r.electionElapsed = 0;
      r.lead = m.from;
      handleSnapshot(r, m);
      return;
    case MessageType.TransferLeader:
      if (r.lead === None) return;
      send(r, { ...m, to: r.lead, term: 0 });
      return;
    case MessageType.TimeoutNow:
      // The leader's commit index first: a leader handing over because it was
      // removed relies on it (see handOverLeadership).
      r.log.commitTo(m.commit);
      // A transfer skips pre-vote: the leader asked for it, nobody is partitioned.
      hup(r, "Transfer");
      return;
    case MessageType.ReadIndex:
      if (r.lead === None) return;
      send(r, { ...m, to: r.lead });
      return;
    case MessageType.ReadIndexResp:
      if (m.entries.length !== 1) return;
      r.readStates.push({ index: m.index, requestCtx: m.entries[0].data });
      return;
    default:
      return;
  }
}

export function handleAppendEntries(r: Raft, m: Message): void {
  if (m.index < r.log.committed) {
    send(r, newMessage({ type: MessageType.AppResp, to: m.from, index: r.log.committed }));
    return;
  }
  const lastNew = r.log.maybeAppend(m.index, m.logTerm, m.commit, m.entries);
  if (lastNew !== undefined) {
    send(r, newMessage({ type: MessageType.AppResp, to: m.from, index: lastNew }));
    return;
  }
  // Mismatch at m.index: hint the largest (index, term) of ours with
  // index <= m.index and term <= m.logTerm, skipping our divergent tail.
  const [hintIndex, hintTerm] = r.log.findConflictByTerm(Math.min(m.index, r.log.lastIndex()), m.logTerm);
  send(r, newMessage({ type: MessageType.AppResp, to: m.from, index: m.index, reject: true, rejectHint: hintIndex, logTerm: hintTerm }));
}

export function handleHeartbeat(r: Raft, m: Message): void {
  r.log.commitTo(m.commit);
  send(r, newMessage({ type: MessageType.HeartbeatResp, to: m.from, context: m.context }));
}

export function handleSnapshot(r: Raft, m: Message): void {
  const s = m.snapshot ?? emptySnapshot();
  if (restoreSnapshot(r, s)) {
    send(r, newMessage({ type: MessageType.AppResp, to: m.from, index: r.log.lastIndex() }));
  } else {
    send(r, newMessage({ type: MessageType.AppResp, to: m.from, index: r.log.committed }));
  }
}
