// Public surface of the Raft node (the replicated StoreBackend).
export { RaftNode } from "./raft-node.ts";
export type { RaftNodeOptions, LeaderPublisher } from "./options.ts";
export { computeClusterId } from "./options.ts";
export type { Member } from "./members.ts";
export { NodeError, isNodeError, type NodeErrorCode } from "./errors.ts";
