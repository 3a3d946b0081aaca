// The member list of the cluster: Raft ids with their names and URLs.
//
// It is replicated state: every change arrives as the context of a committed
// conf change entry (see entry-data.ts), and the whole list is part of every
// snapshot (see snapshot-data.ts), so every node derives the same list from
// the log. isLearner follows the conf changes (AddLearnerNode / AddNode).

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

  replace(members: readonly Member[]): void {
    this.members.clear();
    for (const m of members) this.members.set(m.id, cloneMember(m));
  }

  /**
   * Applies one committed change. `info` is the member record carried in the
   * conf change context (absent for a removal or an unannotated change).
   */
  apply(change: ConfChangeSingle, info: Member | undefined): void {
    const id = change.nodeId;
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
        return;
      case ConfChangeType.UpdateNode:
        if (existing) this.members.set(id, { ...base, isLearner: existing.isLearner });
        return;
    }
  }
}
