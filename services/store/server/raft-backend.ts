/**
 * The Raft node (services/store/node) as the client API server sees it: a
 * StoreBackend with membership (etcd's Cluster semantics), leadership callbacks
 * and leader-held lease deadlines.
 *
 * Member ids are derived from the member's peer URLs (memberIdForPeerUrls), so
 * that every bootstrapping node computes the same ids from --initial-cluster, and
 * a node started with --initial-cluster-state existing finds the id that MemberAdd
 * gave it. A member's name and client URLs are published by the member itself
 * once it runs (publishSelf), as etcd members publish their attributes.
 */
import { createHash } from "node:crypto";
import type { LeaseId, RevisionChange, StoreRequest, StoreResponse } from "../mvcc/index.ts";
import type { Member } from "../node/members.ts";
import type { RaftNode } from "../node/raft-node.ts";
import type { BackendStatus, StoreBackend } from "./backend.ts";
import type { LeadershipBackend, MemberInfo, MembershipBackend } from "./capabilities.ts";

/** A positive 48-bit id from the sorted peer URLs (exact as a JS number). */
export function memberIdForPeerUrls(peerUrls: readonly string[]): number {
  const digest = createHash("sha256").update([...peerUrls].sort().join(",")).digest();
  return digest.readUIntBE(0, 6) || 1;
}

/** A cluster id from the cluster token (etcd's --initial-cluster-token), the same on every member. */
export function clusterIdForToken(token: string): bigint {
  const id = createHash("sha256").update(`cluster:${token}`).digest().readBigUInt64BE(0);
  return id === 0n ? 1n : id;
}

function info(m: Member): MemberInfo {
  return { id: m.id, name: m.name, peerUrls: m.peerUrls, clientUrls: m.clientUrls, isLearner: m.isLearner };
}

export class RaftBackend implements StoreBackend, MembershipBackend, LeadershipBackend {
  private readonly leadershipListeners = new Set<(leading: boolean) => void>();

  /** Pass `onLeaderChange` to RaftNode.start as the node's onLeaderChange option. */
  constructor(readonly node: RaftNode) {}

  get mvcc() {
    return this.node.mvcc;
  }

  /** Feed RaftNode's onLeaderChange here. */
  onLeaderChange(leading: boolean): void {
    for (const l of this.leadershipListeners) l(leading);
  }

  propose(request: StoreRequest, encoded?: Uint8Array): Promise<StoreResponse> {
    return this.node.propose(request, encoded);
  }

  readBarrier(): Promise<void> {
    return this.node.readBarrier();
  }

  onApplied(listener: (change: RevisionChange) => void): () => void {
    return this.node.onApplied(listener);
  }

  status(): BackendStatus {
    return this.node.status();
  }

  isLeader(): boolean {
    return this.node.isLeader;
  }

  onLeadershipChange(listener: (leading: boolean) => void): () => void {
    this.leadershipListeners.add(listener);
    return () => this.leadershipListeners.delete(listener);
  }

  /** Hands leadership to member `id` (Maintenance.MoveLeader; this node must lead). */
  transferLeadership(id: bigint): void {
    this.node.transferLeadership(Number(id));
  }

  /** Persists a snapshot of the applied state now (Maintenance.Defragment). */
  persistSnapshot(): Promise<void> {
    return this.node.snapshotNow();
  }

  leaseKeepAlive(id: LeaseId): number | undefined {
    return this.node.leaseKeepAlive(id);
  }

  leaseTimeToLive(id: LeaseId): number {
    return this.node.leaseTimeToLive(id);
  }

  memberList(): MemberInfo[] {
    return this.node.members().map(info);
  }

  async memberAdd(peerUrls: string[], isLearner: boolean): Promise<{ member: MemberInfo; members: MemberInfo[] }> {
    const id = memberIdForPeerUrls(peerUrls);
    const members = await this.node.addMember(id, peerUrls, isLearner);
    const member = members.find((m) => m.id === id) ?? { id, name: "", peerUrls, clientUrls: [], isLearner };
    return { member: info(member), members: members.map(info) };
  }

  async memberRemove(id: bigint): Promise<MemberInfo[]> {
    return (await this.node.removeMember(Number(id))).map(info);
  }

  async memberPromote(id: bigint): Promise<MemberInfo[]> {
    return (await this.node.promoteMember(Number(id))).map(info);
  }

  /**
   * Publishes this member's name and client URLs through the log (once per start,
   * since the bootstrap member lists of the other members do not know them),
   * retrying until a leader takes it or `stopped()` says to give up.
   */
  async publishSelf(name: string, clientUrls: string[], stopped: () => boolean, log: (msg: string, err?: unknown) => void): Promise<void> {
    while (!stopped()) {
      try {
        if (this.node.members().some((m) => m.id === this.node.id)) {
          await this.node.updateMember(this.node.id, { name, clientUrls });
          return;
        }
      } catch (err) {
        log("publishing member attributes failed; retrying", err);
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}
