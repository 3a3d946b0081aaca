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

import type { ConfChange, ConfState, Entry, HardState, Message, ReadState, Snapshot, SoftState } from "./types.ts";
import { EntryType, MessageType, None, ReadOnlyOption, StateType, emptySnapshot, isEmptyHardState, newMessage, payloadSize } from "./types.ts";
import type { RaftStorage } from "./storage.ts";
import { RaftLog, noLimit } from "./log.ts";
import { Progress, ProgressState } from "./progress.ts";
import type { ProgressMap, TrackerConfig } from "./tracker.ts";
import { ProgressTracker, isJoint } from "./tracker.ts";
import { VoteResult } from "./quorum.ts";
import { ReadOnly } from "./read-only.ts";
import { Changer, applyChange, decodeConfChange, restoreConfState } from "./confchange.ts";
import { ProposalDroppedError, RaftError } from "./errors.ts";
import type { RandomSource } from "./rand.ts";
import { SeededRandom } from "./rand.ts";

export interface Config {
  /** This node's id (non-zero). */
  id: number;
  /** Ticks without hearing from a leader before a follower campaigns; the actual timeout is random in [electionTick, 2*electionTick). */
  electionTick: number;
  /** Ticks between leader heartbeats. Must be smaller than electionTick. */
  heartbeatTick: number;
  storage: RaftStorage;
  /** The last applied index when restarting (entries up to it are not handed out again). */
  applied?: number;
  /** Upper bound (bytes, approximate) of the entries in one MsgApp; 0 means one entry per message. Default 1 MiB. */
  maxSizePerMsg?: number;
  /** Upper bound (bytes) of committed entries handed out in one Ready. Default: no limit. */
  maxCommittedSizePerReady?: number;
  /** Upper bound (payload bytes) of the leader's uncommitted tail; proposals beyond it are dropped. Default: no limit. */
  maxUncommittedEntriesSize?: number;
  /** Maximum number of in-flight MsgApps per follower in Replicate state. Default 256. */
  maxInflightMsgs?: number;
  /** Leader steps down without a quorum's contact within an election timeout; followers honour the leader lease. */
  checkQuorum?: boolean;
  /** Run a pre-vote round before incrementing the term. */
  preVote?: boolean;
  readOnlyOption?: ReadOnlyOption;
  /** Followers drop proposals instead of forwarding them to the leader. */
  disableProposalForwarding?: boolean;
  /** A leader removed from (or demoted in) the config steps down. Default true. */
  stepDownOnRemoval?: boolean;
  /** Source of randomness for election timeouts. Default: a PRNG seeded with the node id. */
  random?: RandomSource;
}

type CampaignType = "PreElection" | "Election" | "Transfer";

const transferContext = new TextEncoder().encode("CampaignTransfer");

function isTransferContext(ctx: Uint8Array | undefined): boolean {
  if (!ctx || ctx.byteLength !== transferContext.byteLength) return false;
  for (let i = 0; i < ctx.byteLength; i++) if (ctx[i] !== transferContext[i]) return false;
  return true;
}

function voteRespType(t: MessageType): MessageType {
  if (t === MessageType.Vote) return MessageType.VoteResp;
  if (t === MessageType.PreVote) return MessageType.PreVoteResp;
  throw new Error(`not a vote message: ${t}`);
}

