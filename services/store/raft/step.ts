// The role-independent part of step(): term handling, then the messages every
// role treats alike (MsgHup, vote requests), then the role's step function.
//
// Contract, by the message's term compared with ours:
//   - zero: a local message (or a forwarded proposal or read request);
//   - higher: become a follower of the new term first, except that a vote
//     request within the leader lease (checkQuorum) is ignored unless it comes
//     from a leadership transfer, and pre-vote traffic never moves the term;
//   - lower: ignored, except that a stale leader's append or heartbeat gets
//     an answer carrying our term (so it steps down) when checkQuorum,
//     pre-vote or our being unable to campaign could otherwise leave the two
//     stuck, and a stale pre-vote is rejected with our term.
// A vote response of our term or a higher one may then move our commit index
// (election.ts, commit hint).
// Invariant: a node's term never decreases, and it adopts a higher term
// before acting on any message of that term.

import type { Message } from "./types.ts";
import { MessageType, None, StateType, newMessage } from "./types.ts";
import { commitHint, handleVoteRequest, hup, isTransferContext, learnCommitHint, promotable } from "./election.ts";
import { send } from "./send.ts";
import { becomeFollower } from "./transitions.ts";
import { stepLeader } from "./step-leader.ts";
import { stepCandidate } from "./step-candidate.ts";
import { stepFollower } from "./step-follower.ts";
import type { Raft } from "./raft.ts";

/** Processes one message. Throws ProposalDroppedError when a proposal cannot be accepted. */
export function stepRaft(r: Raft, m: Message): void {
  if (!adoptTerm(r, m)) return;
  if (m.type === MessageType.VoteResp || m.type === MessageType.PreVoteResp) learnCommitHint(r, m);
  switch (m.type) {
    case MessageType.Hup:
      hup(r, r.preVote ? "PreElection" : "Election");
      return;
    case MessageType.Vote:
    case MessageType.PreVote:
      handleVoteRequest(r, m);
      return;
    default:
      switch (r.state) {
        case StateType.Leader:
          stepLeader(r, m);
          return;
        case StateType.Candidate:
        case StateType.PreCandidate:
          stepCandidate(r, m);
          return;
        default:
          stepFollower(r, m);
      }
  }
}

/** Applies the term rules above. Returns whether the message is to be processed further. */
function adoptTerm(r: Raft, m: Message): boolean {
  if (m.term === 0) {
    // local message (or a forwarded proposal / read request)
    return true;
  }
  if (m.term > r.term) {
    if (m.type === MessageType.Vote || m.type === MessageType.PreVote) {
      const force = isTransferContext(m.context);
      const inLease = r.checkQuorum && r.lead !== None && r.electionElapsed < r.electionTimeout;
      // Leader lease: within an election timeout of hearing from a leader,
      // neither update the term nor grant a vote (unless it is a transfer).
      if (!force && inLease) return false;
    }
    if (m.type === MessageType.PreVote) {
      // Never change the term because of a pre-vote.
    } else if (m.type === MessageType.PreVoteResp && !m.reject) {
      // A granted pre-vote carries our future term; the term moves when the pre-vote wins.
    } else if (m.type === MessageType.App || m.type === MessageType.Heartbeat || m.type === MessageType.Snap) {
      becomeFollower(r, m.term, m.from);
    } else {
      becomeFollower(r, m.term, None);
    }
    return true;
  }
  if (m.term < r.term) {
    if ((r.checkQuorum || r.preVote || !promotable(r)) && (m.type === MessageType.Heartbeat || m.type === MessageType.App)) {
      // A stale leader (e.g. after a partition healed) learns the new term
      // from this response and steps down; without it, check-quorum or
      // pre-vote could leave it and this node stuck. So could a node that may
      // not campaign (a learner that got a higher term from a vote request):
      // it has no other way to bring the group to its term.
      send(r, newMessage({ type: MessageType.AppResp, to: m.from }));
    } else if (m.type === MessageType.PreVote) {
      // Reject so that a pre-candidate with a stale term learns it.
      send(r, newMessage({ type: MessageType.PreVoteResp, to: m.from, term: r.term, reject: true, ...commitHint(r) }));
    }
    return false;
  }
  return true;
}
