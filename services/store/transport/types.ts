// The peer transport as the Raft node sees it.
//
// Contract:
// - send() never blocks and never throws for delivery problems: messages are
//   best effort (Raft retransmits). Messages of one send() call to one peer
//   are delivered in order; a transport may drop any message.
// - When a peer cannot be reached (no connection, stream broken, unknown
//   peer), the transport calls the unreachable handler with its id so that
//   the leader stops pipelining to it (RawNode.reportUnreachable).
// - Every MsgSnap handed to send() gets exactly one snapshot status report:
//   Finish once the receiver accepted it, Failure otherwise
//   (RawNode.reportSnapshot).
// - Received messages are handed to the message handler in the order the
//   sender produced them (per sender). Messages not addressed to this node
//   are dropped by the transport.
// - Messages from a peer removed with a RemovalNotice are refused, and the
//   refusal carries the notice back to that peer, whose transport hands it to
//   the removed handler. A notice is evidence that the receiver APPLIED the
//   conf change removing the sender (so it is committed); what the sender
//   does with it is the node's business (node/raft-node.ts).

import type { Message, SnapshotStatus } from "../raft/index.ts";

/** What a member tells a peer whose removal it has applied. */
export interface RemovalNotice {
  /** Log index of the conf change entry that removed the peer (positive). */
  index: number;
  /** The teller's term when it applied that entry: at least the term in which the removal committed. */
  term: number;
}

export interface Transport {
  /** This node's id. */
  readonly id: number;
  /** Queues messages for delivery; returns at once. */
  send(messages: readonly Message[]): void;
  /** Sets the handler of received messages (one handler; a later call replaces it). */
  onMessage(handler: (m: Message) => void): void;
  /** Sets the handler called when a peer could not be reached. */
  onUnreachable(handler: (peerId: number) => void): void;
  /** Sets the handler of snapshot delivery outcomes. */
  onSnapshotStatus(handler: (peerId: number, status: SnapshotStatus) => void): void;
  /** Adds a peer or updates its URLs (idempotent). */
  addPeer(id: number, urls: readonly string[]): void;
  /** Sets the handler of removal notices: `peerId` says this node was removed (see the header). */
  onRemoved(handler: (peerId: number, notice: RemovalNotice) => void): void;
  /**
   * Forgets a peer removed from the cluster: its connections are closed,
   * messages to it are dropped, and its messages are refused from now on
   * (answered with the notice when one is given). addPeer undoes it.
   */
  removePeer(id: number, notice?: RemovalNotice): void;
  /** Stops sending and receiving; pending messages are dropped. */
  close(): Promise<void>;
}
