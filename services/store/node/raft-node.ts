// RaftNode: the replicated StoreBackend. A thin shell around the pure Raft
// core (RawNode) that owns the clock (tick timer), the disk (WAL and
// snapshot files), the network (a Transport) and the state machine
// (MvccStore).
//
// One loop handles the core's Ready batches in the order rawnode.ts requires:
// (1) persist the snapshot, entries and hard state with one WAL save (one
// group-commit fsync for the whole batch; a Ready that only moves the commit
// index needs no sync: its hard state rides along with the next save, or is
// written after a tick without one), (2) install the snapshot, (3) send the
// messages, (4) apply the committed entries, (5) serve read states,
// (6) advance(). The one exception is etcd's: a leader sends (3) before it
// persists (1), see handleReady.
// Proposals made while a Ready is being persisted are queued and go into the
// next Ready together (many propose() calls, one append, one fsync).
//
// A proposal carries a tag (node id, process nonce, sequence) in its entry;
// the proposer resolves it when it applies the entry, on leader and follower
// alike (a follower's proposal reaches the leader through the core's
// forwarding). Applying: apply.ts; snapshots: snapshots.ts; restart and
// bootstrap: disk.ts; membership: membership.ts; leases: leases.ts. A member
// that applied its own removal, or heard from a member that applied it (the
// transport's removal notice, see heardRemoved), stops only once
// raft/retirement.ts lets it (or after removedLingerMaxMs), see maybeRetire.

import { randomInt } from "node:crypto";
import {
  EntryType,
  MessageType,
  None,
  ProposalDroppedError,
  RawNode,
  Retirement,
  SeededRandom,
  StateType,
  type HardState,
  type Message,
  type Entry,
  type Ready,
  type Snapshot,
  type Status,
} from "../raft/index.ts";
import { MvccStore, type LeaseId, type RevisionChange, type StoreRequest, type StoreResponse } from "../mvcc/index.ts";
import type { BackendStatus, StoreBackend } from "../server/backend.ts";
import type { RemovalNotice, Transport } from "../transport/types.ts";
import type { WalLogger } from "../wal/index.ts";
import { bootstrap, openDisk, type OpenedDisk } from "./disk.ts";
import { encodeRequestEntry } from "./entry-data.ts";
import { Applier } from "./apply.ts";
import { NodeError, noLeader, notLeader, stopped } from "./errors.ts";
import { LeaseKeeper } from "./leases.ts";
import type { Member } from "./members.ts";
import { Membership, type MembershipHost } from "./membership.ts";
import { computeClusterId, resolveTimers, type RaftNodeOptions, type ResolvedTimers } from "./options.ts";
import { PendingRequests } from "./pending.ts";
import { ReadIndexQueue, type ReadIndexSender } from "./read-index.ts";
import { SnapshotScheduler } from "./snapshots.ts";

const defaultLog: WalLogger = (level, msg, fields) => {
  if (level === "warn" || level === "error") process.stderr.write(`${JSON.stringify({ level, msg, ...fields })}\n`);
};

function dropError(e: unknown): unknown {
  if (!(e instanceof ProposalDroppedError)) return e;
  return e.reason === "no-leader" ? noLeader() : new NodeError("dropped", `store: proposal dropped (${e.reason})`);
}

