// Options of a RaftNode, with defaults.

import type { MvccStore } from "../mvcc/index.ts";
import type { WalLogger } from "../wal/index.ts";
import type { Transport } from "../transport/types.ts";
import type { Member } from "./members.ts";

/** What the node needs from the revision publisher (RevisionPublisher fits). */
export interface LeaderPublisher {
  /** Leadership changed. */
  setLeader(leading: boolean): void;
  /** A revision was applied (or a snapshot installed); must not block. */
  notify(): void;
}

export interface RaftNodeOptions {
  /** Raft id of this node (positive safe integer). */
  id: number;
  /** WAL in <dataDir>/wal, snapshots in <dataDir>/snap. */
  dataDir: string;
  /** The peer transport; owned by the node from now on (closed by stop()). */
  transport: Transport;
  /**
   * The initial members of a new cluster, this node included; used only when
   * the data directory is empty and `join` is false. With `join`, the current
   * members, used only to reach the peers until the log says otherwise.
   */
  initialMembers?: Member[];
  /** Start empty and wait for the leader to replicate the log (after addMember on the cluster). */
  join?: boolean;
  /** Default: a hash of the initial members' ids and peer URLs. Pass the cluster's id when joining. */
  clusterId?: bigint;
  /** Tick interval and leader heartbeat. Default 100 ms. */
  heartbeatMs?: number;
  /** Election timeout (randomized in [electionMs, 2*electionMs)). Default 1000 ms. */
  electionMs?: number;
  /** How long propose(), readBarrier() and membership changes wait. Default 5000 ms. */
  requestTimeoutMs?: number;
  /** Take a snapshot every this many applied entries. Default 10000. */
  snapshotThreshold?: number;
  /** Entries kept in memory behind a snapshot so slow followers catch up without one. Default 5000. */
  snapshotCatchUpEntries?: number;
  /** How often the leader looks for expired leases. Default 500 ms. */
  leaseCheckMs?: number;
  /** Upper bound of the entries of one append message, bytes. Default 1 MiB. */
  maxSizePerMsg?: number;
  /** In-flight append messages per follower. Default 256. */
  maxInflightMsgs?: number;
  /**
   * A leader does not send an append only to tell the followers that the commit
   * index moved: the next append carries it, and a follower that holds committed
   * entries it was not told of is told within this many ms when none comes (and
   * with every heartbeat). A follower whose forwarded proposal committed is told
   * at once, and so is every member when a conf change commits (a member being
   * removed must learn it before the leader drops its progress). 0 (the default):
   * every follower is told of every commit at once, as etcd's leader does.
   * Measured with 5 against 0 (`bench -- store` with BENCH_STORE_BASE, 5 rounds):
   * 1-client put p50 0.85 and CPU per put 0.84 (leader) / 0.80 (followers), but with
   * 64 clients put p99 1.20 and 1.06 and p99.9 1.34 and 1.28 in two runs; the tail
   * decides, so the default stays 0.
   */
  commitNoticeDelayMs?: number;
  /**
   * Upper bound on how long a member that applied its own removal keeps
   * running as a non-campaigning voter before it stops even if members may
   * still need its vote (see raft/retirement.ts). Default 20 election
   * timeouts (20 s with the default electionMs).
   */
  removedLingerMaxMs?: number;
  /**
   * Called once the node stopped on its own because it was removed from the
   * cluster (after stop() completed), with the reason it logged: a reason of
   * raft/retirement.ts, "upper bound", or "removed by peers".
   */
  onRemoved?: (reason: string) => void;
  /** The state machine; default a new MvccStore. Must be empty: its state comes from disk and the log. */
  mvcc?: MvccStore;
  publisher?: LeaderPublisher;
  /** Called when this node gains or loses leadership (leaderId 0: none known). */
  onLeaderChange?: (leading: boolean, leaderId: number) => void;
  log?: WalLogger;
  now?: () => number;
}

export interface ResolvedTimers {
  heartbeatMs: number;
  electionTick: number;
  requestTimeoutMs: number;
  snapshotThreshold: number;
  snapshotCatchUpEntries: number;
  leaseCheckMs: number;
  removedLingerMaxMs: number;
  commitNoticeDelayMs: number;
}

export function resolveTimers(o: RaftNodeOptions): ResolvedTimers {
  const heartbeatMs = o.heartbeatMs ?? 100;
  const electionMs = o.electionMs ?? 1000;
  if (!(heartbeatMs > 0)) throw new RangeError("store node: heartbeatMs must be positive");
  const electionTick = Math.round(electionMs / heartbeatMs);
  if (electionTick < 2) throw new RangeError("store node: electionMs must be at least twice heartbeatMs");
  const removedLingerMaxMs = o.removedLingerMaxMs ?? 20 * electionMs;
  if (!(removedLingerMaxMs >= 0)) throw new RangeError("store node: removedLingerMaxMs must not be negative");
  const commitNoticeDelayMs = o.commitNoticeDelayMs ?? 0;
  if (!(commitNoticeDelayMs >= 0)) throw new RangeError("store node: commitNoticeDelayMs must not be negative");
  const snapshotThreshold = o.snapshotThreshold ?? 10_000;
  if (!(snapshotThreshold >= 1)) throw new RangeError("store node: snapshotThreshold must be at least 1");
  return {
    heartbeatMs,
    electionTick,
    requestTimeoutMs: o.requestTimeoutMs ?? 5000,
    snapshotThreshold,
    snapshotCatchUpEntries: o.snapshotCatchUpEntries ?? 5000,
    leaseCheckMs: o.leaseCheckMs ?? 500,
    removedLingerMaxMs,
    commitNoticeDelayMs,
  };
}

/** FNV-1a 64 over the sorted member ids and peer URLs. */
export function computeClusterId(members: readonly Member[]): bigint {
  let h = 0xcbf29ce484222325n;
  const text = [...members]
    .sort((a, b) => a.id - b.id)
    .map((m) => `${m.id}=${[...m.peerUrls].sort().join(",")}`)
    .join(";");
  for (const b of new TextEncoder().encode(text)) {
    h ^= BigInt(b);
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h === 0n ? 1n : h;
}
