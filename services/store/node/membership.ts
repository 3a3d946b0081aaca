// Membership changes of a RaftNode: validation against the member list,
// proposing conf changes (with the member record and the proposer's tag in
// the context, see entry-data.ts), applying committed conf change entries
// to the Raft core, the member list and the transport's peers, and resolving
// the waiting caller with the new member list.
//
// One change at a time: the leader turns a second conf change proposed
// before the first is applied into an empty entry; its caller then times out.
//
// The transport refuses the messages of removed ids (members.ts), answering
// with the removal notice (index of the removing conf change and this node's
// term when it applied it). Unlike etcd, an id may be added again: ids derive
// from peer URLs, so a member replaced at the same address gets its old id;
// the add (applied later in the log) clears the removal. removedSelf is set
// when this node applies its own removal, or loads or installs a state that
// records it.

import { ConfChangeTransition, ConfChangeType, decodeConfChange, type ConfChange, type ConfChangeSingle, type ConfState, type Entry } from "../raft/index.ts";
import type { Transport } from "../transport/types.ts";
import type { WalLogger } from "../wal/index.ts";
import { decodeConfContext, encodeConfContext } from "./entry-data.ts";
import { NodeError, noLeader, stopped } from "./errors.ts";
import { MemberList, type Member, type RemovedMember } from "./members.ts";
import type { PendingRequests } from "./pending.ts";

/** What membership needs from the node. */
export interface MembershipHost {
  readonly id: number;
  readonly nonce: number;
  readonly transport: Transport;
  readonly log: WalLogger;
  isRunning(): boolean;
  leaderId(): number;
  isLeader(): boolean;
  /** The core's current term. */
  term(): number;
  /** The leader's view of a follower's match index, and its own last index. */
  progress(id: number): { match: number; last: number } | undefined;
  /** Proposes to the core (throws ProposalDroppedError). */
  proposeConfChange(cc: ConfChange): void;
  /** Applies to the core (throws on an invalid change). */
  applyConfChange(cc: ConfChange): ConfState;
  /** Maps a core error to the caller's error. */
  dropError(e: unknown): unknown;
}

export class Membership {
  readonly members = new MemberList();
  /** Set once this node applied its own removal. */
  removedSelf = false;

  constructor(
    private readonly host: MembershipHost,
    private readonly pending: PendingRequests<Member[]>,
  ) {}

  add(id: number, peerUrls: string[], learner: boolean, info: { name?: string; clientUrls?: string[] }): Promise<Member[]> {
    if (!Number.isSafeInteger(id) || id <= 0) return invalid(`invalid member id ${id}`);
    if (this.members.has(id)) return invalid(`member ${id} already exists`);
    const member: Member = { id, name: info.name ?? "", peerUrls: [...peerUrls], clientUrls: [...(info.clientUrls ?? [])], isLearner: learner };
    return this.propose({ type: learner ? ConfChangeType.AddLearnerNode : ConfChangeType.AddNode, nodeId: id }, member);
  }

  remove(id: number): Promise<Member[]> {
    if (!this.members.has(id)) return invalid(`member ${id} not found`);
    return this.propose({ type: ConfChangeType.RemoveNode, nodeId: id }, undefined);
  }

  /** On the leader, refuses a learner that has not caught up (90% of the log). */
  promote(id: number): Promise<Member[]> {
    const m = this.members.get(id);
    if (!m || !m.isLearner) return invalid(`member ${id} is not a learner`);
    if (this.host.isLeader()) {
      const p = this.host.progress(id);
      if (!p || p.match < p.last * 0.9) return invalid(`learner ${id} is not ready to be promoted (match ${p?.match ?? 0} of ${p?.last ?? 0})`);
    }
    return this.propose({ type: ConfChangeType.AddNode, nodeId: id }, { ...m, isLearner: false });
  }

  update(id: number, attrs: { name?: string; peerUrls?: string[]; clientUrls?: string[] }): Promise<Member[]> {
    const m = this.members.get(id);
    if (!m) return invalid(`member ${id} not found`);
    return this.propose({ type: ConfChangeType.UpdateNode, nodeId: id }, { ...m, ...attrs, id });
  }

  private propose(change: ConfChangeSingle, member: Member | undefined): Promise<Member[]> {
    const h = this.host;
    if (!h.isRunning()) return Promise.reject(stopped());
    if (h.leaderId() === 0) return Promise.reject(noLeader());
    const { seq, promise } = this.pending.register();
    try {
      h.proposeConfChange({ transition: ConfChangeTransition.Auto, changes: [change], context: encodeConfContext({ proposer: h.id, nonce: h.nonce, seq }, member) });
    } catch (e) {
      this.pending.reject(seq, h.dropError(e));
    }
    return promise;
  }

  /** Applies a committed conf change entry; returns the new ConfState, or undefined when the change was refused. */
  applyEntry(e: Entry): ConfState | undefined {
    const h = this.host;
    const cc = decodeConfChange(e.data);
    const { tag, member } = decodeConfContext(cc.context);
    const mine = tag !== undefined && tag.proposer === h.id && tag.nonce === h.nonce;
    let cs: ConfState;
    try {
      cs = h.applyConfChange(cc);
    } catch (err) {
      // Refused by every node alike (the same log, the same config): nothing changes.
      h.log("warn", "store node: conf change refused", { index: e.index, error: String(err) });
      if (mine) this.pending.reject(tag.seq, new NodeError("invalid-member", `store: membership change refused: ${String(err)}`));
      return undefined;
    }
    const at = { index: e.index, term: h.term() };
    for (const ch of cc.changes) {
      this.members.apply(ch, member && member.id === ch.nodeId ? member : undefined, at);
      if (ch.type === ConfChangeType.RemoveNode) {
        if (ch.nodeId === h.id) this.removedSelf = true;
        else h.transport.removePeer(ch.nodeId, at);
      }
    }
    this.syncPeers();
    if (mine) this.pending.resolve(tag.seq, this.members.list());
    return cs;
  }

  /** Replaces the list with a snapshot's, read at startup (the peers are synced when the node begins). */
  load(members: readonly Member[], removed: readonly RemovedMember[]): void {
    this.members.replace(members, removed);
    if (this.members.removal(this.host.id)) this.removedSelf = true;
  }

  /** Replaces the list (snapshot installed). */
  restore(members: readonly Member[], removed: readonly RemovedMember[]): void {
    this.load(members, removed);
    this.syncPeers();
  }

  /** Tells the transport every member's peer URLs, and the removed ids with their notices. */
  syncPeers(): void {
    const t = this.host.transport;
    for (const m of this.members.list()) if (m.id !== this.host.id) t.addPeer(m.id, m.peerUrls);
    for (const r of this.members.removed()) if (r.id !== this.host.id) t.removePeer(r.id, { index: r.index, term: r.term });
  }
}

function invalid(message: string): Promise<never> {
  return Promise.reject(new NodeError("invalid-member", `store: ${message}`));
}
