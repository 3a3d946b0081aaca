// RawNode: the application's handle on the Raft core.
//
// Loop of the application (the order is what makes the protocol safe):
//
//   1. drive it: tick() on a timer, step(m) for each message received,
//      propose()/readIndex()/... on requests;
//   2. if hasReady(): rd = ready(), then
//      a. persist rd.snapshot (if any), rd.entries and rd.hardState (if any)
//         to stable storage — fsync when rd.mustSync;
//      b. send rd.messages;
//      c. apply rd.snapshot (if any) then rd.committedEntries to the state
//         machine, calling applyConfChange() for each conf change entry;
//      d. serve rd.readStates once applied >= their index;
//      e. advance().
//
// Followers and candidates must persist (a) before sending (b): their
// messages acknowledge entries and grant votes. A leader may send (b) before
// or while it persists (a) (etcd's order, Raft thesis §10.2.1), unless the
// Ready changes term or vote. That is safe because the leader counts its own
// new entries toward a quorum at once, but an entry committed that way
// reaches committedEntries (and commit indexes sent) only in a later Ready,
// which ready() hands out only after advance(), so after (a) completed.
// For the same reason a leader may apply (c) the committed entries that
// precede rd.entries while (a) is in flight (etcd applies in parallel with
// its WAL save): they were persisted with an earlier Ready. Entries of
// rd.entries that are committed already (a group of one) wait for (a).
//
// ready() may not be called again before advance().

import type { ConfChange, ConfState, Entry, HardState, Message, ReadState, Snapshot, SoftState } from "./types.ts";
import { EntryType, MessageType, None, SnapshotStatus, StateType, isLocalMessage, isResponseMessage, newMessage, stateTypeName } from "./types.ts";
import type { Config } from "./raft.ts";
import { Raft } from "./raft.ts";
import { encodeConfChange } from "./confchange.ts";
import { ProposalDroppedError, RaftError } from "./errors.ts";
import { progressStateName } from "./progress.ts";
import { describeConfig } from "./tracker.ts";
import { hasUnsentCommit, sendUnsentCommits } from "./send.ts";

/** One batch of work for the application. */
export interface Ready {
  /** Present when the leader or the role changed. */
  softState?: SoftState;
  /** Present when term, vote or commit changed; persist before sending messages (a leader: see the loop above). */
  hardState?: HardState;
  /** Read requests that can be served once the state machine applied up to their index. */
  readStates: ReadState[];
  /** Entries to append to stable storage before sending messages (a leader: see the loop above). */
  entries: Entry[];
  /** A snapshot to persist and install. */
  snapshot?: Snapshot;
  /** Committed entries to apply, in order (after persisting `entries`). */
  committedEntries: Entry[];
  /** Messages to send after persisting (a leader: see the loop above); MsgSnap senders report via reportSnapshot(). */
  messages: Message[];
  /** Whether the writes of this Ready must be synced to disk (vs. merely written). */
  mustSync: boolean;
}

export interface ProgressStatus {
  match: number;
  next: number;
  state: string;
  recentActive: boolean;
  isLearner: boolean;
  inflight: number;
}

export interface Status {
  id: number;
  hardState: HardState;
  softState: SoftState;
  state: string;
  applied: number;
  leadTransferee: number;
  config: string;
  confState: ConfState;
  /** Per member, only on the leader. */
  progress?: Record<number, ProgressStatus>;
}

function hardStateEqual(a: HardState, b: HardState): boolean {
  return a.term === b.term && a.vote === b.vote && a.commit === b.commit;
}

export class RawNode {
  /** The core; exposed for inspection by tests and tools. Do not mutate. */
  readonly raft: Raft;
  private prevSoftState: SoftState;
  private prevHardState: HardState;
  private outstanding: Ready | undefined;

  constructor(config: Config) {
    this.raft = new Raft(config);
    this.prevSoftState = this.raft.softState();
    this.prevHardState = this.raft.hardState();
  }

  get id(): number {
    return this.raft.id;
  }

  /** Advances the logical clock by one tick (election and heartbeat timeouts are counted in ticks). */
  tick(): void {
    this.raft.tick();
  }

  /** Starts an election now (with pre-vote if configured). */
  campaign(): void {
    this.raft.step(newMessage({ type: MessageType.Hup, from: this.raft.id }));
  }

  /** Proposes data to be appended to the log. Throws ProposalDroppedError if it cannot be. */
  propose(data: Uint8Array): void {
    this.raft.step(newMessage({ type: MessageType.Prop, from: this.raft.id, entries: [{ term: 0, index: 0, type: EntryType.Normal, data }] }));
  }

  /** Proposes several entries at once (one message, one append). */
  proposeBatch(datas: Uint8Array[]): void {
    if (datas.length === 0) return;
    const entries: Entry[] = datas.map((data) => ({ term: 0, index: 0, type: EntryType.Normal, data }));
    this.raft.step(newMessage({ type: MessageType.Prop, from: this.raft.id, entries }));
  }

  /** Proposes a membership change; apply it with applyConfChange() once committed. */
  proposeConfChange(cc: ConfChange): void {
    this.raft.step(
      newMessage({ type: MessageType.Prop, from: this.raft.id, entries: [{ term: 0, index: 0, type: EntryType.ConfChange, data: encodeConfChange(cc) }] }),
    );
  }

  /** Applies a committed conf change to the tracked membership; returns the new ConfState (store it with snapshots). */
  applyConfChange(cc: ConfChange): ConfState {
    return this.raft.applyConfChange(cc);
  }

