// A small synchronous in-memory cluster for unit tests: every node is a
// RawNode over a MemoryStorage; Ready handling follows the contract of
// rawnode.ts (persist, send, apply, advance). Delivery is immediate and in
// order, with optional cuts between nodes. Not used in production code.

import type { ConfChange, ConfState, Entry, Message, ReadState } from "../types.ts";
import { EntryType, MessageType, StateType } from "../types.ts";
import type { Config } from "../raft.ts";
import { MemoryStorage } from "../storage.ts";
import { RawNode } from "../rawnode.ts";
import { decodeConfChange } from "../confchange.ts";
import { SeededRandom } from "../rand.ts";

export interface TestNode {
  id: number;
  rn: RawNode;
  storage: MemoryStorage;
  /** Normal entries with data that this node applied, as strings. */
  applied: string[];
  /** ReadStates handed out to this node. */
  readStates: ReadState[];
  confState: ConfState;
}

export type ConfigOverrides = Partial<Omit<Config, "id" | "storage">>;

const enc = new TextEncoder();
const dec = new TextDecoder();
export const bytes = (s: string): Uint8Array => enc.encode(s);
export const str = (b: Uint8Array): string => dec.decode(b);

export class TestCluster {
  readonly nodes = new Map<number, TestNode>();
  /** Every message delivered (for assertions on traffic). */
  readonly trace: Message[] = [];
  private readonly cuts = new Set<string>();
  /** Message types to drop everywhere. */
  readonly dropTypes = new Set<number>();
  /** Whether committed conf changes are applied automatically. */
  autoApplyConfChanges = true;

  constructor(
    readonly voters: number[],
    readonly overrides: ConfigOverrides = {},
    learners: number[] = [],
  ) {
    for (const id of [...voters, ...learners]) {
      this.addNode(id, new MemoryStorage({ voters, learners, votersOutgoing: [], learnersNext: [], autoLeave: false }));
    }
  }

  config(id: number, storage: MemoryStorage): Config {
    return { id, storage, electionTick: 10, heartbeatTick: 1, maxInflightMsgs: 256, random: new SeededRandom(id * 7919), ...this.overrides };
  }

  /** Adds (or replaces) a node over the given storage. */
  addNode(id: number, storage: MemoryStorage, overrides: ConfigOverrides = {}): TestNode {
    const rn = new RawNode({ ...this.config(id, storage), ...overrides });
    const n: TestNode = { id, rn, storage, applied: [], readStates: [], confState: storage.initialState().confState };
    this.nodes.set(id, n);
    return n;
  }

  node(id: number): TestNode {
    const n = this.nodes.get(id);
    if (!n) throw new Error(`no node ${id}`);
    return n;
  }

  raft(id: number) {
    return this.node(id).rn.raft;
  }

  /** Handles one Ready of a node; returns its messages. */
  process(id: number): Message[] {
    const n = this.node(id);
    if (!n.rn.hasReady()) return [];
    const rd = n.rn.ready();
    if (rd.snapshot) {
      n.storage.applySnapshot(rd.snapshot);
      n.confState = rd.snapshot.metadata.confState;
      n.applied = rd.snapshot.data.byteLength > 0 ? (JSON.parse(str(rd.snapshot.data)) as string[]) : [];
    }
    n.storage.append(rd.entries);
    if (rd.hardState) n.storage.setHardState(rd.hardState);
    for (const e of rd.committedEntries) this.apply(n, e);
    n.readStates.push(...rd.readStates);
    n.rn.advance();
    return rd.messages;
  }

  private apply(n: TestNode, e: Entry): void {
    if (e.type === EntryType.ConfChange) {
      if (this.autoApplyConfChanges) n.confState = n.rn.applyConfChange(decodeConfChange(e.data));
      return;
    }
    if (e.data.byteLength > 0) n.applied.push(str(e.data));
  }

  /** Snapshots the node's applied state and compacts its storage up to the applied index. */
  compact(id: number): number {
    const n = this.node(id);
    const applied = n.rn.raft.log.applied;
    n.storage.createSnapshot(applied, n.confState, bytes(JSON.stringify(n.applied)));
    n.storage.compact(applied);
    return applied;
  }

  cut(a: number, b: number): void {
    this.cuts.add(`${a}-${b}`);
    this.cuts.add(`${b}-${a}`);
  }