function validateConfig(c: Config): void {
  if (!Number.isSafeInteger(c.id) || c.id <= 0) throw new RangeError("raft config: id must be a positive integer");
  if (!(c.heartbeatTick > 0)) throw new RangeError("raft config: heartbeatTick must be greater than 0");
  if (!(c.electionTick > c.heartbeatTick)) throw new RangeError("raft config: electionTick must be greater than heartbeatTick");
  if (c.maxInflightMsgs !== undefined && !(c.maxInflightMsgs > 0)) throw new RangeError("raft config: maxInflightMsgs must be greater than 0");
  if (c.readOnlyOption === ReadOnlyOption.LeaseBased && !c.checkQuorum) {
    throw new RangeError("raft config: checkQuorum must be enabled when readOnlyOption is LeaseBased");
  }
}

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

  readonly checkQuorum: boolean;
  readonly preVote: boolean;
  readonly heartbeatTimeout: number;
  readonly electionTimeout: number;
  private readonly maxMsgSize: number;
  private readonly maxUncommittedSize: number;
  private readonly disableProposalForwarding: boolean;
  private readonly stepDownOnRemoval: boolean;
  private readonly random: RandomSource;
  /** ReadIndex requests waiting until this leader has committed an entry of its term. */
  private pendingReadIndexMessages: Message[] = [];

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
    this.random = c.random ?? new SeededRandom(c.id);

    const { hardState, confState } = c.storage.initialState();
    const restored = restoreConfState(this.trk, this.log.lastIndex(), confState);
    this.switchToConfig(restored.config, restored.progress);
    if (!isEmptyHardState(hardState)) this.loadState(hardState);
    if (c.applied !== undefined && c.applied > 0) this.log.appliedTo(c.applied);
    this.becomeFollower(this.term, None);
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

  // ---- sending ------------------------------------------------------------

  /** Queues m to be sent after the current unstable state is persisted. m is owned by the queue. */
  private send(m: Message): void {
    if (m.from === None) m.from = this.id;
    const t = m.type;
    if (t === MessageType.Vote || t === MessageType.VoteResp || t === MessageType.PreVote || t === MessageType.PreVoteResp) {
      // Campaign messages carry an explicit term: the (pre-)candidate's next term or the vote's term.
      if (m.term === 0) throw new Error(`raft: term should be set when sending ${t}`);
    } else {
      if (m.term !== 0) throw new Error(`raft: term should not be set when sending ${t} (was ${m.term})`);
      // Proposals and read requests are forwarded like local messages: no term.
      if (t !== MessageType.Prop && t !== MessageType.ReadIndex) m.term = this.term;
    }
    this.msgs.push(m);
  }

  private sendAppend(to: number): void {
    this.maybeSendAppend(to, true);
  }

  /**
   * Sends a MsgApp with new entries (if any) and the commit index to `to`,
   * or a snapshot if the entries it needs were compacted. Returns whether a
   * message was sent; with sendIfEmpty=false, empty appends are not sent.
   */
  private maybeSendAppend(to: number, sendIfEmpty: boolean): boolean {
    const pr = this.trk.progress.get(to);
    if (!pr || pr.isPaused()) return false;
    const prevIndex = pr.next - 1;
    const prevTerm = this.log.term(prevIndex);
    let ents: Entry[] | undefined;
    if (prevTerm !== undefined) {
      try {
        ents = this.log.entries(pr.next, this.maxMsgSize);
      } catch (e) {
        if (!(e instanceof RaftError && e.code === "ErrCompacted")) throw e;
      }
    }
    if (prevTerm === undefined || ents === undefined) return this.maybeSendSnapshot(to, pr);
    if (ents.length === 0 && !sendIfEmpty) return false;
    this.send(newMessage({ type: MessageType.App, to, index: prevIndex, logTerm: prevTerm, entries: ents, commit: this.log.committed }));
    if (ents.length > 0) {
      const last = ents[ents.length - 1].index;
      if (pr.state === ProgressState.Replicate) {
        pr.optimisticUpdate(last);
        pr.inflights.add(last);
      } else if (pr.state === ProgressState.Probe) {
        pr.probeSent = true;
      }
    }
    return true;
  }

  private maybeSendSnapshot(to: number, pr: Progress): boolean {
    if (!pr.recentActive) return false;
    let snap: Snapshot;
    try {
      snap = this.log.snapshot();
    } catch (e) {
      if (e instanceof RaftError && e.code === "ErrSnapshotTemporarilyUnavailable") return false;
      throw e;
    }
    if (snap.metadata.index === 0) throw new Error("raft: need a non-empty snapshot (create one before compacting)");
    pr.becomeSnapshot(snap.metadata.index);
    this.send(newMessage({ type: MessageType.Snap, to, snapshot: snap }));
    return true;
  }

  private sendHeartbeat(to: number, ctx: Uint8Array | undefined): void {
    const pr = this.trk.progress.get(to);
    // Never tell a follower to commit past what it is known to hold.
    const commit = Math.min(pr ? pr.match : 0, this.log.committed);
    this.send(newMessage({ type: MessageType.Heartbeat, to, commit, context: ctx }));
  }

  private bcastAppend(): void {
    this.trk.visit((id) => {
      if (id !== this.id) this.sendAppend(id);
    });
  }

  private bcastHeartbeat(): void {
    this.bcastHeartbeatWithCtx(this.readOnly.lastPendingRequestCtx());
  }

  private bcastHeartbeatWithCtx(ctx: Uint8Array | undefined): void {
    this.trk.visit((id) => {
      if (id !== this.id) this.sendHeartbeat(id, ctx);
    });
  }

  private sendTimeoutNow(to: number): void {
    this.send(newMessage({ type: MessageType.TimeoutNow, to }));
  }

  // ---- application feedback ---------------------------------------------

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
    if (r.committedEntries.length > 0) this.reduceUncommittedSize(r.committedEntries);
    if (r.lastEntry) this.log.stableTo(r.lastEntry.index, r.lastEntry.term);
    if (r.snapshotIndex > 0) this.log.stableSnapTo(r.snapshotIndex);
  }

  // ---- state transitions --------------------------------------------------

  private maybeCommit(): boolean {
    return this.log.maybeCommit(this.trk.committed(), this.term);
  }

  private reset(term: number): void {
    if (this.term !== term) {
      this.term = term;
      this.vote = None;
    }
    this.lead = None;
    this.electionElapsed = 0;
    this.heartbeatElapsed = 0;
    this.resetRandomizedElectionTimeout();
    this.abortLeaderTransfer();
    this.trk.resetVotes();
    const last = this.log.lastIndex();
    const fresh: ProgressMap = new Map();
    for (const [id, pr] of this.trk.progress) {
      const np = new Progress({ match: 0, next: last + 1, maxInflight: this.trk.maxInflight, isLearner: pr.isLearner });
      if (id === this.id) np.match = last;
      fresh.set(id, np);
    }
    this.trk.setConfig(this.trk.config, fresh);
    this.pendingConfIndex = 0;
    this.uncommittedSize = 0;
    this.readOnly = new ReadOnly(this.readOnly.option);
    this.pendingReadIndexMessages = [];
  }

  /** Appends proposed entries at the leader (assigning term and index). Returns false if dropped. */
  private appendEntry(es: Entry[]): boolean {
    const li = this.log.lastIndex();
    const ents = es.map((e, i): Entry => ({ term: this.term, index: li + 1 + i, type: e.type, data: e.data }));
    if (!this.increaseUncommittedSize(ents)) return false;
    const last = this.log.append(ents);
    // The leader's own entries count towards commit right away: they are
    // persisted before any MsgApp carrying them leaves this node.
    this.trk.progress.get(this.id)?.maybeUpdate(last);
    this.maybeCommit();
    return true;
  }

  tick(): void {
    if (this.state === StateType.Leader) this.tickHeartbeat();
    else this.tickElection();
  }

  private tickElection(): void {
    this.electionElapsed++;
    if (this.promotable() && this.pastElectionTimeout()) {
      this.electionElapsed = 0;
      this.step(newMessage({ type: MessageType.Hup, from: this.id }));
    }
  }

  private tickHeartbeat(): void {
    this.heartbeatElapsed++;
    this.electionElapsed++;
    if (this.electionElapsed >= this.electionTimeout) {
      this.electionElapsed = 0;
      if (this.checkQuorum) this.step(newMessage({ type: MessageType.CheckQuorum, from: this.id }));
      // A transfer that did not finish within an election timeout is abandoned.
      if (this.state === StateType.Leader && this.leadTransferee !== None) this.abortLeaderTransfer();
    }
    if (this.state !== StateType.Leader) return;
    if (this.heartbeatElapsed >= this.heartbeatTimeout) {
      this.heartbeatElapsed = 0;
      this.step(newMessage({ type: MessageType.Beat, from: this.id }));
    }
  }

  becomeFollower(term: number, lead: number): void {
    this.reset(term);
    this.lead = lead;
    this.state = StateType.Follower;
  }

  becomeCandidate(): void {
    if (this.state === StateType.Leader) throw new Error("raft: invalid transition [leader -> candidate]");
    this.reset(this.term + 1);
    this.vote = this.id;
    this.state = StateType.Candidate;
  }

  becomePreCandidate(): void {
    if (this.state === StateType.Leader) throw new Error("raft: invalid transition [leader -> pre-candidate]");
    // Neither the term nor the vote change: a pre-candidate is not yet a candidate.
    this.trk.resetVotes();
    this.lead = None;
    this.state = StateType.PreCandidate;
  }

  becomeLeader(): void {
    if (this.state === StateType.Follower) throw new Error("raft: invalid transition [follower -> leader]");
    this.reset(this.term);
    this.lead = this.id;
    this.state = StateType.Leader;
    const self = this.trk.progress.get(this.id);
    if (self) {
      self.becomeReplicate();
      self.recentActive = true;
    }
    // Conservatively assume a conf change may be pending in the uncommitted tail.
    this.pendingConfIndex = this.log.lastIndex();
    // An empty entry of the new term: committing it commits every earlier entry (§5.4.2).
    if (!this.appendEntry([{ term: 0, index: 0, type: EntryType.Normal, data: new Uint8Array(0) }])) {
      throw new Error("raft: empty entry was dropped");
    }
  }

  private hup(t: CampaignType): void {
    if (this.state === StateType.Leader) return;
    if (!this.promotable()) return;
    if (this.hasUnappliedConfChanges()) return;
    this.campaign(t);
  }

  private hasUnappliedConfChanges(): boolean {
    if (this.log.applied >= this.log.committed) return false;
    const lo = Math.max(this.log.applied + 1, this.log.firstIndex());
    if (lo > this.log.committed) return false;
    for (const e of this.log.slice(lo, this.log.committed + 1, noLimit)) {
      if (e.type === EntryType.ConfChange) return true;
    }
    return false;
  }

  private campaign(t: CampaignType): void {
    let term: number;
    let voteMsg: MessageType;
    if (t === "PreElection") {
      this.becomePreCandidate();
      voteMsg = MessageType.PreVote;
      // Pre-votes are requested for the next term, without incrementing ours.
      term = this.term + 1;
    } else {
      this.becomeCandidate();
      voteMsg = MessageType.Vote;
      term = this.term;
    }
    if (this.poll(this.id, true) === VoteResult.Won) {
      // A single voter wins right away.
      if (t === "PreElection") this.campaign("Election");
      else this.becomeLeader();
      return;
    }
    const lastIndex = this.log.lastIndex();
    const lastTerm = this.log.lastTerm();
    for (const id of this.trk.voterNodes()) {
      if (id === this.id) continue;
      this.send(newMessage({ type: voteMsg, to: id, term, index: lastIndex, logTerm: lastTerm, context: t === "Transfer" ? transferContext : undefined }));
    }
  }

  private poll(id: number, granted: boolean): VoteResult {
    this.trk.recordVote(id, granted);
    return this.trk.tallyVotes().result;
  }

  // ---- step -------------------------------------------------------------

  /** Processes one message. Throws ProposalDroppedError when a proposal cannot be accepted. */
  step(m: Message): void {
    if (m.term === 0) {
      // local message (or a forwarded proposal / read request)
    } else if (m.term > this.term) {
      if (m.type === MessageType.Vote || m.type === MessageType.PreVote) {
        const force = isTransferContext(m.context);
        const inLease = this.checkQuorum && this.lead !== None && this.electionElapsed < this.electionTimeout;
        // Leader lease: within an election timeout of hearing from a leader,
        // neither update the term nor grant a vote (unless it is a transfer).
        if (!force && inLease) return;
      }
      if (m.type === MessageType.PreVote) {
        // Never change the term because of a pre-vote.
      } else if (m.type === MessageType.PreVoteResp && !m.reject) {
        // A granted pre-vote carries our future term; the term moves when the pre-vote wins.
      } else if (m.type === MessageType.App || m.type === MessageType.Heartbeat || m.type === MessageType.Snap) {
        this.becomeFollower(m.term, m.from);
      } else {
        this.becomeFollower(m.term, None);
      }
    } else if (m.term < this.term) {
      if ((this.checkQuorum || this.preVote) && (m.type === MessageType.Heartbeat || m.type === MessageType.App)) {
        // A stale leader (e.g. after a partition healed) learns the new term
        // from this response and steps down; without it, check-quorum or
        // pre-vote could leave it and this node stuck.
        this.send(newMessage({ type: MessageType.AppResp, to: m.from }));
      } else if (m.type === MessageType.PreVote) {
        // Reject so that a pre-candidate with a stale term learns it.
        this.send(newMessage({ type: MessageType.PreVoteResp, to: m.from, term: this.term, reject: true }));
      }
      return;
    }

    switch (m.type) {
      case MessageType.Hup:
        this.hup(this.preVote ? "PreElection" : "Election");
        return;
      case MessageType.Vote:
      case MessageType.PreVote: {
        // Vote again for the same candidate, or vote if not yet voted and no
        // leader is known in this term, or grant a pre-vote for a future term...
        const canVote =
          this.vote === m.from ||
          (this.vote === None && this.lead === None) ||
          (m.type === MessageType.PreVote && m.term > this.term);
        // ...and only for a candidate whose log is at least as up to date (§5.4.1).
        if (canVote && this.log.isUpToDate(m.index, m.logTerm)) {
          // Reply with the message's term: a pre-vote's term is in our future.
          this.send(newMessage({ type: voteRespType(m.type), to: m.from, term: m.term }));
          if (m.type === MessageType.Vote) {
            this.electionElapsed = 0;
            this.vote = m.from;
          }
        } else {
          this.send(newMessage({ type: voteRespType(m.type), to: m.from, term: this.term, reject: true }));
        }
        return;
      }
      default:
        switch (this.state) {
          case StateType.Leader:
            this.stepLeader(m);
            return;
          case StateType.Candidate:
          case StateType.PreCandidate:
            this.stepCandidate(m);
            return;
          default:
            this.stepFollower(m);
        }
    }
  }

  private stepLeader(m: Message): void {
    // Messages that need no progress of the sender.
    switch (m.type) {
      case MessageType.Beat:
        this.bcastHeartbeat();
        return;
      case MessageType.CheckQuorum:
        if (!this.trk.quorumActive()) {
          this.becomeFollower(this.term, None);
        }
        this.trk.visit((id, pr) => {
          if (id !== this.id) pr.recentActive = false;
        });
        return;
      case MessageType.Prop:
        this.leaderPropose(m);
        return;
      case MessageType.ReadIndex:
        if (this.trk.isSingleton()) {
          const resp = this.responseToReadIndexReq(m, this.log.committed);
          if (resp) this.send(resp);
          return;
        }
        // A new leader does not know the commit index until it committed an entry of its term.
        if (!this.committedEntryInCurrentTerm()) {
          this.pendingReadIndexMessages.push(m);
          return;
        }
        this.sendMsgReadIndexResponse(m);
        return;
    }

    const pr = this.trk.progress.get(m.from);
    if (!pr) return;
    switch (m.type) {
      case MessageType.AppResp:
        this.handleAppendResponse(m, pr);
        return;
      case MessageType.HeartbeatResp: {
        pr.recentActive = true;
        pr.probeSent = false;
        // Free one slot so that a follower whose appends were all lost is not stuck.
        if (pr.state === ProgressState.Replicate && pr.inflights.full()) pr.inflights.freeFirstOne();
        if (pr.match < this.log.lastIndex()) this.sendAppend(m.from);
        if (this.readOnly.option !== ReadOnlyOption.Safe || !m.context || m.context.byteLength === 0) return;
        const acks = this.readOnly.recvAck(m.from, m.context);
        if (!acks || this.trk.voteResult(acks) !== VoteResult.Won) return;
        for (const rs of this.readOnly.advance(m.context)) {
          const resp = this.responseToReadIndexReq(rs.req, rs.index);
          if (resp) this.send(resp);
        }
        return;
      }
      case MessageType.SnapStatus:
        if (pr.state !== ProgressState.Snapshot) return;
        if (m.reject) pr.pendingSnapshot = 0; // failed: probe from match, not from the snapshot
        pr.becomeProbe();
        // Wait for the follower's MsgAppResp (or a heartbeat) before the next append.
        pr.probeSent = true;
        return;
      case MessageType.Unreachable:
        // Appends sent optimistically were probably lost.
        if (pr.state === ProgressState.Replicate) pr.becomeProbe();
        return;
      case MessageType.TransferLeader: {
        if (pr.isLearner) return;
        const transferee = m.from;
        if (this.leadTransferee !== None) {
          if (this.leadTransferee === transferee) return;
          this.abortLeaderTransfer();
        }
        if (transferee === this.id) return;
        // The transfer must finish within an election timeout.
        this.electionElapsed = 0;
        this.leadTransferee = transferee;
        if (pr.match === this.log.lastIndex()) this.sendTimeoutNow(transferee);
        else this.sendAppend(transferee);
        return;
      }
    }
  }

  private leaderPropose(m: Message): void {
    if (m.entries.length === 0) throw new Error("raft: stepped empty MsgProp");
    if (!this.trk.progress.has(this.id)) throw new ProposalDroppedError("not-member", "raft proposal dropped: this leader is not a member of the config");
    if (this.leadTransferee !== None) {
      throw new ProposalDroppedError("transfer-in-progress", `raft proposal dropped: leadership transfer to ${this.leadTransferee} in progress`);
    }
    const ents = m.entries.slice();
    for (let i = 0; i < ents.length; i++) {
      const e = ents[i];
      if (e.type !== EntryType.ConfChange) continue;
      let failed: string | undefined;
      let cc: ConfChange | undefined;
      try {
        cc = decodeConfChange(e.data);
      } catch {
        failed = "malformed conf change";
      }
      if (cc) {
        const alreadyPending = this.pendingConfIndex > this.log.applied;
        const alreadyJoint = isJoint(this.trk.config);
        const wantsLeaveJoint = cc.changes.length === 0;
        if (alreadyPending) failed = `possible unapplied conf change at index ${this.pendingConfIndex} (applied to ${this.log.applied})`;
        else if (alreadyJoint && !wantsLeaveJoint) failed = "must transition out of joint config first";
        else if (!alreadyJoint && wantsLeaveJoint) failed = "not in joint state; refusing empty conf change";
      }
      if (failed !== undefined) {
        // Keep the slot (the caller's indexes stay valid) but neutralize the change.
        ents[i] = { term: 0, index: 0, type: EntryType.Normal, data: new Uint8Array(0) };
      } else {
        this.pendingConfIndex = this.log.lastIndex() + i + 1;
      }
    }
    if (!this.appendEntry(ents)) {
      throw new ProposalDroppedError("uncommitted-size-exceeded", "raft proposal dropped: uncommitted entries exceed maxUncommittedEntriesSize");
    }
    this.bcastAppend();
  }

  private handleAppendResponse(m: Message, pr: Progress): void {
    pr.recentActive = true;
    if (m.reject) {
      // rejectHint is where the follower guesses the logs match; logTerm is its
      // term there. Skip every index of ours whose term is larger than that:
      // a probe there would be rejected too (one probe per term, not per index).
      let nextProbeIdx = m.rejectHint;
      if (m.logTerm > 0) nextProbeIdx = this.log.findConflictByTerm(m.rejectHint, m.logTerm)[0];
      if (pr.maybeDecrTo(m.index, nextProbeIdx)) {
        if (pr.state === ProgressState.Replicate) pr.becomeProbe();
        this.sendAppend(m.from);
      }
      return;
    }
    const oldPaused = pr.isPaused();
    if (!(pr.maybeUpdate(m.index) || (pr.match === m.index && pr.state === ProgressState.Probe))) return;
    if (pr.state === ProgressState.Probe) {
      pr.becomeReplicate();
    } else if (pr.state === ProgressState.Snapshot && pr.match + 1 >= this.log.firstIndex()) {
      // The follower can be caught up from the log again.
      pr.becomeProbe();
      pr.becomeReplicate();
    } else if (pr.state === ProgressState.Replicate) {
      pr.inflights.freeLE(m.index);
    }
    if (this.maybeCommit()) {
      this.releasePendingReadIndexMessages();
      this.bcastAppend();
    } else if (oldPaused) {
      // The follower was paused and may miss the latest commit index.
      this.sendAppend(m.from);
    }
    // Flow control may allow more (size-limited) messages now.
    while (this.maybeSendAppend(m.from, false)) {
      // keep sending
    }
    if (m.from === this.leadTransferee && pr.match === this.log.lastIndex()) this.sendTimeoutNow(m.from);
  }

  private stepCandidate(m: Message): void {
    // Only the responses of the current candidacy count (stale pre-vote
    // responses may still arrive while a candidate).
    const myVoteRespType = this.state === StateType.PreCandidate ? MessageType.PreVoteResp : MessageType.VoteResp;
    switch (m.type) {
      case MessageType.Prop:
        throw new ProposalDroppedError("no-leader", `raft proposal dropped: no leader at term ${this.term}`);
      case MessageType.App:
        this.becomeFollower(m.term, m.from);
        this.handleAppendEntries(m);
        return;
      case MessageType.Heartbeat:
        this.becomeFollower(m.term, m.from);
        this.handleHeartbeat(m);
        return;
      case MessageType.Snap:
        this.becomeFollower(m.term, m.from);
        this.handleSnapshot(m);
        return;
      case myVoteRespType: {
        const res = this.poll(m.from, !m.reject);
        if (res === VoteResult.Won) {
          if (this.state === StateType.PreCandidate) {
            this.campaign("Election");
          } else {
            this.becomeLeader();
            this.bcastAppend();
          }
        } else if (res === VoteResult.Lost) {
          // A rejected pre-vote carries a future term; keep ours.
          this.becomeFollower(this.term, None);
        }
        return;
      }
      default:
        return;
    }
  }

  private stepFollower(m: Message): void {
    switch (m.type) {
      case MessageType.Prop:
        if (this.lead === None) throw new ProposalDroppedError("no-leader", `raft proposal dropped: no leader at term ${this.term}`);
        if (this.disableProposalForwarding) {
          throw new ProposalDroppedError("forwarding-disabled", `raft proposal dropped: not forwarding to leader ${this.lead}`);
        }
        this.send({ ...m, to: this.lead });
        return;
      case MessageType.App:
        this.electionElapsed = 0;
        this.lead = m.from;
        this.handleAppendEntries(m);
        return;
      case MessageType.Heartbeat:
        this.electionElapsed = 0;
        this.lead = m.from;
        this.handleHeartbeat(m);
        return;
      case MessageType.Snap:
        this.electionElapsed = 0;
        this.lead = m.from;
        this.handleSnapshot(m);
        return;
      case MessageType.TransferLeader:
        if (this.lead === None) return;
        this.send({ ...m, to: this.lead, term: 0 });
        return;
      case MessageType.TimeoutNow:
        // A transfer skips pre-vote: the leader asked for it, nobody is partitioned.
        this.hup("Transfer");
        return;
      case MessageType.ReadIndex:
        if (this.lead === None) return;
        this.send({ ...m, to: this.lead });
        return;
      case MessageType.ReadIndexResp:
        if (m.entries.length !== 1) return;
        this.readStates.push({ index: m.index, requestCtx: m.entries[0].data });
        return;
      default:
        return;
    }
  }

  private handleAppendEntries(m: Message): void {
    if (m.index < this.log.committed) {
      this.send(newMessage({ type: MessageType.AppResp, to: m.from, index: this.log.committed }));
      return;
    }
    const lastNew = this.log.maybeAppend(m.index, m.logTerm, m.commit, m.entries);
    if (lastNew !== undefined) {
      this.send(newMessage({ type: MessageType.AppResp, to: m.from, index: lastNew }));
      return;
    }
    // Mismatch at m.index: hint the largest (index, term) of ours with
    // index <= m.index and term <= m.logTerm, skipping our divergent tail.
    const [hintIndex, hintTerm] = this.log.findConflictByTerm(Math.min(m.index, this.log.lastIndex()), m.logTerm);
    this.send(newMessage({ type: MessageType.AppResp, to: m.from, index: m.index, reject: true, rejectHint: hintIndex, logTerm: hintTerm }));
  }

  private handleHeartbeat(m: Message): void {
    this.log.commitTo(m.commit);
    this.send(newMessage({ type: MessageType.HeartbeatResp, to: m.from, context: m.context }));
  }

  private handleSnapshot(m: Message): void {
    const s = m.snapshot ?? emptySnapshot();
    if (this.restore(s)) {
      this.send(newMessage({ type: MessageType.AppResp, to: m.from, index: this.log.lastIndex() }));
    } else {
      this.send(newMessage({ type: MessageType.AppResp, to: m.from, index: this.log.committed }));
    }
  }

  /** Installs a snapshot from the leader. Returns false if it was ignored (stale, or the log already has it). */
  restore(s: Snapshot): boolean {
    if (s.metadata.index <= this.log.committed) return false;
    if (this.state !== StateType.Follower) {
      // Defensive: only followers restore snapshots.
      this.becomeFollower(this.term + 1, None);
      return false;
    }
    const cs = s.metadata.confState;
    if (!cs.voters.includes(this.id) && !cs.learners.includes(this.id) && !cs.votersOutgoing.includes(this.id)) {
      return false;
    }
    if (this.log.matchTerm(s.metadata.index, s.metadata.term)) {
      // The log already holds the snapshot's last entry: just move the commit index.
      this.log.commitTo(s.metadata.index);
      return false;
    }
    this.log.restore(s);
    this.trk = new ProgressTracker(this.trk.maxInflight);
    const restored = restoreConfState(this.trk, this.log.lastIndex(), cs);
    this.switchToConfig(restored.config, restored.progress);
    return true;
  }

  /** Whether this node may campaign: a voter with no snapshot pending. */
  promotable(): boolean {
    const pr = this.trk.progress.get(this.id);
    return pr !== undefined && !pr.isLearner && !this.log.hasPendingSnapshot();
  }

  /** Applies a committed conf change (called by the application); returns the new ConfState. */
  applyConfChange(cc: ConfChange): ConfState {
    const changer = new Changer(this.trk, this.log.lastIndex());
    const res = applyChange(changer, cc);
    return this.switchToConfig(res.config, res.progress);
  }

  private switchToConfig(config: TrackerConfig, progress: ProgressMap): ConfState {
    this.trk.setConfig(config, progress);
    const cs = this.trk.confState();
    const pr = this.trk.progress.get(this.id);
    this.isLearner = pr !== undefined && pr.isLearner;
    if ((!pr || this.isLearner) && this.state === StateType.Leader) {
      if (this.stepDownOnRemoval) this.becomeFollower(this.term, None);
      return cs;
    }
    if (this.state !== StateType.Leader || cs.voters.length === 0) return cs;
    if (this.maybeCommit()) {
      // The new config may commit more: tell everyone.
      this.bcastAppend();
    } else {
      // Probe the new members right away.
      this.trk.visit((id) => {
        if (id !== this.id) this.maybeSendAppend(id, false);
      });
    }
    if (this.leadTransferee !== None && !this.trk.config.voters.incoming.has(this.leadTransferee) && !this.trk.config.voters.outgoing.has(this.leadTransferee)) {
      this.abortLeaderTransfer();
    }
    return cs;
  }

  private loadState(hs: HardState): void {
    if (hs.commit < this.log.committed || hs.commit > this.log.lastIndex()) {
      throw new Error(`raft: hardstate commit ${hs.commit} is out of range [${this.log.committed}, ${this.log.lastIndex()}]`);
    }
    this.log.committed = hs.commit;
    this.term = hs.term;
    this.vote = hs.vote;
  }

  private pastElectionTimeout(): boolean {
    return this.electionElapsed >= this.randomizedElectionTimeout;
  }

  private resetRandomizedElectionTimeout(): void {
    this.randomizedElectionTimeout = this.electionTimeout + this.random.intn(this.electionTimeout);
  }

  abortLeaderTransfer(): void {
    this.leadTransferee = None;
  }

  private committedEntryInCurrentTerm(): boolean {
    return this.log.term(this.log.committed) === this.term;
  }

  private responseToReadIndexReq(req: Message, readIndex: number): Message | undefined {
    if (req.from === None || req.from === this.id) {
      this.readStates.push({ index: readIndex, requestCtx: req.entries[0].data });
      return undefined;
    }
    return newMessage({ type: MessageType.ReadIndexResp, to: req.from, index: readIndex, entries: req.entries });
  }

  private sendMsgReadIndexResponse(m: Message): void {
    if (this.readOnly.option === ReadOnlyOption.Safe) {
      const ctx = m.entries[0].data;
      this.readOnly.addRequest(this.log.committed, m);
      this.readOnly.recvAck(this.id, ctx);
      this.bcastHeartbeatWithCtx(ctx);
      return;
    }
    const resp = this.responseToReadIndexReq(m, this.log.committed);
    if (resp) this.send(resp);
  }

  private releasePendingReadIndexMessages(): void {
    if (this.pendingReadIndexMessages.length === 0 || !this.committedEntryInCurrentTerm()) return;
    const msgs = this.pendingReadIndexMessages;
    this.pendingReadIndexMessages = [];
    for (const m of msgs) this.sendMsgReadIndexResponse(m);
  }

  private increaseUncommittedSize(ents: Entry[]): boolean {
    let s = 0;
    for (const e of ents) s += payloadSize(e);
    // An empty tail accepts any proposal; empty entries are never refused.
    if (this.uncommittedSize > 0 && s > 0 && this.uncommittedSize + s > this.maxUncommittedSize) return false;
    this.uncommittedSize += s;
    return true;
  }

  private reduceUncommittedSize(ents: Entry[]): void {
    if (this.state !== StateType.Leader) return;
    let s = 0;
    for (const e of ents) s += payloadSize(e);
    this.uncommittedSize = Math.max(0, this.uncommittedSize - s);
  }
}
