/**
 * What the client API (handlers.ts, served over gRPC or in process by ../embedded.ts) needs from a store node:
 * linearizable writes through the replicated log, a read barrier for linearizable
 * reads, the local state machine for serving reads, and the applied-change feed.
 * Implemented by the Raft node (replicated) and by LocalBackend (no replication).
 */
import type { MvccStore, RevisionChange, StoreRequest, StoreResponse } from "../mvcc/index.ts";

export interface BackendStatus {
  memberId: bigint;
  clusterId: bigint;
  term: number;
  leader: bigint;
  raftIndex: number;
  appliedIndex: number;
}

export interface StoreBackend {
  /**
   * Replicates and applies a write; resolves with what applying it produced.
   * `encoded`: encodeRequest(request), when the caller made it already (it is then not made again).
   */
  propose(request: StoreRequest, encoded?: Uint8Array): Promise<StoreResponse>;
  /** Resolves once the local state machine holds everything committed before the call. */
  readBarrier(): Promise<void>;
  readonly mvcc: MvccStore;
  /** Called after every applied write revision, in order. */
  onApplied(listener: (change: RevisionChange) => void): () => void;
  status(): BackendStatus;
}
