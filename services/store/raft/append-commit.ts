// The leader's side of the log: appending proposals, advancing the commit
// index, and accounting for the size of the uncommitted tail.
//
// Contract: appendEntry assigns the leader's term and the next indexes, and
// counts the leader's own (not yet persisted) entries towards commit at once.
// That is safe because the application persists a Ready's entries before it
// sends any message of that Ready (see rawnode.ts).
//
// Invariants: the commit index only moves forward, and only to an entry of the
// current term replicated on a quorum (RaftLog.maybeCommit, §5.4.2);
// uncommittedSize is the payload size of the leader's entries not yet handed
// out as committed, never negative, and only a leader tracks it.

import type { Entry } from "./types.ts";
import { StateType, payloadSize } from "./types.ts";
import type { Raft } from "./raft.ts";

/** Commits up to what a quorum holds (an entry of the current term). Returns whether the commit index moved. */
export function maybeCommit(r: Raft): boolean {
  return r.log.maybeCommit(r.trk.committed(), r.term);
}

/** Appends proposed entries at the leader (assigning term and index). Returns false if dropped. */
export function appendEntry(r: Raft, es: Entry[]): boolean {
  const li = r.log.lastIndex();
  const ents = es.map((e, i): Entry => ({ term: r.term, index: li + 1 + i, type: e.type, data: e.data }));
  if (!increaseUncommittedSize(r, ents)) return false;
  const last = r.log.append(ents);
  // The leader's own entries count towards commit right away: they are
  // persisted before any MsgApp carrying them leaves this node.
  r.trk.progress.get(r.id)?.maybeUpdate(last);
  maybeCommit(r);
  return true;
}

function increaseUncommittedSize(r: Raft, ents: Entry[]): boolean {
  let s = 0;
  for (const e of ents) s += payloadSize(e);
  // An empty tail accepts any proposal; empty entries are never refused.
  if (r.uncommittedSize > 0 && s > 0 && r.uncommittedSize + s > r.maxUncommittedSize) return false;
  r.uncommittedSize += s;
  return true;
}

/** Releases the size of entries handed out as committed. */
export function reduceUncommittedSize(r: Raft, ents: Entry[]): void {
  if (r.state !== StateType.Leader) return;
  let s = 0;
  for (const e of ents) s += payloadSize(e);
  r.uncommittedSize = Math.max(0, r.uncommittedSize - s);
}
