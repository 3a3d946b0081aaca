// The Raft state machine (after the Raft paper and the etcd raft design).
//
// Deterministic and synchronous: it is driven by step(message) and tick(), and
// its outputs are collected in fields (msgs, readStates, the unstable log)
// that RawNode hands out as a Ready. It never touches a clock, a socket or a
// disk; its only randomness comes from the RandomSource of its Config.
//
// The contract with the application (see rawnode.ts) is the one that makes
// counting the leader's own unpersisted entries safe: the entries and
// HardState of a Ready are persisted before any message of that Ready is sent.
//
// This file holds the node's state and its entry points; the behaviour lives
// in one file per responsibility, as functions of the state:
//   step.ts            term handling, then dispatch by role
//   step-leader.ts     the leader's step; step-candidate.ts, step-follower.ts
//   election.ts        campaigns, vote counting, answering vote requests
//   transitions.ts     becomeFollower / PreCandidate / Candidate / Leader
//   tick.ts            election and heartbeat timeouts
//   send.ts            outgoing messages, appends, snapshots, heartbeats
//   append-commit.ts   the leader's appends, commit, uncommitted-size limit
//   read-index.ts      ReadIndex at the leader
//   membership.ts      conf changes and snapshot installation
// Fields are public so that these functions can share them; outside the
// core, treat a Raft as read-only (RawNode is the application's handle).

import type { ConfChange, ConfState, Entry, HardState, Message, ReadState, Snapshot, SoftState } from "./types.ts";
import { EntryType, MessageType, None, ReadOnlyOption, StateType, isEmptyHardState, newMessage } from "./types.ts";
import { RaftLog, noLimit } from "./log.ts";
import { ProgressTracker } from "./tracker.ts";
import { ReadOnly } from "./read-only.ts";
import { restoreConfState } from "./confchange.ts";
import { ProposalDroppedError } from "./errors.ts";
import type { RandomSource } from "./rand.ts";
import { SeededRandom } from "./rand.ts";
import type { Config } from "./config.ts";
import { validateConfig } from "./config.ts";
import { stepRaft } from "./step.ts";
import { tick } from "./tick.ts";
import { abortLeaderTransfer, becomeCandidate, becomeFollower, becomeLeader, becomePreCandidate } from "./transitions.ts";
import { promotable } from "./election.ts";
import { reduceUncommittedSize } from "./append-commit.ts";
import { applyConfChange, restoreSnapshot, switchToConfig } from "./membership.ts";

export type { Config } from "./config.ts";

export class Raft {
  readonly id: number;
  term = 0;
  vote = None;
  readStates: ReadState[] = [];
  readonly log: RaftLog;
  trk: ProgressTracker;
  state: StateType = StateType.Follower;
  /** Whether this node is a learner in the current config. */
  isLearner = false;
  /** Messages to send once the current unstable state is persisted. */
  msgs: Message[] = [];
  lead = None;
  /** The target of an ongoing leadership transfer, or None. */
  leadTransferee = None;
  /** Index of the last conf change proposed by this leader (no new one until it is applied). */
  pendingConfIndex = 0;
  uncommittedSize = 0;
  readOnly: ReadOnly;
  /** Ticks since the last election timeout (or, for a follower, since it last heard from the leader). */
  electionElapsed = 0;
  heartbeatElapsed = 0;
  randomizedElectionTimeout = 0;
  /** ReadIndex requests waiting until this leader has committed an entry of its term. */
  pendingReadIndexMessages: Message[] = [];

  readonly checkQuorum: boolean;
  readonly preVote: boolean;
  readonly heartbeatTimeout: number;
  readonly electionTimeout: number;
  readonly maxMsgSize: number;
  readonly maxUncommittedSize: number;
  readonly disableProposalForwarding: boolean;
  readonly stepDownOnRemoval: boolean;
  readonly lazyCommitBroadcast: boolean;
  /** lazyCommitBroadcast: per follower, the last index of its forwarded proposals until a commit of it is sent there. */
  readonly forwardedProposals = new Map<number, number>();
  readonly random: RandomSource;