  /**
   * Steps a message received from a peer. Local message types are refused;
   * responses from unknown peers are ignored; a forwarded proposal that this
   * leader cannot accept is dropped (its proposer will time out).
   */
  step(m: Message): void {
    if (isLocalMessage(m.type)) throw new RaftError("ErrStepLocalMsg", `raft: cannot step local message ${m.type}`);
    if (isResponseMessage(m.type) && !this.raft.trk.progress.has(m.from)) return;
    try {
      this.raft.step(m);
    } catch (e) {
      if (e instanceof ProposalDroppedError) return;
      throw e;
    }
  }

  /**
   * Requests a linearizable read point; a ReadState with the same ctx appears
   * in a later Ready. Throws ProposalDroppedError("no-leader") when no leader
   * is known. The request may still be lost: retry on a timeout.
   */
  readIndex(ctx: Uint8Array): void {
    if (this.raft.lead === None) throw new ProposalDroppedError("no-leader", "raft read index dropped: no leader");
    this.raft.step(newMessage({ type: MessageType.ReadIndex, entries: [{ term: 0, index: 0, type: EntryType.Normal, data: ctx }] }));
  }

  /**
   * Under lazyCommitBroadcast, on a leader: whether a follower holds committed
   * entries it was not told are committed (sendUnsentCommits tells it).
   */
  hasUnsentCommit(): boolean {
    return this.raft.state === StateType.Leader && hasUnsentCommit(this.raft);
  }

  /** On a leader: sends the commit index to every follower that hasUnsentCommit counts (in the next Ready). */
  sendUnsentCommits(): void {
    if (this.raft.state === StateType.Leader) sendUnsentCommits(this.raft);
  }

  /** Asks the leader to hand leadership to `transferee` (aborted after an election timeout). */
  transferLeader(transferee: number): void {
    this.raft.step(newMessage({ type: MessageType.TransferLeader, from: transferee }));
  }

  /** Reports that the last message to `id` could not be delivered. */
  reportUnreachable(id: number): void {
    this.raft.step(newMessage({ type: MessageType.Unreachable, from: id }));
  }

  /** Reports the outcome of sending a MsgSnap to `id`. */
  reportSnapshot(id: number, status: SnapshotStatus): void {
    this.raft.step(newMessage({ type: MessageType.SnapStatus, from: id, reject: status === SnapshotStatus.Failure }));
  }

  hasReady(): boolean {
    const r = this.raft;
    const ss = r.softState();
    if (ss.lead !== this.prevSoftState.lead || ss.raftState !== this.prevSoftState.raftState) return true;
    const hs = r.hardState();
    if (!hardStateEqual(hs, this.prevHardState)) return true;
    if (r.log.hasPendingSnapshot()) return true;
    if (r.msgs.length > 0 || r.log.unstable.entries.length > 0 || r.log.hasNextEnts()) return true;
    return r.readStates.length > 0;
  }

  /** Hands out the current batch of work. Call advance() when it is done. */
  ready(): Ready {
    if (this.outstanding) throw new RaftError("ErrReadyNotAdvanced", "raft: ready() called before advance() of the previous Ready");
    const r = this.raft;
    const rd: Ready = {
      readStates: r.readStates,
      entries: r.log.unstableEntries(),
      committedEntries: r.log.nextEnts(),
      messages: r.msgs,
      mustSync: false,
    };
    r.msgs = [];
    r.readStates = [];
    const ss = r.softState();
    if (ss.lead !== this.prevSoftState.lead || ss.raftState !== this.prevSoftState.raftState) {
      rd.softState = ss;
      this.prevSoftState = ss;
    }
    const hs = r.hardState();
    if (!hardStateEqual(hs, this.prevHardState)) rd.hardState = hs;
    const snap = r.log.unstable.snapshot;
    if (snap) rd.snapshot = snap;
    // Term and vote must be durable before answering; a commit index alone may be lost (it is recomputed).
    rd.mustSync =
      rd.entries.length > 0 || rd.snapshot !== undefined || (rd.hardState !== undefined && (rd.hardState.term !== this.prevHardState.term || rd.hardState.vote !== this.prevHardState.vote));
    this.outstanding = rd;
    return rd;
  }

  /** Acknowledges the last Ready: its entries are stable and its committed entries applied. */
  advance(): void {
    const rd = this.outstanding;
    if (!rd) return;
    this.outstanding = undefined;
    if (rd.hardState) this.prevHardState = rd.hardState;
    const lastCommitted = rd.committedEntries.length > 0 ? rd.committedEntries[rd.committedEntries.length - 1].index : 0;
    const snapshotIndex = rd.snapshot ? rd.snapshot.metadata.index : 0;
    const lastEntry = rd.entries.length > 0 ? rd.entries[rd.entries.length - 1] : undefined;
    this.raft.advance({
      lastEntry: lastEntry ? { index: lastEntry.index, term: lastEntry.term } : undefined,
      snapshotIndex,
      appliedIndex: lastCommitted > 0 ? lastCommitted : snapshotIndex,
      committedEntries: rd.committedEntries,
    });
  }

  status(): Status {
    const r = this.raft;
    const s: Status = {
      id: r.id,
      hardState: r.hardState(),
      softState: r.softState(),
      state: stateTypeName(r.state),
      applied: r.log.applied,
      leadTransferee: r.leadTransferee,
      config: describeConfig(r.trk.config),
      confState: r.trk.confState(),
    };
    if (r.state === StateType.Leader) {
      const progress: Record<number, ProgressStatus> = {};
      r.trk.visit((id, pr) => {
        progress[id] = { match: pr.match, next: pr.next, state: progressStateName(pr.state), recentActive: pr.recentActive, isLearner: pr.isLearner, inflight: pr.inflights.count };
      });
      s.progress = progress;
    }
    return s;
  }
}