export class RaftNode implements StoreBackend {
  readonly id: number;
  readonly mvcc: MvccStore;
  readonly clusterId: bigint;
  private readonly rn: RawNode;
  private readonly disk: OpenedDisk;
  private readonly transport: Transport;
  private readonly timers: ResolvedTimers;
  private readonly membership: Membership;
  /** When this member, once removed, may stop (raft/retirement.ts), and since when it is removed. */
  private readonly retirement: Retirement;
  private removedAtMs: number | undefined;
  /** Set when a member that applied this node's removal said so before this node applied it (heardRemoved). */
  private removedBy: (RemovalNotice & { peer: number }) | undefined;
  private readonly nonce = randomInt(1, 2 ** 31);
  private readonly now: () => number;
  private readonly log: WalLogger;
  private readonly proposals: PendingRequests<StoreResponse>;
  private readonly confChanges: PendingRequests<Member[]>;
  private readonly reads: ReadIndexQueue;
  /** How reads reach the core; made once (a literal of named closures per flush would cost a slow function object each). */
  private readonly readIndexSender: ReadIndexSender = { readIndex: (ctx) => this.rn.readIndex(ctx), hasLeader: () => this.rn.raft.lead !== None };
  private readonly leases: LeaseKeeper;
  private readonly snapshots: SnapshotScheduler;
  private queued: { seq: number; data: Uint8Array }[] = [];
  private readonly applier: Applier;
  private lead = None;
  private leading = false;
  private looping = false;
  private loopDone: Promise<void> = Promise.resolve();
  private timerHandles: NodeJS.Timeout[] = [];
  private state: "running" | "stopping" | "stopped" = "running";
  private stopping: Promise<void> | undefined;
  /** A commit-only hard state not yet written (see handleReady). */
  private lazyHardState: HardState | undefined;
  private lazySeenAtTick: HardState | undefined;
  /** The pending commit notice (armCommitNotice). */
  private commitNotice: NodeJS.Timeout | undefined;
  /** A read flush is due at the end of this turn (see scheduleReads), and whether the loop should do it. */
  private readsScheduled = false;
  private readsDue = false;
  /** Counters for tests, metrics and benchmarks. */
  readonly stats = { readies: 0, proposalBatches: 0, proposed: 0, snapshotsInstalled: 0 };

  /** Opens (or bootstraps) the node's data directory and starts it. */
  static async start(opts: RaftNodeOptions): Promise<RaftNode> {
    const timers = resolveTimers(opts);
    const log = opts.log ?? defaultLog;
    const disk = await openDisk(opts.dataDir, log);
    try {
      if (disk.fresh && !opts.join) {
        const initial = opts.initialMembers ?? [];
        if (!initial.some((m) => m.id === opts.id)) throw new Error(`store node: initialMembers must include this node (${opts.id}) to bootstrap a cluster`);
        await bootstrap(disk, initial);
      }
      const node = new RaftNode(opts, timers, disk, log);
      await node.begin(opts);
      return node;
    } catch (e) {
      await disk.wal.close().catch(() => undefined);
      throw e;
    }
  }

  private constructor(
    private readonly opts: RaftNodeOptions,
    timers: ResolvedTimers,
    disk: OpenedDisk,
    log: WalLogger,
  ) {
    this.id = opts.id;
    this.timers = timers;
    this.disk = disk;
    this.log = log;
    // Every member starts as a follower (see setLeadership).
    disk.wal.syncInline = true;
    this.transport = opts.transport;
    this.now = opts.now ?? Date.now;
    this.mvcc = opts.mvcc ?? new MvccStore();
    this.confChanges = new PendingRequests(timers.requestTimeoutMs, this.now, "membership change");
    this.membership = new Membership(this.membershipHost(), this.confChanges);
    this.retirement = new Retirement(timers.electionTick);
    this.clusterId = opts.clusterId ?? computeClusterId(opts.initialMembers ?? []);
    this.proposals = new PendingRequests(timers.requestTimeoutMs, this.now);
    this.leases = new LeaseKeeper(this.mvcc, this.now, (r) => this.propose(r));
    this.applier = new Applier({ id: this.id, nonce: this.nonce, mvcc: this.mvcc, membership: this.membership, leases: this.leases, proposals: this.proposals, publisher: opts.publisher, log });
    if (disk.snapshot) this.applier.load(disk.snapshot);
    this.rn = new RawNode({
      id: opts.id,
      storage: disk.storage,
      electionTick: timers.electionTick,
      heartbeatTick: 1,
      applied: this.applier.applied,
      checkQuorum: true,
      preVote: true,
      // With a positive commitNoticeDelayMs (off by default, see options.ts), a
      // moved commit index rides on the next append and followers that hold
      // committed entries are told within that delay when none comes
      // (armCommitNotice); with 0, every follower is told at once, as etcd's
      // leader tells them.
      lazyCommitBroadcast: timers.commitNoticeDelayMs > 0,
      maxSizePerMsg: opts.maxSizePerMsg ?? 1024 * 1024,
      maxInflightMsgs: opts.maxInflightMsgs ?? 256,
      random: new SeededRandom(randomInt(1, 2 ** 31)),
    });
    this.reads = new ReadIndexQueue(this.nonce, timers.requestTimeoutMs, Math.max(timers.heartbeatMs * 3, 50), this.now);
    this.snapshots = new SnapshotScheduler(disk, timers, this.applier.applied, (e) => this.fail(e));
  }