  constructor(c: Config) {
    validateConfig(c);
    this.id = c.id;
    this.log = new RaftLog(c.storage, c.maxCommittedSizePerReady ?? noLimit);
    this.maxMsgSize = c.maxSizePerMsg ?? 1024 * 1024;
    this.maxUncommittedSize = c.maxUncommittedEntriesSize && c.maxUncommittedEntriesSize > 0 ? c.maxUncommittedEntriesSize : noLimit;
    this.trk = new ProgressTracker(c.maxInflightMsgs ?? 256);
    this.electionTimeout = c.electionTick;
    this.heartbeatTimeout = c.heartbeatTick;
    this.checkQuorum = c.checkQuorum ?? false;
    this.preVote = c.preVote ?? false;
    this.readOnly = new ReadOnly(c.readOnlyOption ?? ReadOnlyOption.Safe);
    this.disableProposalForwarding = c.disableProposalForwarding ?? false;
    this.stepDownOnRemoval = c.stepDownOnRemoval ?? true;
    this.lazyCommitBroadcast = c.lazyCommitBroadcast ?? false;
    this.random = c.random ?? new SeededRandom(c.id);

    const { hardState, confState } = c.storage.initialState();
    const restored = restoreConfState(this.trk, this.log.lastIndex(), confState);
    switchToConfig(this, restored.config, restored.progress);
    if (!isEmptyHardState(hardState)) this.loadState(hardState);
    if (c.applied !== undefined && c.applied > 0) this.log.appliedTo(c.applied);
    becomeFollower(this, this.term, None);
  }

  private loadState(hs: HardState): void {
    if (hs.commit < this.log.committed || hs.commit > this.log.lastIndex()) {
      throw new Error(`raft: hardstate commit ${hs.commit} is out of range [${this.log.committed}, ${this.log.lastIndex()}]`);
    }
    this.log.committed = hs.commit;
    this.term = hs.term;
    this.vote = hs.vote;
  }

  hasLeader(): boolean {
    return this.lead !== None;
  }

  softState(): SoftState {
    return { lead: this.lead, raftState: this.state };
  }

  hardState(): HardState {
    return { term: this.term, vote: this.vote, commit: this.log.committed };
  }

  /** Processes one message. Throws ProposalDroppedError when a proposal cannot be accepted. */
  step(m: Message): void {
    stepRaft(this, m);
  }

  /** Advances the logical clock by one tick. */
  tick(): void {
    tick(this);
  }

  /**
   * Called by RawNode.advance(): the Ready's entries are stable, its committed
   * entries (up to appliedIndex) and snapshot are applied.
   */
  advance(r: { lastEntry?: { index: number; term: number }; snapshotIndex: number; appliedIndex: number; committedEntries: Entry[] }): void {
    if (r.appliedIndex > 0) {
      this.log.appliedTo(r.appliedIndex);
      if (this.trk.config.autoLeave && r.appliedIndex >= this.pendingConfIndex && this.state === StateType.Leader) {
        // The joint config is applied: propose leaving it. This may be dropped
        // (leadership transfer); it is retried on the next advance.
        try {
          this.step(newMessage({ type: MessageType.Prop, from: this.id, entries: [{ term: 0, index: 0, type: EntryType.ConfChange, data: new Uint8Array(0) }] }));
        } catch (e) {
          if (!(e instanceof ProposalDroppedError)) throw e;
        }
      }
    }
    if (r.committedEntries.length > 0) reduceUncommittedSize(this, r.committedEntries);
    if (r.lastEntry) this.log.stableTo(r.lastEntry.index, r.lastEntry.term);
    if (r.snapshotIndex > 0) this.log.stableSnapTo(r.snapshotIndex);
  }

  becomeFollower(term: number, lead: number): void {
    becomeFollower(this, term, lead);
  }

  becomeCandidate(): void {
    becomeCandidate(this);
  }

  becomePreCandidate(): void {
    becomePreCandidate(this);
  }

  becomeLeader(): void {
    becomeLeader(this);
  }

  /** Installs a snapshot from the leader. Returns false if it was ignored (stale, or the log already has it). */
  restore(s: Snapshot): boolean {
    return restoreSnapshot(this, s);
  }

  /** Whether this node may campaign: a voter with no snapshot pending. */
  promotable(): boolean {
    return promotable(this);
  }

  /** Applies a committed conf change (called by the application); returns the new ConfState. */
  applyConfChange(cc: ConfChange): ConfState {
    return applyConfChange(this, cc);
  }

  abortLeaderTransfer(): void {
    abortLeaderTransfer(this);
  }
}
