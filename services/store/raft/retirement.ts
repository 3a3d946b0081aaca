// When a member that applied its own removal may shut down.
//
// A configuration takes effect when it is applied (as in etcd), so a member
// that has not yet learned that the change removing node r committed still
// uses the old (or joint) configuration, whose quorum may need r's vote.
// Were r to shut down at once, and the members that learned the commit fail
// (or a removed leader's hand-over be lost) before telling the others, no
// leader could ever be elected again.
//
// Policy: a removed member keeps running as a follower that never
// campaigns (the core lets no non-voter campaign) but still answers vote
// requests and appends, and shuts down only once one of these holds:
//   - "established": its commit index reached an entry of a term above the
//     one it had when it applied its removal. A leader elected after the
//     removal committed has then committed an entry of its own term, so it
//     knows the removal committed, uses the new configuration and tells
//     its followers;
//   - "unneeded": for `quietTimeouts` election timeouts it received no vote
//     request and no message from a leader. Members that still count its
//     vote either follow a leader that contacts it, or campaign and ask it,
//     within two election timeouts while the network delivers.
// Never while it leads: a removed leader hands over first (membership.ts).
// Its vote responses carry its commit index (election.ts, commit hint), so
// a member that asks for its vote learns that the removal committed and
// from then on campaigns under the new configuration.
// An application may add an upper bound (the store's node shell does).
// An application may also apply the policy to a member that learned of its
// removal without applying it (the store's members tell a removed sender so,
// once they applied its removal): it still uses its old configuration and
// may campaign, so it stops only when not leading, and markRemoved takes the
// teller's term so that "established" still means a leader that knows the
// removal committed.
//
// Not guaranteed (the case etcd documents for removing one member of a
// two-member cluster): if the removed member is cut off for longer than the
// quiet period and every member that learned the commit fails before any
// other learns it, the others still use the old configuration, which may
// lack a quorum without the removed member.

import type { Message } from "./types.ts";
import { MessageType, StateType } from "./types.ts";
import type { Raft } from "./raft.ts";

/** Election timeouts without being asked before a removed member leaves. */
export const defaultQuietTimeouts = 3;

export type RetirementReason = "established" | "unneeded";

/** Requests from members that still count this node: candidates and leaders. */
function fromMemberCountingUs(m: Message): boolean {
  switch (m.type) {
    case MessageType.Vote:
    case MessageType.PreVote:
    case MessageType.App:
    case MessageType.Heartbeat:
    case MessageType.Snap:
    case MessageType.TimeoutNow:
      return true;
    default:
      return false;
  }
}

/**
 * Tracks one node after it applied its own removal. Feed it every message
 * stepped into the node (observe) and every tick (tick); ask `reason`.
 */
export class Retirement {
  private removedTerm: number | undefined;
  private quietTicks = 0;

  constructor(
    private readonly electionTick: number,
    private readonly quietTimeouts = defaultQuietTimeouts,
  ) {
    if (!(electionTick >= 1) || !(quietTimeouts >= 2)) throw new RangeError("retirement: electionTick >= 1 and quietTimeouts >= 2 required");
  }

  /** Whether the node applied its own removal. */
  get removed(): boolean {
    return this.removedTerm !== undefined;
  }

  /**
   * Records that the node applied its own removal (idempotent: the first call
   * counts). An application that learned of the removal otherwise (a member
   * that applied it said so) passes that member's term then as `atLeastTerm`:
   * "established" then needs a commit of a term above both.
   */
  markRemoved(r: Raft, atLeastTerm = 0): void {
    if (this.removedTerm !== undefined) return;
    this.removedTerm = Math.max(r.term, atLeastTerm);
    this.quietTicks = 0;
  }

  /** A message is about to be stepped into the node. */
  observe(m: Message): void {
    if (this.removedTerm !== undefined && fromMemberCountingUs(m)) this.quietTicks = 0;
  }

  /** The node's clock ticked. */
  tick(): void {
    if (this.removedTerm !== undefined) this.quietTicks++;
  }

  /** Why the node may shut down now, or undefined while it must stay. */
  reason(r: Raft): RetirementReason | undefined {
    if (this.removedTerm === undefined || r.state === StateType.Leader) return undefined;
    const committedTerm = r.log.term(r.log.committed);
    if (committedTerm !== undefined && committedTerm > this.removedTerm) return "established";
    if (this.quietTicks >= this.quietTimeouts * this.electionTick) return "unneeded";
    return undefined;
  }
}