  private membershipHost(): MembershipHost {
    return {
      id: this.id,
      nonce: this.nonce,
      transport: this.transport,
      log: this.log,
      isRunning: () => this.serving(),
      leaderId: () => this.rn.raft.lead,
      isLeader: () => this.leading,
      term: () => this.rn.raft.term,
      progress: (id) => {
        const pr = this.rn.status().progress?.[id];
        return pr ? { match: pr.match, last: this.rn.raft.log.lastIndex() } : undefined;
      },
      proposeConfChange: (cc) => this.rn.proposeConfChange(cc),
      applyConfChange: (cc) => this.rn.applyConfChange(cc),
      dropError,
    };
  }

  private async begin(opts: RaftNodeOptions): Promise<void> {
    if (opts.join) for (const m of opts.initialMembers ?? []) if (m.id !== this.id) this.transport.addPeer(m.id, m.peerUrls);
    this.membership.syncPeers();
    this.transport.onMessage((m) => this.receive(m));
    this.transport.onUnreachable((peer) => this.guard(() => this.rn.reportUnreachable(peer)));
    this.transport.onSnapshotStatus((peer, status) => this.guard(() => this.rn.reportSnapshot(peer, status)));
    this.transport.onRemoved((peer, notice) => this.heardRemoved(peer, notice));
    // Apply what the log already holds (bootstrap entries, or the committed tail after a restart).
    this.schedule();
    await this.loopDone;
    const cs = this.applier.confState;
    if (cs.voters.length === 1 && cs.voters[0] === this.id && cs.votersOutgoing.length === 0) {
      this.rn.campaign(); // a group of one needs no election timeout
      this.schedule();
    }
    const tick = setInterval(() => this.tick(), this.timers.heartbeatMs);
    const leases = setInterval(() => this.leases.check(), this.timers.leaseCheckMs);
    tick.unref();
    leases.unref();
    this.timerHandles = [tick, leases];
  }

  // ---- StoreBackend ---------------------------------------------------------

  /** `encoded`: encodeRequest(request), when the caller made it already. */
  propose(request: StoreRequest, encoded?: Uint8Array): Promise<StoreResponse> {
    if (!this.serving()) return Promise.reject(stopped());
    const { seq, promise } = this.proposals.register();
    this.queued.push({ seq, data: encodeRequestEntry({ proposer: this.id, nonce: this.nonce, seq }, request, encoded) });
    this.schedule();
    return promise;
  }

  readBarrier(): Promise<void> {
    if (!this.serving()) return Promise.reject(stopped());
    const p = this.reads.wait();
    this.scheduleReads();
    return p;
  }

  /** ReadIndex rounds sent (one confirms every read that waited for it). */
  get readIndexRounds(): number {
    return this.reads.rounds;
  }

  /** Every applied write revision, in order (see apply.ts for the contract). */
  onApplied(listener: (change: RevisionChange) => void): () => void {
    return this.applier.onApplied(listener);
  }

  status(): BackendStatus {
    const hs = this.rn.raft.hardState();
    return { memberId: BigInt(this.id), clusterId: this.clusterId, term: hs.term, leader: BigInt(this.rn.raft.lead), raftIndex: hs.commit, appliedIndex: this.applier.applied };
  }

  // ---- more of the node ---------------------------------------------------

  /** The Raft core's view (state, progress of followers on the leader). */
  raftStatus(): Status {
    return this.rn.status();
  }

  get isLeader(): boolean {
    return this.leading;
  }

  /** The current leader's id, 0 when none is known. */
  get leaderId(): number {
    return this.rn.raft.lead;
  }

  get appliedIndex(): number {
    return this.applier.applied;
  }

  /** Snapshots this node took itself. */
  get snapshotsTaken(): number {
    return this.snapshots.taken;
  }

  /** Index of the latest snapshot this node took or installed. */
  get snapshotIndex(): number {
    return this.snapshots.lastIndex;
  }

