// Elections: starting a campaign (pre-vote or vote), counting votes, and
// answering vote requests.
//
// Contract: only a promotable node (a voter with no snapshot pending) with
// no committed-but-unapplied conf change campaigns; the conf change could
// change who may vote. A pre-vote round asks for the next term without
// moving ours; only a won pre-vote round starts a real election.
//
// Invariants: a node grants at most one vote per term (it grants again only
// to the candidate it voted for), never while it knows a leader of its term,
// and only to a candidate whose log is at least as up to date as its own
// (§5.4.1). A granted vote is recorded in the HardState, which is persisted
// before the response leaves the node.
//
// Commit hint: every vote response carries the voter's commit index and the
// term of that entry (commit, logTerm). A receiver whose log holds the same
// term at that index holds the same entries up to it (Log Matching), so they
// are committed and it commits them. Configurations take effect when applied,
// so without this a candidate that never learned that a conf change committed
// would keep campaigning under the old configuration, whose quorum may need a
// voter that refuses it (a longer log) or that is gone (removed).

import type { Message } from "./types.ts";
import { EntryType, MessageType, None, StateType, newMessage } from "./types.ts";
import { noLimit } from "./log.ts";
import { VoteResult } from "./quorum.ts";
import { send } from "./send.ts";
import { becomeCandidate, becomeFollower, becomeLeader, becomePreCandidate } from "./transitions.ts";
import type { Raft } from "./raft.ts";

export type CampaignType = "PreElection" | "Election" | "Transfer";

const transferContext = new TextEncoder().encode("CampaignTransfer");

/** Whether a vote request comes from a leadership transfer (which overrides the leader lease). */
export function isTransferContext(ctx: Uint8Array | undefined): boolean {
  if (!ctx || ctx.byteLength !== transferContext.byteLength) return false;
  for (let i = 0; i < ctx.byteLength; i++) if (ctx[i] !== transferContext[i]) return false;
  return true;
}

function voteRespType(t: MessageType): MessageType {
  if (t === MessageType.Vote) return MessageType.VoteResp;
  if (t === MessageType.PreVote) return MessageType.PreVoteResp;
  throw new Error(`not a vote message: ${t}`);
}

/** Whether this node may campaign: a voter with no snapshot pending. */
export function promotable(r: Raft): boolean {
  const pr = r.trk.progress.get(r.id);
  return pr !== undefined && !pr.isLearner && !r.log.hasPendingSnapshot();
}

/** Starts a campaign of type t if this node may. */
export function hup(r: Raft, t: CampaignType): void {
  if (r.state === StateType.Leader) return;
  if (!promotable(r)) return;
  if (hasUnappliedConfChanges(r)) return;
  campaign(r, t);
}

function hasUnappliedConfChanges(r: Raft): boolean {
  if (r.log.applied >= r.log.committed) return false;
  const lo = Math.max(r.log.applied + 1, r.log.firstIndex());
  if (lo > r.log.committed) return false;
  for (const e of r.log.slice(lo, r.log.committed + 1, noLimit)) {
    if (e.type === EntryType.ConfChange) return true;
  }
  return false;
}

/** Becomes a (pre-)candidate and asks every voter; a single voter wins at once. */
export function campaign(r: Raft, t: CampaignType): void {
  let term: number;
  let voteMsg: MessageType;
  if (t === "PreElection") {
    becomePreCandidate(r);
    voteMsg = MessageType.PreVote;
    // Pre-votes are requested for the next term, without incrementing ours.
    term = r.term + 1;
  } else {
    becomeCandidate(r);
    voteMsg = MessageType.Vote;
    term = r.term;
  }
  if (poll(r, r.id, true) === VoteResult.Won) {
    // A single voter wins right away.
    if (t === "PreElection") campaign(r, "Election");
    else becomeLeader(r);
    return;
  }
  const lastIndex = r.log.lastIndex();
  const lastTerm = r.log.lastTerm();
  for (const id of r.trk.voterNodes()) {
    if (id === r.id) continue;
    send(r, newMessage({ type: voteMsg, to: id, term, index: lastIndex, logTerm: lastTerm, context: t === "Transfer" ? transferContext : undefined }));
  }
}

/** Records a vote and returns the tally of the current config. */
export function poll(r: Raft, id: number, granted: boolean): VoteResult {
  r.trk.recordVote(id, granted);
  return r.trk.tallyVotes().result;
}

/** Answers a MsgVote or MsgPreVote whose term is not below ours. */
export function handleVoteRequest(r: Raft, m: Message): void {
  // Vote again for the same candidate, or vote if not yet voted and no
  // leader is known in this term, or grant a pre-vote for a future term...
  const canVote = r.vote === m.from || (r.vote === None && r.lead === None) || (m.type === MessageType.PreVote && m.term > r.term);
  // ...and only for a candidate whose log is at least as up to date (§5.4.1).
  if (canVote && r.log.isUpToDate(m.index, m.logTerm)) {
    // Reply with the message's term: a pre-vote's term is in our future.
    send(r, newMessage({ type: voteRespType(m.type), to: m.from, term: m.term, ...commitHint(r) }));
    if (m.type === MessageType.Vote) {
      r.electionElapsed = 0;
      r.vote = m.from;
    }
  } else {
    send(r, newMessage({ type: voteRespType(m.type), to: m.from, term: r.term, reject: true, ...commitHint(r) }));
  }
}

/** This node's commit index and the term of its entry, for a vote response. */
export function commitHint(r: Raft): { commit: number; logTerm: number } {
  const logTerm = r.log.term(r.log.committed);
  return logTerm === undefined ? { commit: 0, logTerm: 0 } : { commit: r.log.committed, logTerm };
}

/**
 * Commits up to a vote response's commit hint when our log holds that entry.
 * A (pre-)candidate that thereby commits a conf change abandons its campaign
 * (keeping its vote): the change may alter who votes, and a node campaigns
 * only with every committed conf change applied (see hup).
 */
export function learnCommitHint(r: Raft, m: Message): void {
  if (m.commit <= r.log.committed || m.logTerm === 0 || !r.log.matchTerm(m.commit, m.logTerm)) return;
  r.log.commitTo(m.commit);
  const campaigning = r.state === StateType.Candidate || r.state === StateType.PreCandidate;
  if (campaigning && hasUnappliedConfChanges(r)) becomeFollower(r, r.term, None);
}
