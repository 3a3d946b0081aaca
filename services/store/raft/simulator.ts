// A deterministic randomized simulator of a Raft group, for safety and
// liveness testing. One seed fixes everything: the group size and options,
// the network's behaviour (drops, duplicates, reordering, partitions), node
// crashes and restarts, proposals, snapshots, reads, leadership transfers and
// membership changes (see sim-membership.ts).
//
// Membership model (as in etcd): spare nodes run from the start, bootstrapped
// with the initial configuration, and take part once a conf change adds them.
// A node that applies its own removal shuts down for good once the policy of
// retirement.ts lets it (the node shell's policy), and a node drops messages
// from ids it has seen removed. Removed ids are never added again.
//
// Persistence model: each node's MemoryStorage is its disk. A node's Ready is
// handled as a separate scheduled action: persist (snapshot, entries,
// HardState), then send, then apply, then advance. A crash discards the
// RawNode and everything not yet persisted; a restart builds a new RawNode
// over the same storage and restores the state machine from its snapshot.
//
// Invariants are checked after every action (see sim-checks.ts, and the
// conf change ledger of sim-membership.ts); a failure throws SimulationError
// whose message names the seed. replaySeed(seed) reruns one schedule with a
// trace of its actions.

import type { ConfState, Entry, Message } from "./types.ts";
import { EntryType, MessageType, StateType, messageTypeName } from "./types.ts";
import type { MembershipStats } from "./sim-membership.ts";
import { ConfLedger, confKey, describeConfChange, members, planConfChange } from "./sim-membership.ts";
import { SafetyChecker } from "./sim-checks.ts";
import { decodeConfChange } from "./confchange.ts";
import { MemoryStorage } from "./storage.ts";
import { RawNode } from "./rawnode.ts";
import type { Config } from "./raft.ts";
import { SeededRandom } from "./rand.ts";
import { ProposalDroppedError } from "./errors.ts";
import { contextKey } from "./read-only.ts";
import { Digest, digestReady } from "./digest.ts";
import { Retirement } from "./retirement.ts";

export interface SimOptions {
  /** Actions in the fault phase (default 2500). */
  steps?: number;
  /** Record a human-readable trace of the schedule. */
  trace?: boolean;
  /**
   * Negative control: model a broken application that sends a Ready's
   * messages before persisting it (and sometimes crashes in between). The
   * invariant checks must catch this.
   */
  unsafeSendBeforePersist?: boolean;
  /** Fold every Ready and proposal outcome into SimResult.digest (for refactor checks). */
  digest?: boolean;
  /**
   * Change membership during the schedule (default true). With false, the
   * group is fixed and the schedule is the one of the simulator before
   * membership changes were added (same seeds, same digests).
   */
  membership?: boolean;
}

export interface SimResult {
  seed: number;
  nodes: number;
  steps: number;
  /** Actions in the calm phase until the liveness goal was reached. */
  calmSteps: number;
  maxTerm: number;
  leadersElected: number;
  committed: number;
  crashes: number;
  snapshotsInstalled: number;
  messagesDelivered: number;
  membership: MembershipStats & { leadersRemoved: number };
  /** Removed nodes that shut down, by the reason retirement.ts gave. */
  retired: { established: number; unneeded: number };
  /**
   * Set when the calm phase did not reach its goal because a live voter's
   * configuration lacks a quorum of live voters (the case retirement.ts
   * documents as not guaranteed); the schedule still passed every safety check.
   */
  livenessWaived: string | undefined;
  trace: string[];
  /** Digest of every Ready handed out (empty unless SimOptions.digest). */
  digest: string;
}

export class SimulationError extends Error {
  constructor(
    readonly seed: number,
    readonly detail: string,
    readonly trace: string[],
  ) {
    super(`raft simulation seed ${seed} failed: ${detail} (replay with replaySeed(${seed}))`);
    this.name = "SimulationError";
  }
}

interface SmState {
  applied: number;
  hash: number;
}