  /** Counters of the WAL (fsyncs, group-commit batches). */
  walStats(): ReturnType<OpenedDisk["wal"]["stats"]> {
    return this.disk.wal.stats();
  }

  get isStopped(): boolean {
    return this.state !== "running";
  }

  /** Removed from the cluster but still answering votes and appends until it may stop (raft/retirement.ts). */
  get isRetiring(): boolean {
    return this.state === "running" && this.removed();
  }

  /** Whether client and membership requests are accepted: running, and not removed. */
  private serving(): boolean {
    return this.state === "running" && !this.removed();
  }

  /** Applied its own removal, or heard from a member that applied it. */
  private removed(): boolean {
    return this.membership.removedSelf || this.removedBy !== undefined;
  }

  /** Members in id order. */
  members(): Member[] {
    return this.membership.members.list();
  }

  /** Adds a member (a learner when `learner`); resolves with the member list once applied here. */
  addMember(id: number, peerUrls: string[], learner = false, info: { name?: string; clientUrls?: string[] } = {}): Promise<Member[]> {
    return this.kick(this.membership.add(id, peerUrls, learner, info));
  }

  removeMember(id: number): Promise<Member[]> {
    return this.kick(this.membership.remove(id));
  }

  /** Makes a learner a voter. On the leader, refuses a learner that has not caught up (90% of the log). */
  promoteMember(id: number): Promise<Member[]> {
    return this.kick(this.membership.promote(id));
  }

  /** Updates a member's name and URLs (replicated like any membership change). */
  updateMember(id: number, attrs: { name?: string; peerUrls?: string[]; clientUrls?: string[] }): Promise<Member[]> {
    return this.kick(this.membership.update(id, attrs));
  }

  private kick<T>(p: Promise<T>): Promise<T> {
    this.schedule();
    return p;
  }

  /**
   * Writes a snapshot of the applied state now (unless one at this index exists) and
   * releases the log segments and older snapshot files it covers; resolves once done.
   */
  async snapshotNow(): Promise<void> {
    await this.snapshots.idle();
    if (!this.serving()) throw stopped();
    this.snapshots.maybeSnapshot(this.applier.applied, () => this.applier.capture(), true);
    await this.snapshots.idle();
  }

  /** Asks the leader to hand leadership over to `id`. */
  transferLeadership(id: number): void {
    this.guard(() => this.rn.transferLeader(id));
  }

  /** Lease keep-alive (leader only): the TTL, or undefined when the lease is unknown or expired. */
  leaseKeepAlive(id: LeaseId): number | undefined {
    if (!this.leading) throw notLeader(this.rn.raft.lead);
    return this.leases.keepAlive(id);
  }

  /** Remaining seconds of a lease (leader only); -1 when unknown or expired. */
  leaseTimeToLive(id: LeaseId): number {
    if (!this.leading) throw notLeader(this.rn.raft.lead);
    return this.leases.remainingSeconds(id);
  }

  /** Stops timers and the loop, fails waiting requests, closes the transport and the WAL. Idempotent. */
  stop(): Promise<void> {
    if (this.stopping) return this.stopping;
    this.state = "stopping";
    for (const t of this.timerHandles) clearInterval(t);
    clearTimeout(this.commitNotice);
    this.stopping = (async () => {
      await this.loopDone;
      await this.snapshots.idle();
      await this.flushLazyHardState();
      this.state = "stopped";
      const err = stopped();
      for (const q of this.queued) this.proposals.reject(q.seq, err);
      this.queued = [];
      this.proposals.rejectAll(err);
      this.confChanges.rejectAll(err);
      this.reads.rejectAll(err);
      if (this.leading) this.setLeadership(None, false);
      await this.transport.close().catch(() => undefined);
      await this.disk.wal.close().catch(() => undefined);
    })();
    return this.stopping;
  }

  // ---- driving the core -----------------------------------------------------

  private guard(fn: () => void): void {
    if (this.state !== "running") return;
    try {
      fn();
    } catch (e) {
      this.log("warn", "store node: raft step failed", { error: String(e) });
    }
    this.schedule();
  }

  private receive(m: Message): void {
    if (m.to !== this.id) return;
    this.retirement.observe(m);
    this.guard(() => this.rn.step(m));
  }

