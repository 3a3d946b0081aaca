// Wire and storage shapes of the Raft core. These shapes are shared with the
// WAL (services/store/wal) and the peer transport: keep them stable.
//
// Node ids are positive integers; 0 (`None`) means "no node".

/** The id that means "no node" (no leader, no vote). */
export const None = 0;

export const EntryType = {
  Normal: 0,
  ConfChange: 1,
} as const;
export type EntryType = (typeof EntryType)[keyof typeof EntryType];

/** One log entry. Treated as immutable once created: never mutate an Entry in place. */
export interface Entry {
  term: number;
  index: number;
  type: EntryType;
  data: Uint8Array;
}

/** State that must be persisted before any message of the same Ready is sent. */
export interface HardState {
  term: number;
  vote: number;
  commit: number;
}

/** Membership as recorded in a snapshot (and returned by applyConfChange). */
export interface ConfState {
  /** Voters of the incoming (or only) majority config. */
  voters: number[];
  learners: number[];
  /** Voters of the outgoing majority config; non-empty only in a joint config. */
  votersOutgoing: number[];
  /** Learners staged to be added when the joint config is left. */
  learnersNext: number[];
  /** Whether the joint config is left automatically once it is applied. */
  autoLeave: boolean;
}

export interface SnapshotMetadata {
  confState: ConfState;
  index: number;
  term: number;
}

export interface Snapshot {
  data: Uint8Array;
  metadata: SnapshotMetadata;
}

export const MessageType = {
  Hup: 0,
  Beat: 1,
  Prop: 2,
  App: 3,
  AppResp: 4,
  Vote: 5,
  VoteResp: 6,
  Snap: 7,
  Heartbeat: 8,
  HeartbeatResp: 9,
  Unreachable: 10,
  SnapStatus: 11,
  CheckQuorum: 12,
  TransferLeader: 13,
  TimeoutNow: 14,
  ReadIndex: 15,
  ReadIndexResp: 16,
  PreVote: 17,
  PreVoteResp: 18,
} as const;
export type MessageType = (typeof MessageType)[keyof typeof MessageType];

const messageTypeNames: Record<number, string> = Object.fromEntries(
  Object.entries(MessageType).map(([k, v]) => [v, `Msg${k}`]),
);

export function messageTypeName(t: MessageType): string {
  return messageTypeNames[t] ?? `Msg(${t})`;
}

/**
 * A Raft message. Messages handed to `step` are never mutated by the core, so
 * a transport (or a simulator) may deliver the same object more than once.
 */
export interface Message {
  type: MessageType;
  to: number;
  from: number;
  term: number;
  /** Term of the entry at `index` (MsgApp), the voter's last term (MsgVote), or the reject hint term (MsgAppResp). */
  logTerm: number;
  index: number;
  entries: Entry[];
  commit: number;
  snapshot?: Snapshot;
  reject: boolean;
  rejectHint: number;
  context?: Uint8Array;
}

export const ConfChangeType = {
  AddNode: 0,
  RemoveNode: 1,
  UpdateNode: 2,
  AddLearnerNode: 3,
} as const;
export type ConfChangeType = (typeof ConfChangeType)[keyof typeof ConfChangeType];

export const ConfChangeTransition = {
  /** Simple change when possible (one voter change), otherwise joint with automatic leave. */
  Auto: 0,
  /** Always joint, left automatically. */
  JointImplicit: 1,
  /** Always joint, left only by an explicit empty ConfChange. */
  JointExplicit: 2,
} as const;
export type ConfChangeTransition = (typeof ConfChangeTransition)[keyof typeof ConfChangeTransition];

export interface ConfChangeSingle {
  type: ConfChangeType;
  nodeId: number;
}

/**
 * A membership change (the etcd "V2" form). An empty `changes` list leaves a
 * joint configuration. One change with transition Auto is a simple change.
 */
export interface ConfChange {
  transition: ConfChangeTransition;
  changes: ConfChangeSingle[];
  context?: Uint8Array;
}

export const StateType = {
  Follower: 0,
  Candidate: 1,
  Leader: 2,
  PreCandidate: 3,
} as const;
export type StateType = (typeof StateType)[keyof typeof StateType];

export function stateTypeName(s: StateType): string {
  return ["Follower", "Candidate", "Leader", "PreCandidate"][s] ?? `State(${s})`;
}

/** Volatile state; handed out in Ready only when it changes. */
export interface SoftState {
  lead: number;
  raftState: StateType;
}

/** The answer to a ReadIndex request: reads at `index` are linearizable once `applied >= index`. */
export interface ReadState {
  index: number;
  requestCtx: Uint8Array;
}

export const ReadOnlyOption = {
  /** Confirm leadership with a heartbeat round to a quorum (default). */
  Safe: 0,
  /** Rely on the leader lease (needs checkQuorum; depends on bounded clock drift). */
  LeaseBased: 1,
} as const;
export type ReadOnlyOption = (typeof ReadOnlyOption)[keyof typeof ReadOnlyOption];

export const SnapshotStatus = {
  Finish: 0,
  Failure: 1,
} as const;
export type SnapshotStatus = (typeof SnapshotStatus)[keyof typeof SnapshotStatus];

export function emptyConfState(): ConfState {
  return { voters: [], learners: [], votersOutgoing: [], learnersNext: [], autoLeave: false };
}

export function emptySnapshot(): Snapshot {
  return { data: new Uint8Array(0), metadata: { confState: emptyConfState(), index: 0, term: 0 } };
}

export function isEmptySnapshot(s: Snapshot | undefined): boolean {
  return s === undefined || s.metadata.index === 0;
}

export function isEmptyHardState(hs: HardState): boolean {
  return hs.term === 0 && hs.vote === 0 && hs.commit === 0;
}

/** Builds a message with every field defaulted; `type` is required. */
export function newMessage(m: Partial<Message> & Pick<Message, "type">): Message {
  return {
    type: m.type,
    to: m.to ?? None,
    from: m.from ?? None,
    term: m.term ?? 0,
    logTerm: m.logTerm ?? 0,
    index: m.index ?? 0,
    entries: m.entries ?? [],
    commit: m.commit ?? 0,
    snapshot: m.snapshot,
    reject: m.reject ?? false,
    rejectHint: m.rejectHint ?? 0,
    context: m.context,
  };
}

/** Messages that are generated and consumed inside one node and never cross the network. */
export function isLocalMessage(t: MessageType): boolean {
  return (
    t === MessageType.Hup ||
    t === MessageType.Beat ||
    t === MessageType.Unreachable ||
    t === MessageType.SnapStatus ||
    t === MessageType.CheckQuorum
  );
}

export function isResponseMessage(t: MessageType): boolean {
  return (
    t === MessageType.AppResp ||
    t === MessageType.VoteResp ||
    t === MessageType.HeartbeatResp ||
    t === MessageType.Unreachable ||
    t === MessageType.PreVoteResp
  );
}

/** Approximate encoded size of an entry, used for maxSizePerMsg and apply batching. */
export function entrySize(e: Entry): number {
  return e.data.byteLength + 16;
}

/** Size of the entry payload, used for the uncommitted-size limit. */
export function payloadSize(e: Entry): number {
  return e.data.byteLength;
}