interface SimNode {
  id: number;
  storage: MemoryStorage;
  /** The running node; undefined while crashed, and for good once retired. */
  rn: RawNode | undefined;
  sm: SmState;
  /** The configuration after the last conf change (or snapshot) applied. */
  confState: ConfState;
  /** Log index of the last conf change or snapshot applied in this incarnation. */
  confCursor: number;
  /** Ids this node saw removed; their messages are dropped (kept across restarts, like etcd's membership store). */
  removedSeen: Set<number>;
  /** Applied its own removal and shut down; never restarted. */
  retired: boolean;
  /** When this node, once it applied its own removal, may shut down (a new one per incarnation). */
  retirement: Retirement;
  /** Highest commit index observed in this incarnation. */
  commitSeen: number;
  /** Term and vote last persisted. */
  persisted: { term: number; vote: number; commit: number };
  sawLive: boolean;
}


function mix(h: number, e: Entry): number {
  let x = (h ^ e.index) >>> 0;
  x = Math.imul(x ^ e.term, 0x01000193) >>> 0;
  for (let i = 0; i < e.data.byteLength; i++) x = Math.imul(x ^ e.data[i], 0x01000193) >>> 0;
  return x;
}

function encodeSm(sm: SmState): Uint8Array {
  const b = new Uint8Array(12);
  const dv = new DataView(b.buffer);
  dv.setFloat64(0, sm.applied);
  dv.setUint32(8, sm.hash);
  return b;
}

function decodeSm(b: Uint8Array): SmState {
  if (b.byteLength === 0) return { applied: 0, hash: 0 };
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  return { applied: dv.getFloat64(0), hash: dv.getUint32(8) };
}

/** Actions of the fault phase of one schedule, by default. */
export const defaultSteps = 2500;

/** Nodes that are not members at first and may be added, with membership changes. */
const spareNodes = 2;

class Simulation {
  readonly rng: SeededRandom;
  readonly n: number;
  readonly nodes: SimNode[] = [];
  readonly net: Message[] = [];
  readonly options: {
    electionTick: number;
    preVote: boolean;
    checkQuorum: boolean;
    heartbeatTick: number;
    maxInflight: number;
    maxSizePerMsg: number;
    dropRate: number;
    dupRate: number;
    reorderRate: number;
    faultRate: number;
  };
  readonly trace: string[] = [];
  readonly tracing: boolean;
  private partition: Set<number> | undefined;
  private proposalCounter = 0;
  private readonly checker: SafetyChecker;
  private readonly ledger: ConfLedger;
  private readonly liveKeys = new Set<string>();
  private calm = false;
  /** Why the calm phase did not have to reach its goal (see quorumLackingConfig). */
  livenessWaived: string | undefined;
  private action = 0;
  readonly stats = { crashes: 0, snapshotsInstalled: 0, delivered: 0, leadersRemoved: 0, retired: { established: 0, unneeded: 0 } };
  /** Running digest of the core's outputs, when requested. */
  readonly digest: Digest | undefined;

  constructor(
    readonly seed: number,
    tracing: boolean,
    private readonly unsafe = false,
    digest = false,
    private readonly membership = true,
  ) {
    this.digest = digest ? new Digest() : undefined;
    this.checker = new SafetyChecker(
      (detail) => this.fail(detail),
      (line) => this.log(line),
    );
    this.rng = new SeededRandom(seed);
    this.tracing = tracing;
    this.n = seed % 2 === 0 ? 3 : 5;
    const r = this.rng;
    this.options = {
      electionTick: r.pick([5, 8]),
      preVote: r.chance(0.6),
      checkQuorum: r.chance(0.6),
      heartbeatTick: 1 + r.intn(2),
      maxInflight: 1 + r.intn(8),
      maxSizePerMsg: r.pick([0, 40, 1024 * 1024]),
      dropRate: r.pick([0, 0.02, 0.1, 0.25]),
      dupRate: r.pick([0, 0.02, 0.1]),
      reorderRate: r.pick([0, 0.2, 0.5]),
      faultRate: r.pick([0.01, 0.03, 0.06]),
    };
    const voters = Array.from({ length: this.n }, (_, i) => i + 1);
    const cs: ConfState = { voters, learners: [], votersOutgoing: [], learnersNext: [], autoLeave: false };
    this.ledger = new ConfLedger(cs);
    const total = this.n + (membership ? spareNodes : 0);
    for (let id = 1; id <= total; id++) {
      const storage = new MemoryStorage(cs);
      const node: SimNode = {
        id,
        storage,
        rn: undefined,
        sm: { applied: 0, hash: 0 },
        confState: cs,
        confCursor: 0,
        removedSeen: new Set(),
        retired: false,
        retirement: new Retirement(this.options.electionTick),
        commitSeen: 0,
        persisted: { term: 0, vote: 0, commit: 0 },
        sawLive: false,
      };
      this.nodes.push(node);
      this.start(node);
    }
    this.log(`seed=${seed} n=${this.n} nodes=${total} ${JSON.stringify(this.options)}`);
  }

