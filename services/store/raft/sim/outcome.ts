// The simulator's public vocabulary: what a schedule is run with
// (SimOptions), what it reports (SimResult), and how it fails
// (SimulationError, naming the seed to replay). Types only, plus the error
// class; no behaviour.

import type { MembershipStats } from "./membership.ts";

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
