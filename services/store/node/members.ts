// The member list of the cluster: Raft ids with their names and URLs.
//
// It is replicated state: every change arrives as the context of a committed
// conf change entry (see entry-data.ts), and the whole list is part of every
// snapshot (see snapshot-data.ts), so every node derives the same list from
// the log. isLearner follows the conf changes (AddLearnerNode / AddNode).
//
// Removed ids are kept too (as etcd keeps them), with the index of the conf
// change that removed them and the term of the node when it applied it: a
// member answers a removed peer's messages with them (transport/types.ts,
// RemovalNotice). Adding an id again clears its removal.

import { ConfChangeType, type ConfChangeSingle } from "../raft/index.ts";
import { Reader, Writer } from "../transport/binary.ts";

export interface Member {
  /** Raft node id (positive safe integer). */
  id: number;
  name: string;
  peerUrls: string[];
  clientUrls: string[];
  isLearner: boolean;
}

/** A removed id: the conf change entry that removed it, and the applying node's term then. */
export interface RemovedMember {
  id: number;
  index: number;
  term: number;
}

export function writeRemoved(w: Writer, r: RemovedMember): void {
  w.uvarint(r.id);
  w.uvarint(r.index);
  w.uvarint(r.term);
}

export function readRemoved(r: Reader): RemovedMember {
  return { id: r.uvarint(), index: r.uvarint(), term: r.uvarint() };
}

export function writeMember(w: Writer, m: Member): void {
  w.uvarint(m.id);
  w.str(m.name);
  w.strs(m.peerUrls);
  w.strs(m.clientUrls);
  w.bool(m.isLearner);
}

export function readMember(r: Reader): Member {
  return { id: r.uvarint(), name: r.str(), peerUrls: r.strs(), clientUrls: r.strs(), isLearner: r.bool() };
}

function cloneMember(m: Member): Member {
  return { id: m.id, name: m.name, peerUrls: [...m.peerUrls], clientUrls: [...m.clientUrls], isLearner: m.isLearner };
}

export class MemberList {
  private readonly members = new Map<number, Member>();
  private readonly removedIds = new Map<number, RemovedMember>();

  constructor(initial: readonly Member[] = []) {
    for (const m of initial) this.members.set(m.id, cloneMember(m));
  }

  get(id: number): Member | undefined {
    const m = this.members.get(id);
    return m ? cloneMember(m) : undefined;
  }

  has(id: number): boolean {
    return this.members.has(id);
  }

  /** Members in id order (copies). */
  list(): Member[] {
    return [...this.members.values()].sort((a, b) => a.id - b.id).map(cloneMember);
  }

  /** How `id` was removed, if it was. */
  removal(id: number): RemovedMember | undefined {
    const r = this.removedIds.get(id);
    return r ? { ...r } : undefined;
  }

  /** Removed ids in id order (copies). */
  removed(): RemovedMember[] {
    return [...this.removedIds.values()].sort((a, b) => a.id - b.id).map((r) => ({ ...r }));
  }

  replace(members: readonly Member[], removed: readonly RemovedMember[] = []): void {
    this.members.clear();
    for (const m of members) this.members.set(m.id, cloneMember(m));
    this.removedIds.clear();
    for (const r of removed) this.removedIds.set(r.id, { ...r });
  }

  /**
   * Applies one committed change. `info` is the member record carried in the
   * conf change context (absent for a removal or an unannotated change);
   * `at` is where the change is applied (recorded for a removal).
   */
  apply(change: ConfChangeSingle, info: Member | undefined, at: { index: number; term: number } = { index: 0, term: 0 }): void {
    const id = change.nodeId;
    // The log is authoritative: an id added again (by a proposer that did not refuse it) is no longer removed.
    if (change.type === ConfChangeType.AddNode || change.type === ConfChangeType.AddLearnerNode) this.removedIds.delete(id);
    const existing = this.members.get(id);
    const base: Member = info ? cloneMember(info) : existing ? cloneMember(existing) : { id, name: "", peerUrls: [], clientUrls: [], isLearner: false };
    base.id = id;
    switch (change.type) {
      case ConfChangeType.AddNode:
        this.members.set(id, { ...base, isLearner: false });
        return;
      case ConfChangeType.AddLearnerNode:
        this.members.set(id, { ...base, isLearner: true });
        return;
      case ConfChangeType.RemoveNode:
        this.members.delete(id);
        this.removedIds.set(id, { id, index: at.index, term: at.term });
        return;
      case ConfChangeType.UpdateNode:
        if (existing) this.members.set(id, { ...base, isLearner: existing.isLearner });
        return;
    }
  }
}