  isolate(id: number): void {
    for (const other of this.nodes.keys()) if (other !== id) this.cut(id, other);
  }

  heal(): void {
    this.cuts.clear();
    this.dropTypes.clear();
  }

  /** Delivers messages (and everything they cause) until the cluster is quiet. */
  deliver(msgs: Message[]): void {
    const queue = [...msgs];
    for (let guard = 0; queue.length > 0; guard++) {
      if (guard > 1_000_000) throw new Error("test cluster: message storm");
      const m = queue.shift() as Message;
      if (this.cuts.has(`${m.from}-${m.to}`) || this.dropTypes.has(m.type)) continue;
      const n = this.nodes.get(m.to);
      if (!n) continue;
      this.trace.push(m);
      n.rn.step(m);
      queue.push(...this.process(m.to));
    }
  }

  /** Processes every node's Ready and delivers until quiet. */
  stabilize(): void {
    for (let round = 0; round < 1000; round++) {
      const msgs: Message[] = [];
      for (const id of this.nodes.keys()) msgs.push(...this.process(id));
      if (msgs.length === 0) return;
      this.deliver(msgs);
    }
    throw new Error("test cluster: did not stabilize");
  }

  campaign(id: number): void {
    this.node(id).rn.campaign();
    this.stabilize();
  }

  propose(id: number, data: string): void {
    this.node(id).rn.propose(bytes(data));
    this.stabilize();
  }

  proposeConfChange(id: number, cc: ConfChange): void {
    this.node(id).rn.proposeConfChange(cc);
    this.stabilize();
  }

  /** Ticks every node once (or only the given ones) and stabilizes. */
  tick(times = 1, ids: number[] = [...this.nodes.keys()]): void {
    for (let i = 0; i < times; i++) {
      for (const id of ids) this.node(id).rn.tick();
      this.stabilize();
    }
  }

  leaders(): number[] {
    return [...this.nodes.values()].filter((n) => n.rn.raft.state === StateType.Leader).map((n) => n.id);
  }

  leader(): number | undefined {
    return this.leaders()[0];
  }

  committed(id: number): number {
    return this.raft(id).log.committed;
  }

  delivered(type: number): Message[] {
    return this.trace.filter((m) => m.type === type);
  }
}

export { MessageType };

/** A storage holding entries of the given terms at indexes 1..n (empty data). */
export function storageWithTerms(voters: number[], terms: number[], learners: number[] = []): MemoryStorage {
  const st = new MemoryStorage({ voters, learners, votersOutgoing: [], learnersNext: [], autoLeave: false });
  st.append(terms.map((term, i) => ({ term, index: i + 1, type: EntryType.Normal, data: new Uint8Array(0) })));
  return st;
}

export interface Solo {
  rn: RawNode;
  storage: MemoryStorage;
}

/** One node for message-level tests; its peers exist only as ids. */
export function soloNode(id: number, voters: number[], opts: { terms?: number[]; term?: number; vote?: number; commit?: number; overrides?: ConfigOverrides; learners?: number[] } = {}): Solo {
  const storage = storageWithTerms(voters, opts.terms ?? [], opts.learners ?? []);
  if (opts.term !== undefined) storage.setHardState({ term: opts.term, vote: opts.vote ?? 0, commit: opts.commit ?? 0 });
  const rn = new RawNode({ id, storage, electionTick: 10, heartbeatTick: 1, random: new SeededRandom(id), ...opts.overrides });
  return { rn, storage };
}

/** Handles the node's Ready (persisting it) and returns its messages. */
export function drain(s: Solo): Message[] {
  if (!s.rn.hasReady()) return [];
  const rd = s.rn.ready();
  if (rd.snapshot) s.storage.applySnapshot(rd.snapshot);
  s.storage.append(rd.entries);
  if (rd.hardState) s.storage.setHardState(rd.hardState);
  s.rn.advance();
  return rd.messages;
}

/** Terms of the node's whole log (index 1..last). */
export function logTerms(rn: RawNode): number[] {
  const out: number[] = [];
  const log = rn.raft.log;
  for (let i = log.firstIndex(); i <= log.lastIndex(); i++) out.push(log.term(i) ?? -1);
  return out;
}
