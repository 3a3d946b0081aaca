/**
 * Optional abilities of a StoreBackend beyond the StoreBackend contract, found by
 * duck typing so that LocalBackend (none of them) and the Raft node (all of them)
 * plug into the same gRPC server:
 *
 * - membership: the Cluster service delegates to it; without it MemberList answers
 *   with this node alone and the changing RPCs are UNIMPLEMENTED;
 * - leadership: which node answers keep-alives; without it a node leads when
 *   status().leader equals its own member id;
 * - lease deadlines: a backend that expires leases itself (the Raft node) is asked
 *   for keep-alives and time-to-live; otherwise the server's LeaseKeeper does it.
 */
import type { StoreBackend } from "./backend.ts";

export interface MemberInfo {
  /** Raft node id (the Raft node uses safe-integer numbers). */
  id: bigint | number;
  name: string;
  peerUrls: string[];
  clientUrls: string[];
  isLearner: boolean;
}

export interface MembershipBackend {
  memberList(): MemberInfo[] | Promise<MemberInfo[]>;
  memberAdd(peerUrls: string[], isLearner: boolean): Promise<{ member: MemberInfo; members: MemberInfo[] }>;
  memberRemove(id: bigint): Promise<MemberInfo[]>;
  memberPromote(id: bigint): Promise<MemberInfo[]>;
}

export interface LeadershipBackend {
  isLeader(): boolean;
  /** Called with true when this node becomes leader and false when it stops leading. */
  onLeadershipChange(listener: (leading: boolean) => void): () => void;
}

/**
 * A backend that keeps lease deadlines itself (the Raft node's leader does, and
 * expires leases). Both calls are leader-only and throw on a follower.
 */
export interface LeaseDeadlineBackend {
  /** The renewed TTL, or undefined when the lease is unknown or expired. */
  leaseKeepAlive(id: bigint): number | undefined;
  /** Remaining seconds, -1 when unknown or expired. */
  leaseTimeToLive(id: bigint): number;
}

/** Optional sizes for Maintenance Status (bytes of the durable state). */
export interface SizedBackend {
  dbSize(): number;
}

/** A type guard: the backend has every named method (the capability's shape, checked at run time). */
function hasMethods<T extends object>(backend: StoreBackend, names: ReadonlyArray<keyof T & string>): backend is StoreBackend & T {
  return names.every((n) => typeof Reflect.get(backend, n) === "function");
}

export function membershipOf(backend: StoreBackend): MembershipBackend | undefined {
  return hasMethods<MembershipBackend>(backend, ["memberList", "memberAdd", "memberRemove", "memberPromote"]) ? backend : undefined;
}

export function leadershipOf(backend: StoreBackend): LeadershipBackend | undefined {
  return hasMethods<LeadershipBackend>(backend, ["isLeader", "onLeadershipChange"]) ? backend : undefined;
}

export function leaseDeadlinesOf(backend: StoreBackend): LeaseDeadlineBackend | undefined {
  return hasMethods<LeaseDeadlineBackend>(backend, ["leaseKeepAlive", "leaseTimeToLive"]) ? backend : undefined;
}

export function sizedOf(backend: StoreBackend): SizedBackend | undefined {
  return hasMethods<SizedBackend>(backend, ["dbSize"]) ? backend : undefined;
}

/** Whether this node currently leads its group. */
export function isLeader(backend: StoreBackend): boolean {
  const l = leadershipOf(backend);
  if (l !== undefined) return l.isLeader();
  const s = backend.status();
  return s.leader !== 0n && s.leader === s.memberId;
}
