// Role transitions: follower, pre-candidate, candidate, leader.
//
// Contract: every transition except to pre-candidate goes through reset(),
// which clears the per-term volatile state (leader, timers, votes, progress,
// pending reads, leadership transfer) and draws a new randomized election
// timeout. Invalid transitions (leader -> (pre-)candidate, follower -> leader)
// throw: they would be a bug in the core.
//
// Invariants: the vote is cleared exactly when the term changes, so a node
// votes at most once per term; a candidate votes for itself in its new term;
// a pre-candidate changes neither term nor vote; a new leader appends an
// empty entry of its term, whose commit commits every earlier entry (§5.4.2).

import { EntryType, None, StateType } from "./types.ts";
import { Progress } from "./progress.ts";
import type { ProgressMap } from "./tracker.ts";
import { ReadOnly } from "./read-only.ts";
import { appendEntry } from "./append-commit.ts";
import type { Raft } from "./raft.ts";

export function resetRandomizedElectionTimeout(r: Raft): void {
  r.randomizedElectionTimeout = r.electionTimeout + r.random.intn(r.electionTimeout);
}

export function abortLeaderTransfer(r: Raft): void {
  r.leadTransferee = None;
}

function reset(r: Raft, term: number): void {
  if (r.term !== term) {
    r.term = term;
    r.vote = None;
  }
  r.lead = None;
  r.electionElapsed = 0;
  r.heartbeatElapsed = 0;
  resetRandomizedElectionTimeout(r);
  abortLeaderTransfer(r);
  r.trk.resetVotes();
  const last = r.log.lastIndex();
  const fresh: ProgressMap = new Map();
  for (const [id, pr] of r.trk.progress) {
    const np = new Progress({ match: 0, next: last + 1, maxInflight: r.trk.maxInflight, isLearner: pr.isLearner });
    if (id === r.id) np.match = last;
    fresh.set(id, np);
  }
  r.trk.setConfig(r.trk.config, fresh);
  r.pendingConfIndex = 0;
  r.uncommittedSize = 0;
  r.readOnly = new ReadOnly(r.readOnly.option);
  r.pendingReadIndexMessages = [];
}

export function becomeFollower(r: Raft, term: number, lead: number): void {
  reset(r, term);
  r.lead = lead;
  r.state = StateType.Follower;
}

export function becomeCandidate(r: Raft): void {
  if (r.state === StateType.Leader) throw new Error("raft: invalid transition [leader -> candidate]");
  reset(r, r.term + 1);
  r.vote = r.id;
  r.state = StateType.Candidate;
}

export function becomePreCandidate(r: Raft): void {
  if (r.state === StateType.Leader) throw new Error("raft: invalid transition [leader -> pre-candidate]");
  // Neither the term nor the vote change: a pre-candidate is not yet a candidate.
  r.trk.resetVotes();
  r.lead = None;
  r.state = StateType.PreCandidate;
}

export function becomeLeader(r: Raft): void {
  if (r.state === StateType.Follower) throw new Error("raft: invalid transition [follower -> leader]");
  reset(r, r.term);
  r.lead = r.id;
  r.state = StateType.Leader;
  const self = r.trk.progress.get(r.id);
  if (self) {
    self.becomeReplicate();
    self.recentActive = true;
  }
  // Conservatively assume a conf change may be pending in the uncommitted tail.
  r.pendingConfIndex = r.log.lastIndex();
  // An empty entry of the new term: committing it commits every earlier entry (§5.4.2).
  if (!appendEntry(r, [{ term: 0, index: 0, type: EntryType.Normal, data: new Uint8Array(0) }])) {
    throw new Error("raft: empty entry was dropped");
  }
}
