// The simulated world: the nodes, the network between them, and the
// primitive actions a schedule is made of (deliver a message, handle a
// Ready, tick, crash, restart, propose, snapshot), each followed by the
// safety checks of checks.ts when the run loop calls checkInvariants.
//
// Membership model (as in etcd): spare nodes run from the start, bootstrapped
// with the initial configuration, and take part once a conf change adds them.
// A node that applies its own removal shuts down for good once the policy of
// retirement.ts lets it (the node shell's policy), and a node drops messages
// from ids it has seen removed. Removed ids are never added again.
//
// Persistence model: a node's Ready is handled as one action: persist
// (snapshot, entries, HardState; see node.ts), then send, then apply,
// then advance. A crash discards the RawNode and everything not yet
// persisted; a restart builds a new RawNode over the same storage and
// restores the state machine from its snapshot.
//
// Contract: every random choice is drawn from `rng` in a fixed order, so a
// seed fixes the run; a violation throws SimulationError through fail().

import type { ConfState, Entry } from "../types.ts";
import { EntryType, MessageType, StateType, messageTypeName } from "../types.ts";
import { ConfLedger, confKey, describeConfChange, members } from "./membership.ts";
import { SafetyChecker } from "./checks.ts";
import { decodeConfChange } from "../confchange.ts";
import { MemoryStorage } from "../storage.ts";
import { RawNode } from "../rawnode.ts";
import type { Config } from "../raft.ts";
import { SeededRandom } from "../rand.ts";
import { ProposalDroppedError } from "../errors.ts";
import { contextKey } from "../read-only.ts";
import { Digest, digestReady } from "../digest.ts";
import { Retirement } from "../retirement.ts";
import { SimulationError } from "./outcome.ts";
import { SimNetwork } from "./network.ts";
import type { SimNode } from "./node.ts";
import { decodeSm, encodeSm, freshSnapshot, mix, newSimNode, persistReady } from "./node.ts";
import type { WorldOptions } from "./schedule.ts";
import { drawOptions } from "./schedule.ts";

/** Nodes that are not members at first and may be added, with membership changes. */
const spareNodes = 2;

export class Simulation {
  readonly rng: SeededRandom;
  readonly n: number;
  readonly nodes: SimNode[] = [];
  readonly network: SimNetwork;
  readonly options: WorldOptions;
  readonly trace: string[] = [];
  readonly tracing: boolean;
  private proposalCounter = 0;
  readonly checker: SafetyChecker;
  readonly ledger: ConfLedger;
  /** Keys of the calm phase's proposals; a node that applies one has seen the group live. */
  readonly liveKeys = new Set<string>();
  /** Why the calm phase did not have to reach its goal (see run.ts). */
  livenessWaived: string | undefined;
  /** The number of the current action (for traces and failures). */
  action = 0;
  readonly stats = { crashes: 0, snapshotsInstalled: 0, delivered: 0, leadersRemoved: 0, retired: { established: 0, unneeded: 0 } };
  /** Running digest of the core's outputs, when requested. */
  readonly digest: Digest | undefined;

  constructor(
    readonly seed: number,
    tracing: boolean,
    readonly unsafe = false,
    digest = false,
    readonly membership = true,
  ) {
    this.digest = digest ? new Digest() : undefined;
    this.checker = new SafetyChecker(
      (detail) => this.fail(detail),
      (line) => this.log(line),
    );
    this.rng = new SeededRandom(seed);
    this.tracing = tracing;
    this.n = seed % 2 === 0 ? 3 : 5;
    this.options = drawOptions(this.rng);
    this.network = new SimNetwork(this.rng, this.options);
    const voters = Array.from({ length: this.n }, (_, i) => i + 1);
    const cs: ConfState = { voters, learners: [], votersOutgoing: [], learnersNext: [], autoLeave: false };
    this.ledger = new ConfLedger(cs);
    const total = this.n + (membership ? spareNodes : 0);
    for (let id = 1; id <= total; id++) {
      const node = newSimNode(id, new MemoryStorage(cs), cs, this.options.electionTick);
      this.nodes.push(node);
      this.start(node);
    }
    this.log(`seed=${seed} n=${this.n} nodes=${total} ${JSON.stringify(this.options)}`);
  }

  /** True in the calm phase: the network is reliable and no faults are injected. */
  get calm(): boolean {
    return this.network.reliable;
  }

  log(s: string): void {
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
      // From the seed, not drawn: the other options and schedules of a seed stay as they were.
      lazyCommitBroadcast: this.seed % 2 === 1,
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

  alive(): SimNode[] {
    return this.nodes.filter((n) => n.rn !== undefined);
  }

  // ---- actions ------------------------------------------------------------

  deliverOne(): void {
    const m = this.network.take();
    if (m === undefined) return;
    const to = this.nodes[m.to - 1];
    const from = this.nodes[m.from - 1];
    const dropped = !to.rn || to.removedSeen.has(m.from) || !this.network.connected(m.from, m.to) || this.network.loses();
    if (dropped) {
      this.log(`drop ${messageTypeName(m.type)} ${m.from}->${m.to}`);
      if (from.rn) {
        if (m.type === MessageType.Snap) from.rn.reportSnapshot(m.to, 1);
        else if (m.type === MessageType.App && this.rng.chance(0.2)) from.rn.reportUnreachable(m.to);
      }
      return;
    }
    this.network.maybeDuplicate(m);
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
    if (crashAfterPersist && this.unsafe) {
      this.log(`crash ${node.id} after sending, before persisting (unsafe)`);
      for (const m of rd.messages) this.network.send(m);
      this.crash(node);
      return;
    }
    persistReady(node, rn, rd, this.checker, (detail) => this.fail(detail));
    if (crashAfterPersist) {
      this.log(`crash ${node.id} after persisting (messages lost)`);
      this.crash(node);
      return;
    }
    // Send.
    for (const m of rd.messages) this.network.send(m.type === MessageType.Snap && this.membership ? freshSnapshot(node, rn, m) : m);
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
  tickNode(node: SimNode): void {
    const rn = node.rn as RawNode;
    rn.tick();
    // The node shell's commit notice (node/raft-node.ts), at a random point between ticks.
    if (rn.hasUnsentCommit() && this.rng.chance(0.5)) rn.sendUnsentCommits();
    node.retirement.tick();
    const reason = node.retirement.reason(rn.raft);
    if (reason === undefined) return;
    this.log(`node ${node.id} applied its removal and shuts down (${reason})`);
    this.stats.retired[reason]++;
    node.rn = undefined;
    node.retired = true;
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

  /** Runs the safety checks on every live node (after every action). */
  checkInvariants(): void {
    for (const node of this.nodes) {
      if (node.rn) node.commitSeen = this.checker.checkNode(node.id, node.rn.raft, node.commitSeen);
    }
  }
}