  private tick(): void {
    if (this.state !== "running") return;
    this.rn.tick();
    this.retirement.tick();
    this.maybeRetire();
    // A commit index that stayed unwritten for a whole tick (no sync came along) is written now.
    if (this.lazyHardState !== undefined && this.lazyHardState === this.lazySeenAtTick) void this.flushLazyHardState();
    this.lazySeenAtTick = this.lazyHardState;
    this.proposals.sweep();
    this.confChanges.sweep();
    this.reads.sweep(this.rn.raft.lead !== None);
    if (this.reads.hasWork) this.scheduleReads();
    this.schedule();
  }

  /**
   * Read barriers are sent from the end of the turn (setImmediate: after the
   * poll phase's I/O callbacks), not from the callback that asked: every read
   * that arrives in one turn of the event loop, on any connection, and every
   * read that waited for the answer of the previous round, share one
   * ReadIndex round (one heartbeat round on the leader). See read-index.ts.
   */
  private scheduleReads(): void {
    if (this.readsScheduled || this.state !== "running") return;
    this.readsScheduled = true;
    setImmediate(() => {
      this.readsScheduled = false;
      this.readsDue = true;
      this.schedule();
    });
  }

  /** Writes a pending commit-only hard state, so the commit index on disk is never far behind. */
  private flushLazyHardState(): Promise<void> {
    const hs = this.lazyHardState;
    if (!hs) return Promise.resolve();
    this.lazyHardState = undefined;
    return this.disk.wal.save(hs, []).catch((e: unknown) => this.fail(e));
  }

  /** Runs the loop on the next microtask unless it is running (it then picks new work up itself). */
  private schedule(): void {
    if (this.state !== "running" || this.looping) return;
    this.looping = true;
    this.loopDone = new Promise<void>((resolve) => {
      queueMicrotask(() => void this.runLoop().finally(resolve));
    });
  }

  private async runLoop(): Promise<void> {
    try {
      while (this.state === "running") {
        this.flushProposals();
        if (this.readsDue) {
          this.readsDue = false;
          this.reads.flush(this.readIndexSender);
        }
        if (!this.rn.hasReady()) {
          this.armCommitNotice();
          return;
        }
        await this.handleReady(this.rn.ready());
        this.maybeRetire();
      }
    } catch (e) {
      this.fail(e);
    } finally {
      this.looping = false;
    }
  }

  /**
   * Leader: once the loop has nothing left to do, a follower that holds committed
   * entries it was not told of gets the commit index within commitNoticeDelayMs,
   * unless an append carries it first (then the notice finds nothing to send).
   */
  private armCommitNotice(): void {
    if (this.commitNotice !== undefined || !this.leading || this.timers.commitNoticeDelayMs <= 0 || !this.rn.hasUnsentCommit()) return;
    this.commitNotice = setTimeout(() => {
      this.commitNotice = undefined;
      this.guard(() => this.rn.sendUnsentCommits());
    }, this.timers.commitNoticeDelayMs);
    this.commitNotice.unref();
  }

  /**
   * A member that applied its own removal keeps running as a voter that does
   * not campaign (it still answers vote requests and appends, and a removed
   * leader hands over) until raft/retirement.ts lets it stop, or for at most
   * removedLingerMaxMs; then it stops. A member that only heard of its
   * removal (heardRemoved) follows the same policy; it still uses its old
   * configuration, so it may campaign, and it never stops while it leads.
   * The logged reason is the policy's, or "removed by peers" for the latter.
   */
  private maybeRetire(): void {
    if (!this.removed() || this.state !== "running") return;
    if (this.removedAtMs === undefined) {
      this.removedAtMs = this.now();
      // The teller's term is at least the one the removal committed in: a
      // commit of a later term means a leader that knows the removal.
      this.retirement.markRemoved(this.rn.raft, this.removedBy?.term ?? 0);
      this.log("info", "store node: this member was removed from the cluster; answering votes until the group no longer needs it", { id: this.id });
    }
    const policy = this.retirement.reason(this.rn.raft) ?? (this.now() - this.removedAtMs >= this.timers.removedLingerMaxMs ? "upper bound" : undefined);
    if (policy === undefined) return;
    const reason = this.membership.removedSelf ? policy : "removed by peers";
    this.log("info", "store node: this member was removed from the cluster; stopping", { id: this.id, reason, policy, ...(this.removedBy ? { by: this.removedBy.peer, removalIndex: this.removedBy.index } : {}) });
    void this.stop().then(() => this.opts.onRemoved?.(reason));
  }