  private log(s: string): void {
    if (this.tracing) this.trace.push(`${this.action}: ${s}`);
  }

  fail(detail: string): never {
    throw new SimulationError(this.seed, `${detail} [action ${this.action}${this.calm ? ", calm phase" : ""}]`, this.trace);
  }

  private config(node: SimNode): Config {
    return {
      id: node.id,
      storage: node.storage,
      electionTick: this.options.electionTick,
      heartbeatTick: this.options.heartbeatTick,
      preVote: this.options.preVote,
      checkQuorum: this.options.checkQuorum,
      maxInflightMsgs: this.options.maxInflight,
      maxSizePerMsg: this.options.maxSizePerMsg,
      random: new SeededRandom(this.seed * 31 + node.id * 1009 + this.stats.crashes),
    };
  }

  private start(node: SimNode): void {
    const snap = node.storage.snapshot();
    // Entries up to the snapshot are in the state machine already.
    node.rn = new RawNode({ ...this.config(node), applied: snap.metadata.index });
    node.retirement = new Retirement(this.options.electionTick);
    node.sm = decodeSm(snap.data);
    node.commitSeen = node.rn.raft.log.committed;
    if (node.sm.applied !== snap.metadata.index) this.fail(`node ${node.id}: snapshot state machine at ${node.sm.applied}, snapshot index ${snap.metadata.index}`);
    this.restoreMembership(node, snap.metadata.index, snap.metadata.confState);
  }

  /** Membership from a snapshot (own, at restart, or installed): it must be the configuration at its index. */
  private restoreMembership(node: SimNode, index: number, cs: ConfState): void {
    const expected = this.ledger.configAt(index);
    if (confKey(cs) !== confKey(expected)) this.fail(`node ${node.id}: snapshot at ${index} holds config ${confKey(cs)}, committed config there is ${confKey(expected)}`);
    node.confState = cs;
    node.confCursor = index;
    for (const id of this.ledger.removedUpTo(index)) node.removedSeen.add(id);
  }

  private alive(): SimNode[] {
    return this.nodes.filter((n) => n.rn !== undefined);
  }

  private connected(a: number, b: number): boolean {
    if (!this.partition) return true;
    return this.partition.has(a) === this.partition.has(b);
  }

  // ---- actions ------------------------------------------------------------

  deliverOne(): void {
    if (this.net.length === 0) return;
    const idx = this.calm || !this.rng.chance(this.options.reorderRate) ? 0 : this.rng.intn(this.net.length);
    const m = this.net.splice(idx, 1)[0];
    const to = this.nodes[m.to - 1];
    const from = this.nodes[m.from - 1];
    const dropped = !to.rn || to.removedSeen.has(m.from) || !this.connected(m.from, m.to) || (!this.calm && this.rng.chance(this.options.dropRate));
    if (dropped) {
      this.log(`drop ${messageTypeName(m.type)} ${m.from}->${m.to}`);
      if (from.rn) {
        if (m.type === MessageType.Snap) from.rn.reportSnapshot(m.to, 1);
        else if (m.type === MessageType.App && this.rng.chance(0.2)) from.rn.reportUnreachable(m.to);
      }
      return;
    }
    if (!this.calm && this.rng.chance(this.options.dupRate)) {
      this.net.splice(this.rng.intn(this.net.length + 1), 0, m);
    }
    this.log(`deliver ${messageTypeName(m.type)} ${m.from}->${m.to} t=${m.term} i=${m.index} lt=${m.logTerm} c=${m.commit} n=${m.entries.length}${m.reject ? " reject" : ""}`);
    this.stats.delivered++;
    to.retirement.observe(m);
    (to.rn as RawNode).step(m);
    if (m.type === MessageType.Snap && from.rn) from.rn.reportSnapshot(m.to, 0);
  }

