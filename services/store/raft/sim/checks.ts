// The safety properties the simulator checks, as one object that observes
// every node after every action, every persisted entry and every applied
// state. Each violation is reported through `fail`, which throws.
//
//   election safety     at most one leader per term among the voters of the
//                       configuration that elected it (and a leader is one of
//                       them);
//   leader completeness a new leader holds every entry committed in earlier
//                       terms (§5.4.3);
//   log matching        an (index, term) pair names one entry, which follows
//                       one term;
//   committed entries   never change, and the commit index of a node never
//                       goes back within one incarnation;
//   state machines      every node's state after index i is the same.

import type { Entry } from "../types.ts";
import { StateType } from "../types.ts";
import type { Raft } from "../raft.ts";
import { contextKey } from "../read-only.ts";
import { noLimit } from "../log.ts";

interface CommittedRecord {
  term: number;
  data: string;
  /** The observing node's term when the commit was first seen. */
  obsTerm: number;
}

interface LeaderRecord {
  id: number;
  /** Voters (incoming and outgoing) of the config that elected it. */
  voters: Set<number>;
}

export class SafetyChecker {
  private readonly committedRec = new Map<number, CommittedRecord>();
  private readonly appliedHash = new Map<number, number>();
  private readonly leadersOfTerm = new Map<number, LeaderRecord[]>();
  private readonly entryIds = new Map<string, { data: string; prevTerm: number | undefined }>();
  /** Distinct (term, leader) pairs seen. */
  leadersElected = 0;

  constructor(
    private readonly fail: (detail: string) => never,
    private readonly log: (line: string) => void,
  ) {}

  /** Checks one running node; commitSeen is its highest commit index seen in this incarnation. Returns the new one. */
  checkNode(id: number, r: Raft, commitSeen: number): number {
    if (r.state === StateType.Leader) this.checkLeader(id, r);
    const committed = r.log.committed;
    if (committed < commitSeen) this.fail(`node ${id}: commit index went back ${commitSeen} -> ${committed}`);
    if (committed > commitSeen) {
      const lo = Math.max(commitSeen + 1, r.log.firstIndex());
      if (lo <= committed) {
        for (const e of r.log.slice(lo, committed + 1, noLimit)) {
          const key = contextKey(e.data);
          const rec = this.committedRec.get(e.index);
          if (!rec) this.committedRec.set(e.index, { term: e.term, data: key, obsTerm: r.term });
          else if (rec.term !== e.term || rec.data !== key) {
            this.fail(`committed entry ${e.index} changed: was term ${rec.term}, node ${id} has term ${e.term}`);
          }
        }
      }
    }
    return committed;
  }

  private checkLeader(id: number, r: Raft): void {
    const records = this.leadersOfTerm.get(r.term) ?? [];
    if (records.some((l) => l.id === id)) return;
    const voters = new Set([...r.trk.config.voters.incoming, ...r.trk.config.voters.outgoing]);
    if (!voters.has(id)) this.fail(`election safety: node ${id} leads term ${r.term} without being a voter of its config`);
    for (const other of records) {
      if (other.voters.has(id) || voters.has(other.id)) {
        this.fail(`election safety: nodes ${other.id} and ${id} are both leaders of term ${r.term}`);
      }
    }
    records.push({ id, voters });
    this.leadersOfTerm.set(r.term, records);
    this.leadersElected++;
    this.log(`leader ${id} term ${r.term}`);
    this.checkLeaderCompleteness(id, r);
  }

  /** A new leader holds every entry committed before its term (§5.4.3). */
  private checkLeaderCompleteness(id: number, r: Raft): void {
    const first = r.log.firstIndex();
    for (const [index, rec] of this.committedRec) {
      if (rec.obsTerm >= r.term || index < first) continue;
      const t = r.log.term(index);
      if (t !== rec.term) this.fail(`leader completeness: leader ${id} of term ${r.term} lacks committed entry ${index} (term ${rec.term}, has ${t})`);
    }
  }

  /** An entry a node applies must be the one committed at its index. */
  checkApplied(id: number, e: Entry): void {
    const rec = this.committedRec.get(e.index);
    if (rec && (rec.term !== e.term || rec.data !== contextKey(e.data))) this.fail(`node ${id}: applied entry ${e.index} differs from the committed one`);
  }

  recordAppliedHash(id: number, index: number, hash: number): void {
    const h = this.appliedHash.get(index);
    if (h === undefined) this.appliedHash.set(index, hash);
    else if (h !== hash) this.fail(`state machine safety: node ${id} state at ${index} differs from another node's`);
  }

  /** Log matching via entry identity: (index, term) names one entry with one predecessor term. */
  checkEntryIdentity(id: number, e: Entry, prevTerm: number | undefined): void {
    const key = `${e.index}:${e.term}`;
    const data = contextKey(e.data);
    const rec = this.entryIds.get(key);
    if (!rec) {
      this.entryIds.set(key, { data, prevTerm });
      return;
    }
    if (rec.data !== data) this.fail(`log matching: node ${id} holds a different entry ${key}`);
    if (prevTerm !== undefined && rec.prevTerm !== undefined && rec.prevTerm !== prevTerm) {
      this.fail(`log matching: node ${id} entry ${key} follows term ${prevTerm}, elsewhere term ${rec.prevTerm}`);
    }
    if (rec.prevTerm === undefined) rec.prevTerm = prevTerm;
  }
}
