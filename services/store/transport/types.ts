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

import type { Message, SnapshotStatus } from "../raft/index.ts";

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
  /** Forgets a peer: its connections are closed and messages to it are dropped. */
  removePeer(id: number): void;
  /** Stops sending and receiving; pending messages are dropped. */
  close(): Promise<void>;
}