  /** Handles one Ready of a node; with crashAfterPersist the node dies before sending. */
  handleReady(node: SimNode, crashAfterPersist = false): void {
    const rn = node.rn;
    if (!rn || !rn.hasReady()) return;
    const rd = rn.ready();
    if (this.digest) digestReady(this.digest, node.id, rd);
    const raftLog = rn.raft.log;
    if (crashAfterPersist && this.unsafe) {
      this.log(`crash ${node.id} after sending, before persisting (unsafe)`);
      for (const m of rd.messages) this.net.push(m);
      this.crash(node);
      return;
    }
    // Persist.
    if (rd.snapshot) {
      node.storage.applySnapshot(rd.snapshot);
    }
    if (rd.entries.length > 0) {
      let prevTerm = raftLog.term(rd.entries[0].index - 1);
      for (const e of rd.entries) {
        this.checker.checkEntryIdentity(node.id, e, prevTerm);
        prevTerm = e.term;
      }
      node.storage.append(rd.entries);
    }
    if (rd.hardState) {
      const hs = rd.hardState;
      const p = node.persisted;
      if (hs.term < p.term) this.fail(`node ${node.id}: persisted term went back ${p.term} -> ${hs.term}`);
      if (hs.term === p.term && p.vote !== 0 && hs.vote !== p.vote) this.fail(`node ${node.id}: voted twice in term ${hs.term} (${p.vote}, then ${hs.vote})`);
      if (hs.commit < p.commit) this.fail(`node ${node.id}: persisted commit went back ${p.commit} -> ${hs.commit}`);
      node.storage.setHardState(hs);
      node.persisted = { term: hs.term, vote: hs.vote, commit: hs.commit };
    }
    if (crashAfterPersist) {
      this.log(`crash ${node.id} after persisting (messages lost)`);
      this.crash(node);
      return;
    }
    // Send.
    for (const m of rd.messages) this.net.push(m.type === MessageType.Snap && this.membership ? this.freshSnapshot(node, rn, m) : m);
    // Apply.
    if (rd.snapshot) {
      const sm = decodeSm(rd.snapshot.data);
      if (sm.applied !== rd.snapshot.metadata.index) this.fail(`snapshot at ${rd.snapshot.metadata.index} holds state at ${sm.applied}`);
      this.checker.recordAppliedHash(node.id, sm.applied, sm.hash);
      node.sm = sm;
      this.restoreMembership(node, rd.snapshot.metadata.index, rd.snapshot.metadata.confState);
      this.stats.snapshotsInstalled++;
      this.log(`node ${node.id} installed snapshot ${sm.applied}`);
    }
    let removedItself = false;
    for (const e of rd.committedEntries) removedItself = this.apply(node, rn, e) || removedItself;
    rn.advance();
    if (removedItself) node.retirement.markRemoved(rn.raft);
  }

  /** Ticks a node; a removed node shuts down for good once retirement.ts lets it. */
  private tickNode(node: SimNode): void {
    const rn = node.rn as RawNode;
    rn.tick();
    node.retirement.tick();
    const reason = node.retirement.reason(rn.raft);
    if (reason === undefined) return;
    this.log(`node ${node.id} applied its removal and shuts down (${reason})`);
    this.stats.retired[reason]++;
    node.rn = undefined;
    node.retired = true;
  }

  /**
   * The core sends the storage's latest snapshot, which may predate a member
   * that joined since (the receiver ignores a snapshot whose config does not
   * name it). Like etcd and the store's node shell, the application sends
   * its state at the applied index instead: committed, with the current config.
   */
  private freshSnapshot(node: SimNode, rn: RawNode, m: Message): Message {
    const applied = node.sm.applied;
    const term = rn.raft.log.term(applied);
    if (!m.snapshot || term === undefined || applied <= m.snapshot.metadata.index) return m;
    return { ...m, snapshot: { data: encodeSm(node.sm), metadata: { index: applied, term, confState: node.confState } } };
  }

