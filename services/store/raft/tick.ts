// The logical clock: what one tick does for each role.
//
// Contract: time exists for the core only as ticks. A follower or
// (pre-)candidate that may campaign starts an election (MsgHup) once its
// randomized election timeout has passed; a leader heartbeats every
// heartbeatTimeout ticks and, every electionTimeout ticks, checks that a
// quorum was active (with checkQuorum) and abandons an unfinished leadership
// transfer. The resulting messages go through step(), like any other input.

import { MessageType, None, StateType, newMessage } from "./types.ts";
import { promotable } from "./election.ts";
import { abortLeaderTransfer } from "./transitions.ts";
import { handOverLeadership, isVoter } from "./membership.ts";
import type { Raft } from "./raft.ts";

export function tick(r: Raft): void {
  if (r.state === StateType.Leader) tickHeartbeat(r);
  else tickElection(r);
}

function pastElectionTimeout(r: Raft): boolean {
  return r.electionElapsed >= r.randomizedElectionTimeout;
}

function tickElection(r: Raft): void {
  r.electionElapsed++;
  if (promotable(r) && pastElectionTimeout(r)) {
    r.electionElapsed = 0;
    r.step(newMessage({ type: MessageType.Hup, from: r.id }));
  }
}

function tickHeartbeat(r: Raft): void {
  r.heartbeatElapsed++;
  r.electionElapsed++;
  if (r.electionElapsed >= r.electionTimeout) {
    r.electionElapsed = 0;
    if (r.checkQuorum) r.step(newMessage({ type: MessageType.CheckQuorum, from: r.id }));
    // A transfer that did not finish within an election timeout is abandoned
    // (and retried, by a leader that is no longer a voter and hands over).
    if (r.state === StateType.Leader && r.leadTransferee !== None) {
      abortLeaderTransfer(r);
      if (!isVoter(r) && r.stepDownOnRemoval) handOverLeadership(r);
    }
  }
  if (r.state !== StateType.Leader) return;
  if (r.heartbeatElapsed >= r.heartbeatTimeout) {
    r.heartbeatElapsed = 0;
    r.step(newMessage({ type: MessageType.Beat, from: r.id }));
  }
}
