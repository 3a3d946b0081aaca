// The step function of candidates and pre-candidates (messages of their own
// term, after step.ts).
//
// Contract: a (pre-)candidate has no leader, so proposals are dropped. A
// leader's message of this term (append, heartbeat, snapshot) means the
// election is lost: become its follower and handle the message as one.
// Vote responses are tallied: a won pre-vote round starts the real election,
// a won election makes this node leader, a lost one makes it a follower.
//
// Invariant: only responses to the current round count (a candidate ignores
// late pre-vote responses), and a rejected pre-vote never moves the term.

import type { Message } from "./types.ts";
import { MessageType, None, StateType } from "./types.ts";
import { VoteResult } from "./quorum.ts";
import { ProposalDroppedError } from "./errors.ts";
import { campaign, poll } from "./election.ts";
import { bcastAppend } from "./send.ts";
import { becomeFollower, becomeLeader } from "./transitions.ts";
import { handleAppendEntries, handleHeartbeat, handleSnapshot } from "./step-follower.ts";
import type { Raft } from "./raft.ts";

export function stepCandidate(r: Raft, m: Message): void {
  // Only the responses of the current candidacy count (stale pre-vote
  // responses may still arrive while a candidate).
  const myVoteRespType = r.state === StateType.PreCandidate ? MessageType.PreVoteResp : MessageType.VoteResp;
  switch (m.type) {
    case MessageType.Prop:
      throw new ProposalDroppedError("no-leader", `raft proposal dropped: no leader at term ${r.term}`);
    case MessageType.App:
      becomeFollower(r, m.term, m.from);
      handleAppendEntries(r, m);
      return;
    case MessageType.Heartbeat:
      becomeFollower(r, m.term, m.from);
      handleHeartbeat(r, m);
      return;
    case MessageType.Snap:
      becomeFollower(r, m.term, m.from);
      handleSnapshot(r, m);
      return;
    case myVoteRespType: {
      const res = poll(r, m.from, !m.reject);
      if (res === VoteResult.Won) {
        if (r.state === StateType.PreCandidate) {
          campaign(r, "Election");
        } else {
          becomeLeader(r);
          bcastAppend(r);
        }
      } else if (res === VoteResult.Lost) {
        // A rejected pre-vote carries a future term; keep ours.
        becomeFollower(r, r.term, None);
      }
      return;
    }
    default:
      return;
  }
}