  /** Applies one committed entry; returns whether it was a conf change that removed this node. */
  private apply(node: SimNode, rn: RawNode, e: Entry): boolean {
    if (e.index !== node.sm.applied + 1) this.fail(`node ${node.id}: applied ${e.index} after ${node.sm.applied}`);
    this.checker.checkApplied(node.id, e);
    const removedItself = e.type === EntryType.ConfChange && this.applyConfChange(node, rn, e);
    node.sm = { applied: e.index, hash: mix(node.sm.hash, e) };
    this.checker.recordAppliedHash(node.id, e.index, node.sm.hash);
    if (this.liveKeys.has(contextKey(e.data))) node.sawLive = true;
    return removedItself;
  }

  /**
   * Applies a committed conf change, checking it against every other node's
   * application of it. Returns whether it removed this node.
   */
  private applyConfChange(node: SimNode, rn: RawNode, e: Entry): boolean {
    if (!this.membership) this.fail("unexpected conf change entry");
    const cc = decodeConfChange(e.data);
    const wasLeader = rn.raft.state === StateType.Leader;
    const before = members(node.confState);
    const cs = rn.applyConfChange(cc);
    const change = describeConfChange(cc);
    const violation = this.ledger.recordApply(node.confCursor, e.index, change, cs);
    if (violation !== undefined) this.fail(`conf change order: node ${node.id} ${violation}`);
    const after = members(cs);
    for (const id of before) if (!after.has(id)) node.removedSeen.add(id);
    if (wasLeader && before.has(node.id) && !after.has(node.id)) this.stats.leadersRemoved++;
    node.confState = cs;
    node.confCursor = e.index;
    this.log(`node ${node.id} applied conf change ${e.index} ${change} -> ${confKey(cs)}`);
    return before.has(node.id) && !after.has(node.id);
  }

  crash(node: SimNode): void {
    node.rn = undefined;
    this.stats.crashes++;
  }

  restart(node: SimNode): void {
    this.log(`restart ${node.id}`);
    this.start(node);
  }

  propose(node: SimNode): void {
    const key = `p${this.seed}-${++this.proposalCounter}`;
    try {
      (node.rn as RawNode).propose(new TextEncoder().encode(key));
      this.log(`propose ${key} at ${node.id}`);
      this.digest?.string("accepted");
    } catch (e) {
      if (!(e instanceof ProposalDroppedError)) throw e;
      this.digest?.string(e.reason);
      this.log(`propose ${key} at ${node.id} dropped: ${e.reason}`);
    }
  }

  snapshot(node: SimNode): void {
    const st = node.storage;
    const snapIndex = st.snapshot().metadata.index;
    if (node.sm.applied <= snapIndex || node.sm.applied > st.lastIndex()) return;
    st.createSnapshot(node.sm.applied, node.confState, encodeSm(node.sm));
    const compactTo = node.sm.applied - this.rng.intn(4);
    if (compactTo > st.firstIndex() - 1) st.compact(compactTo);
    this.log(`node ${node.id} snapshot at ${node.sm.applied}, compact to ${compactTo}`);
  }

  chaosStep(): void {
    const r = this.rng;
    const alive = this.alive();
    const x = r.float();
    if (x < this.options.faultRate) {
      this.fault();
    } else if (x < 0.55) {
      for (let k = 1 + r.intn(3); k > 0; k--) this.deliverOne();
    } else if (x < 0.85) {
      if (alive.length > 0) this.handleReady(r.pick(alive), r.chance(this.unsafe ? 0.05 : 0.01));
    } else if (x < 0.93) {
      if (alive.length > 0) {
        // Mostly a global clock tick; sometimes one node's clock runs ahead.
        const ticked = r.chance(0.8) ? alive : [r.pick(alive)];
        this.log(`tick ${ticked.map((n) => n.id).join(",")}`);
        for (const n of ticked) this.tickNode(n);
      }
    } else if (this.membership && r.chance(0.15)) {
      this.changeMembership();
    } else {
      if (alive.length > 0) this.propose(r.pick(alive));
    }
  }