  /**
   * A member that applied the conf change removing this node (at
   * notice.index) refused its message. The removal is committed. Believed
   * only while this node has not applied that far itself: its configuration
   * is then older than the teller's. A node that applied past the index has
   * applied the removal itself, or a later add of its id (the teller lags).
   * A node added again under a removed id (same peer URLs) is not misled
   * while it catches up: before it applies its own addition it is no voter
   * in its own configuration, so it sends only to leaders, which have
   * applied that addition and do not refuse it.
   */
  private heardRemoved(peer: number, notice: RemovalNotice): void {
    if (this.state !== "running" || this.removed() || notice.index <= this.applier.applied) return;
    this.removedBy = { ...notice, peer };
    this.log("warn", "store node: a member says this member was removed from the cluster", { id: this.id, by: peer, removalIndex: notice.index, applied: this.applier.applied });
    this.maybeRetire();
  }

  private flushProposals(): void {
    if (this.queued.length === 0) return;
    const batch = this.queued;
    this.queued = [];
    try {
      if (this.rn.raft.lead === None) throw noLeader();
      this.rn.proposeBatch(batch.map((q) => q.data));
      this.stats.proposalBatches++;
      this.stats.proposed += batch.length;
    } catch (e) {
      const err = dropError(e);
      for (const q of batch) this.proposals.reject(q.seq, err);
    }
  }

  private async handleReady(rd: Ready): Promise<void> {
    this.stats.readies++;
    if (rd.softState) this.setLeadership(rd.softState.lead, rd.softState.raftState === StateType.Leader);
    // Leader: send before persisting, so that the followers' fsyncs overlap its
    // own (etcd's order, Raft thesis §10.2.1). Safe because nothing of this
    // Ready is acknowledged or applied before the save below resolves: the
    // leader counts its own entries toward a quorum as soon as it appends
    // them, but an entry committed that way reaches committedEntries only in a
    // later Ready, and the loop asks for that one only after this Ready's
    // fsync (ready() may not be called before advance()). A Ready that changes
    // term or vote is persisted first even on a leader, and followers always
    // persist before they answer.
    const sendFirst = this.leading && !this.changesTermOrVote(rd);
    if (sendFirst) this.send(rd.messages);
    const persisted = this.persist(rd);
    // Leader: while this Ready's save is in flight, apply (and answer) the
    // committed entries that are durable already, as etcd applies in parallel
    // with its WAL save. Durable: every entry below this Ready's own, since
    // each earlier Ready's save resolved before this Ready was taken. This
    // Ready's own entries may be committed too (a group of one) and wait for
    // the save like everything else, as do conf changes (see applyCommitted).
    // A follower answers its leader first and applies after; a Ready with a
    // snapshot keeps the order of rawnode.ts.
    let next = 0;
    if (sendFirst && !rd.snapshot) {
      this.disk.wal.writeNow();
      next = this.applyCommitted(rd.committedEntries, 0, { below: rd.entries.length > 0 ? rd.entries[0].index : Infinity });
      this.serveReads(rd);
    }
    await persisted;
    if (rd.snapshot) this.installSnapshot(rd.snapshot);
    this.disk.storage.append(rd.entries);
    if (rd.hardState) this.disk.storage.setHardState(rd.hardState);
    if (!sendFirst) this.send(rd.messages);
    this.applyCommitted(rd.committedEntries, next);
    this.serveReads(rd);
    // Reads that waited for this answer go in the next round.
    if (rd.readStates.length > 0 && this.reads.hasQueued) this.scheduleReads();
    this.rn.advance();
    this.snapshots.maybeSnapshot(this.applier.applied, () => this.applier.capture());
  }

