// The configuration (voters, learners) and the Progress of every member, as
// tracked by the local node. The leader uses it for replication and commit;
// candidates use it for counting votes.

import type { ConfState } from "./types.ts";
import { Progress } from "./progress.ts";
import type { JointConfig } from "./quorum.ts";
import { VoteResult, jointCommittedIndex, jointIds, jointVoteResult } from "./quorum.ts";

export interface TrackerConfig {
  voters: JointConfig;
  /** Learners: receive the log, never vote. Disjoint from both voter sets. */
  learners: Set<number>;
  /** Learners to add when leaving the joint config (they are outgoing voters until then). */
  learnersNext: Set<number>;
  autoLeave: boolean;
}

export function emptyTrackerConfig(): TrackerConfig {
  return { voters: { incoming: new Set(), outgoing: new Set() }, learners: new Set(), learnersNext: new Set(), autoLeave: false };
}

export function cloneTrackerConfig(c: TrackerConfig): TrackerConfig {
  return {
    voters: { incoming: new Set(c.voters.incoming), outgoing: new Set(c.voters.outgoing) },
    learners: new Set(c.learners),
    learnersNext: new Set(c.learnersNext),
    autoLeave: c.autoLeave,
  };
}

const sorted = (s: Iterable<number>): number[] => [...s].sort((a, b) => a - b);

export function isJoint(c: TrackerConfig): boolean {
  return c.voters.outgoing.size > 0;
}

export function describeConfig(c: TrackerConfig): string {
  let s = `voters=(${sorted(c.voters.incoming).join(" ")})`;
  if (isJoint(c)) s += `&&(${sorted(c.voters.outgoing).join(" ")})`;
  if (c.learners.size > 0) s += ` learners=(${sorted(c.learners).join(" ")})`;
  if (c.learnersNext.size > 0) s += ` learners_next=(${sorted(c.learnersNext).join(" ")})`;
  if (c.autoLeave) s += " autoleave";
  return s;
}

export type ProgressMap = Map<number, Progress>;

export class ProgressTracker {
  config: TrackerConfig = emptyTrackerConfig();
  progress: ProgressMap = new Map();
  votes = new Map<number, boolean>();
  readonly maxInflight: number;
  /** Progress ids in ascending order, so that iteration is deterministic. */
  private ids: number[] = [];

  constructor(maxInflight: number) {
    this.maxInflight = maxInflight;
  }

  /** Installs a config and progress map produced by the conf changer. */
  setConfig(config: TrackerConfig, progress: ProgressMap): void {
    this.config = config;
    this.progress = progress;
    this.ids = sorted(progress.keys());
  }

  confState(): ConfState {
    return {
      voters: sorted(this.config.voters.incoming),
      learners: sorted(this.config.learners),
      votersOutgoing: sorted(this.config.voters.outgoing),
      learnersNext: sorted(this.config.learnersNext),
      autoLeave: this.config.autoLeave,
    };
  }

  /** Whether the only voter is a single node (which then commits alone). */
  isSingleton(): boolean {
    return this.config.voters.incoming.size === 1 && this.config.voters.outgoing.size === 0;
  }

  /** The largest index that is committed according to the voters' acknowledged matches. */
  committed(): number {
    return jointCommittedIndex(this.config.voters, (id) => this.progress.get(id)?.match);
  }

  /** Visits every tracked member (voters and learners) in ascending id order. */
  visit(f: (id: number, pr: Progress) => void): void {
    for (const id of this.ids) {
      const pr = this.progress.get(id);
      if (pr) f(id, pr);
    }
  }

  /** Whether a quorum of voters was recently active (the leader counts as active). */
  quorumActive(): boolean {
    const votes = new Map<number, boolean>();
    this.visit((id, pr) => {
      if (!pr.isLearner) votes.set(id, pr.recentActive);
    });
    return jointVoteResult(this.config.voters, votes) === VoteResult.Won;
  }

  voterNodes(): number[] {
    return jointIds(this.config.voters);
  }

  learnerNodes(): number[] {
    return sorted(this.config.learners);
  }

  resetVotes(): void {
    this.votes = new Map();
  }

  /** Records a vote; only the first vote of a node counts. */
  recordVote(id: number, granted: boolean): void {
    if (!this.votes.has(id)) this.votes.set(id, granted);
  }

  tallyVotes(): { granted: number; rejected: number; result: VoteResult } {
    let granted = 0;
    let rejected = 0;
    this.visit((id, pr) => {
      if (pr.isLearner) return;
      const v = this.votes.get(id);
      if (v === undefined) return;
      if (v) granted++;
      else rejected++;
    });
    return { granted, rejected, result: jointVoteResult(this.config.voters, this.votes) };
  }

  /** The voting result of a set of acknowledgements (for ReadIndex). */
  voteResult(acks: ReadonlyMap<number, boolean>): VoteResult {
    return jointVoteResult(this.config.voters, acks);
  }
}