  /** The administrator: proposes a conf change at the leader of the highest term, if there is one. */
  private changeMembership(): void {
    let leader: SimNode | undefined;
    for (const n of this.nodes) {
      const raft = n.rn?.raft;
      if (raft?.state !== StateType.Leader) continue;
      if (!leader || raft.term > (leader.rn as RawNode).raft.term) leader = n;
    }
    if (!leader) return;
    const raft = (leader.rn as RawNode).raft;
    const unused = this.nodes.filter((n) => !this.ledger.removedAt.has(n.id) && !members(this.ledger.latest()).has(n.id) && !raft.trk.progress.has(n.id)).map((n) => n.id);
    const cc = planConfChange(this.rng, raft.trk, raft.log.lastIndex(), leader.id, unused);
    if (!cc) return;
    try {
      (leader.rn as RawNode).proposeConfChange(cc);
      this.log(`propose conf change ${describeConfChange(cc)} at ${leader.id}`);
      this.digest?.string("accepted");
    } catch (e) {
      if (!(e instanceof ProposalDroppedError)) throw e;
      this.log(`propose conf change ${describeConfChange(cc)} at ${leader.id} dropped: ${e.reason}`);
      this.digest?.string(e.reason);
    }
  }

  private fault(): void {
    const r = this.rng;
    const alive = this.alive();
    const dead = this.nodes.filter((n) => !n.rn && !n.retired);
    switch (r.intn(8)) {
      case 0:
        if (alive.length > 0) {
          const n = r.pick(alive);
          this.log(`crash ${n.id}`);
          this.crash(n);
        }
        return;
      case 1:
        if (dead.length > 0) this.restart(r.pick(dead));
        return;
      case 2: {
        const side = new Set<number>();
        for (const n of this.nodes) if (r.chance(0.5)) side.add(n.id);
        this.partition = side;
        this.log(`partition {${[...side].join(",")}}`);
        return;
      }
      case 3:
        this.partition = undefined;
        this.log("heal");
        return;
      case 4:
        if (alive.length > 0) this.snapshot(r.pick(alive));
        return;
      case 5:
        if (alive.length > 0) {
          const n = r.pick(alive);
          const to = 1 + r.intn(this.nodes.length);
          this.log(`transfer leader at ${n.id} to ${to}`);
          (n.rn as RawNode).transferLeader(to);
        }
        return;
      case 6:
        if (alive.length > 0) {
          const n = r.pick(alive);
          try {
            (n.rn as RawNode).readIndex(new TextEncoder().encode(`r${this.action}`));
          } catch (e) {
            if (!(e instanceof ProposalDroppedError)) throw e;
          }
        }
        return;
      default:
        if (alive.length > 0) {
          const n = r.pick(alive);
          this.log(`campaign ${n.id}`);
          (n.rn as RawNode).campaign();
        }
    }
  }

  // ---- invariants ---------------------------------------------------------

  checkInvariants(): void {
    for (const node of this.nodes) {
      if (node.rn) node.commitSeen = this.checker.checkNode(node.id, node.rn.raft, node.commitSeen);
    }
  }

  // ---- phases -------------------------------------------------------------

  runChaos(steps: number): void {
    for (this.action = 0; this.action < steps; this.action++) {
      this.chaosStep();
      this.checkInvariants();
    }
  }

  /** Heals everything, then requires a leader and a committed proposal applied everywhere. */
  runCalm(): number {
    this.calm = true;
    this.partition = undefined;
    for (const n of this.nodes) if (!n.rn && !n.retired) this.restart(n);
    this.log("calm phase");
    const maxRounds = 40 * this.options.electionTick;
    let lastProposal = -Infinity;
    for (let round = 0; round < maxRounds; round++) {
      for (const n of this.nodes) if (n.rn) this.tickNode(n);
      this.settle();
      // The goal concerns the members of the last committed configuration.
      const current = members(this.ledger.latest());
      const group = this.nodes.filter((n) => current.has(n.id));
      const leader = group.find((n) => n.rn?.raft.state === StateType.Leader && group.every((o) => (o.rn as RawNode).raft.term <= (n.rn as RawNode).raft.term));
      if (group.every((n) => n.sawLive)) return round;
      if (leader && round - lastProposal >= 3 * this.options.electionTick) {
        const key = `live${this.seed}-${round}`;
        this.liveKeys.add(key);
        try {
          (leader.rn as RawNode).propose(new TextEncoder().encode(key));
          this.log(`live proposal ${key} at ${leader.id}`);
          lastProposal = round;
        } catch (e) {
          if (!(e instanceof ProposalDroppedError)) throw e;
        }
        this.settle();
      }
    }
    const lacking = this.quorumLackingConfig();
    if (lacking !== undefined) {
      // Not a liveness violation: the documented case (retirement.ts) where
      // no live member may win an election. Safety was checked throughout.
      this.log(`liveness not required: ${lacking}`);
      this.livenessWaived = lacking;
      return maxRounds;
    }
    const states = this.nodes.map((n) =>
      n.rn ? `${n.id}:${n.rn.status().state}@${n.rn.raft.term} commit=${n.rn.raft.log.committed} applied=${n.sm.applied} live=${n.sawLive} config=${confKey(n.confState)}` : `${n.id}:retired`,
    );
    this.fail(`liveness: no committed proposal on every node after ${maxRounds} calm rounds [${states.join(" ")}]`);
  }