  /**
   * Applies committed entries from position `from`; returns the position reached.
   * `early`: only those below index `below`, and only up to the first conf change,
   * which waits for advance() (the core refuses the next conf change until it
   * learns there that the previous one is applied, and its proposer is answered
   * as soon as it is applied).
   */
  private applyCommitted(entries: readonly Entry[], from: number, early?: { below: number }): number {
    let i = from;
    for (; i < entries.length; i++) {
      const e = entries[i];
      if (early && (e.index >= early.below || e.type === EntryType.ConfChange)) break;
      this.applier.apply(e);
    }
    return i;
  }

  /** Takes the Ready's read states (again: a no-op) and answers the reads the applied index allows. */
  private serveReads(rd: Ready): void {
    for (const rs of rd.readStates) this.reads.onReadState(rs);
    this.reads.release(this.applier.applied);
  }

  /**
   * Saves the snapshot, entries and hard state of a Ready with one WAL save
   * (one group-commit fsync). A Ready that only moves the commit index needs no
   * sync: the commit index may be lost (it is learned again from the leader),
   * so it rides along with the next save, or is written after a tick.
   */
  private async persist(rd: Ready): Promise<void> {
    const wal = this.disk.wal;
    if (rd.snapshot) {
      await this.snapshots.idle();
      await this.disk.snapshotter.save(rd.snapshot);
      await Promise.all([wal.saveSnapshotMarker(rd.snapshot.metadata), wal.save(rd.hardState ?? this.lazyHardState, rd.entries)]);
      this.lazyHardState = undefined;
    } else if (rd.mustSync) {
      await wal.save(rd.hardState ?? this.lazyHardState, rd.entries);
      this.lazyHardState = undefined;
    } else if (rd.hardState) {
      this.lazyHardState = rd.hardState;
    }
  }

  /** Whether the Ready's hard state differs in term or vote from the one in storage (the last one persisted). */
  private changesTermOrVote(rd: Ready): boolean {
    if (!rd.hardState) return false;
    const saved = this.disk.storage.initialState().hardState;
    return rd.hardState.term !== saved.term || rd.hardState.vote !== saved.vote;
  }

  private send(messages: Message[]): void {
    if (messages.length > 0) this.transport.send(messages.map((m) => (m.type === MessageType.Snap ? this.freshSnapshot(m) : m)));
  }

  /**
   * The core sends the storage's latest snapshot, which may predate a member
   * that joined since (the receiver would ignore a snapshot whose config does
   * not name it). As etcd does, send the state at the applied index instead:
   * it is committed, and its config and members are current.
   */
  private freshSnapshot(m: Message): Message {
    const applied = this.applier.applied;
    const term = this.rn.raft.log.term(applied);
    if (!m.snapshot || term === undefined || applied <= m.snapshot.metadata.index) return m;
    return { ...m, snapshot: { data: this.applier.snapshotData(), metadata: { index: applied, term, confState: this.applier.confState } } };
  }

  private setLeadership(lead: number, leading: boolean): void {
    const changed = lead !== this.lead || leading !== this.leading;
    const leadingChanged = leading !== this.leading;
    this.lead = lead;
    this.leading = leading;
    if (leadingChanged) {
      // A follower waits for its fsync before it answers, so the fsync may block
      // its thread; a leader's runs in the thread pool while it sends the same
      // entries to the followers and takes their answers (see handleReady).
      this.disk.wal.syncInline = !leading;
      this.leases.setLeading(leading);
      this.opts.publisher?.setLeader(leading);
    }
    if (changed) {
      this.log("info", "store node: leader changed", { id: this.id, leader: lead, term: this.rn.raft.term });
      try {
        this.opts.onLeaderChange?.(leading, lead);
      } catch (e) {
        this.log("warn", "store node: onLeaderChange threw", { error: String(e) });
      }
    }
  }

  private installSnapshot(snap: Snapshot): void {
    this.disk.storage.applySnapshot(snap);
    this.applier.install(snap);
    this.snapshots.installed(snap.metadata.index);
    this.stats.snapshotsInstalled++;
    this.log("info", "store node: installed snapshot", { id: this.id, index: snap.metadata.index, term: snap.metadata.term });
  }

  private fail(e: unknown): void {
    if (this.state !== "running") return;
    this.log("error", "store node: fatal error, stopping", { id: this.id, error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
    void this.stop();
  }
}
