// ReadIndex at the leader: linearizable read points without log writes.
//
// Contract: a read request is answered with a read index, the commit index at
// the time the request was accepted; reads at it are linearizable once the
// requester has applied up to it. The leader's own requests become ReadStates,
// other nodes' requests MsgReadIndexResp.
//
// Invariants: a leader answers only once it has committed an entry of its
// own term (before that its commit index may lag behind the real one), so
// requests arriving earlier wait in r.pendingReadIndexMessages. With the Safe
// option, a request is answered only after a quorum acknowledged a heartbeat
// carrying its context (this node is still the leader); with LeaseBased, at
// once (relying on the leader lease of checkQuorum). A single voter answers
// at once.

import type { Message } from "./types.ts";
import { MessageType, None, ReadOnlyOption, newMessage } from "./types.ts";
import { VoteResult } from "./quorum.ts";
import { bcastHeartbeatWithCtx, send } from "./send.ts";
import type { Raft } from "./raft.ts";

/** The leader's handling of a MsgReadIndex. */
export function leaderReadIndex(r: Raft, m: Message): void {
  if (r.trk.isSingleton()) {
    const resp = responseToReadIndexReq(r, m, r.log.committed);
    if (resp) send(r, resp);
    return;
  }
  // A new leader does not know the commit index until it committed an entry of its term.
  if (!committedEntryInCurrentTerm(r)) {
    r.pendingReadIndexMessages.push(m);
    return;
  }
  sendMsgReadIndexResponse(r, m);
}

/** Counts a heartbeat response's acknowledgement of pending reads; answers those a quorum confirmed. */
export function readIndexAck(r: Raft, m: Message): void {
  if (r.readOnly.option !== ReadOnlyOption.Safe || !m.context || m.context.byteLength === 0) return;
  const acks = r.readOnly.recvAck(m.from, m.context);
  if (!acks || r.trk.voteResult(acks) !== VoteResult.Won) return;
  for (const rs of r.readOnly.advance(m.context)) {
    const resp = responseToReadIndexReq(r, rs.req, rs.index);
    if (resp) send(r, resp);
  }
}

/** Answers the requests that waited for an entry of this leader's term to commit. */
export function releasePendingReadIndexMessages(r: Raft): void {
  if (r.pendingReadIndexMessages.length === 0 || !committedEntryInCurrentTerm(r)) return;
  const msgs = r.pendingReadIndexMessages;
  r.pendingReadIndexMessages = [];
  for (const m of msgs) sendMsgReadIndexResponse(r, m);
}

function committedEntryInCurrentTerm(r: Raft): boolean {
  return r.log.term(r.log.committed) === r.term;
}

function responseToReadIndexReq(r: Raft, req: Message, readIndex: number): Message | undefined {
  if (req.from === None || req.from === r.id) {
    r.readStates.push({ index: readIndex, requestCtx: req.entries[0].data });
    return undefined;
  }
  return newMessage({ type: MessageType.ReadIndexResp, to: req.from, index: readIndex, entries: req.entries });
}

function sendMsgReadIndexResponse(r: Raft, m: Message): void {
  if (r.readOnly.option === ReadOnlyOption.Safe) {
    const ctx = m.entries[0].data;
    r.readOnly.addRequest(r.log.committed, m);
    r.readOnly.recvAck(r.id, ctx);
    bcastHeartbeatWithCtx(r, ctx);
    return;
  }
  const resp = responseToReadIndexReq(r, m, r.log.committed);
  if (resp) send(r, resp);
}
