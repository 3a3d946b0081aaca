// The configuration of one Raft node, and its validation.
//
// Contract: validateConfig throws a RangeError for a configuration the core
// cannot run safely (e.g. electionTick <= heartbeatTick, LeaseBased reads
// without checkQuorum); a config it accepts never makes the core throw later.

import { ReadOnlyOption } from "./types.ts";
import type { RaftStorage } from "./storage.ts";
import type { RandomSource } from "./rand.ts";

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
  /**
   * A leader removed from (or demoted in) the config hands leadership to the
   * most caught-up voter and steps down (refusing proposals meanwhile).
   * Default true; with false it keeps leading the group but refuses proposals.
   */
  stepDownOnRemoval?: boolean;
  /**
   * When the leader's commit index moves, it sends appends only to followers
   * that have entries to receive; the others learn the new commit index with
   * their next append or heartbeat (within heartbeatTick). Saves an append
   * and its answer per follower per commit when idle followers need not apply
   * at once (the leader answers its clients from its own apply). Default
   * false: every follower gets an append carrying the commit index at once,
   * as etcd's raft does.
   */
  lazyCommitBroadcast?: boolean;
  /** Source of randomness for election timeouts. Default: a PRNG seeded with the node id. */
  random?: RandomSource;
}

export function validateConfig(c: Config): void {
  if (!Number.isSafeInteger(c.id) || c.id <= 0) throw new RangeError("raft config: id must be a positive integer");
  if (!(c.heartbeatTick > 0)) throw new RangeError("raft config: heartbeatTick must be greater than 0");
  if (!(c.electionTick > c.heartbeatTick)) throw new RangeError("raft config: electionTick must be greater than heartbeatTick");
  if (c.maxInflightMsgs !== undefined && !(c.maxInflightMsgs > 0)) throw new RangeError("raft config: maxInflightMsgs must be greater than 0");
  if (c.readOnlyOption === ReadOnlyOption.LeaseBased && !c.checkQuorum) {
    throw new RangeError("raft config: checkQuorum must be enabled when readOnlyOption is LeaseBased");
  }
}