  /**
   * The fair premise of the liveness goal: every live node that is a voter
   * of its own current configuration (so may campaign) must find, in each
   * half of that configuration, a majority of voters that did not shut down
   * after their removal. Returns a description of the first config that
   * lacks one, or undefined when the goal is fair.
   */
  private quorumLackingConfig(): string | undefined {
    const live = (id: number): boolean => this.nodes[id - 1]?.rn !== undefined;
    for (const n of this.nodes) {
      if (!n.rn) continue;
      const cs = n.confState;
      if (!cs.voters.includes(n.id) && !cs.votersOutgoing.includes(n.id)) continue;
      for (const half of [cs.voters, cs.votersOutgoing]) {
        if (half.length === 0) continue;
        const alive = half.filter(live).length;
        if (2 * alive <= half.length) return `node ${n.id} uses ${confKey(cs)}; live voters of {${half.join(",")}}: ${alive}`;
      }
    }
    return undefined;
  }

  /** Delivers messages and handles Readies until nothing is left to do. */
  private settle(): void {
    for (let guard = 0; guard < 100_000; guard++) {
      this.action++;
      let busy = false;
      for (const n of this.nodes) {
        if (n.rn?.hasReady()) {
          this.handleReady(n);
          busy = true;
        }
      }
      if (this.net.length > 0) {
        this.deliverOne();
        busy = true;
      }
      this.checkInvariants();
      if (!busy) return;
    }
    this.fail("calm phase did not settle");
  }

  result(steps: number, calmSteps: number): SimResult {
    let maxTerm = 0;
    let committed = 0;
    for (const n of this.nodes) {
      maxTerm = Math.max(maxTerm, n.persisted.term);
      committed = Math.max(committed, n.commitSeen);
    }
    return {
      seed: this.seed,
      nodes: this.n,
      steps,
      calmSteps,
      maxTerm,
      leadersElected: this.checker.leadersElected,
      committed,
      crashes: this.stats.crashes,
      snapshotsInstalled: this.stats.snapshotsInstalled,
      messagesDelivered: this.stats.delivered,
      membership: { ...this.ledger.stats, leadersRemoved: this.stats.leadersRemoved },
      retired: { ...this.stats.retired },
      livenessWaived: this.livenessWaived,
      trace: this.trace,
      digest: this.digest?.hex() ?? "",
    };
  }
}

/** Runs one schedule; throws SimulationError naming the seed on any violation. */
export function runSchedule(seed: number, opts: SimOptions = {}): SimResult {
  const steps = opts.steps ?? defaultSteps;
  const sim = new Simulation(seed, opts.trace ?? false, opts.unsafeSendBeforePersist ?? false, opts.digest ?? false, opts.membership ?? true);
  try {
    sim.runChaos(steps);
    const calmSteps = sim.runCalm();
    return sim.result(steps, calmSteps);
  } catch (e) {
    if (e instanceof SimulationError) throw e;
    // An exception from the core (e.g. an internal invariant) is a failure of this seed too.
    throw new SimulationError(seed, `exception: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`, sim.trace);
  }
}

/** Reruns the schedule of one seed with a trace (for debugging a failure). */
export function replaySeed(seed: number, opts: Omit<SimOptions, "trace"> = {}): SimResult {
  return runSchedule(seed, { ...opts, trace: true });
}
