// Errors of the Raft node as callers (the client API server) see them. Match
// on `code`; messages are meant for clients.
//
// - "no-leader": no leader is known; nothing was proposed. Safe to retry.
// - "timeout": no outcome within the request timeout. The write may still
//   commit later (ambiguous, as etcd's "request timed out").
// - "stopped": the node is shutting down (or was removed from the cluster).
// - "dropped": the leader refused the proposal (leadership transfer in
//   progress, not a member, too many uncommitted entries). Safe to retry.
// - "invalid-member": a membership request that does not fit the member list.
// - "not-leader": a leader-only operation (lease keep-alive) on another node.

export type NodeErrorCode = "no-leader" | "not-leader" | "timeout" | "stopped" | "dropped" | "invalid-member";

export class NodeError extends Error {
  readonly code: NodeErrorCode;
  constructor(code: NodeErrorCode, message: string) {
    super(message);
    this.name = "NodeError";
    this.code = code;
  }
}

export const noLeader = (): NodeError => new NodeError("no-leader", "store: no leader");
export const timedOut = (what = "request"): NodeError => new NodeError("timeout", `store: ${what} timed out`);
export const stopped = (): NodeError => new NodeError("stopped", "store: node stopped");

export function isNodeError(e: unknown, code?: NodeErrorCode): e is NodeError {
  return e instanceof NodeError && (code === undefined || e.code === code);
}

export const notLeader = (leader: number): NodeError => new NodeError("not-leader", `store: not the leader (leader: ${leader === 0 ? "unknown" : leader})`);
