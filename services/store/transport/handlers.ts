// The handlers a transport calls (types.ts), held in one place for every
// transport: each is a no-op until set, and a later set replaces it.

import type { Message, SnapshotStatus } from "../raft/index.ts";
import type { RemovalNotice, Transport } from "./types.ts";

const noop = (): void => {};

export abstract class TransportHandlers implements Pick<Transport, "onMessage" | "onUnreachable" | "onSnapshotStatus" | "onRemoved"> {
  protected messageHandler: (m: Message) => void = noop;
  protected unreachableHandler: (peerId: number) => void = noop;
  protected snapshotHandler: (peerId: number, status: SnapshotStatus) => void = noop;
  protected removedHandler: (peerId: number, notice: RemovalNotice) => void = noop;

  onMessage(handler: (m: Message) => void): void {
    this.messageHandler = handler;
  }

  onUnreachable(handler: (peerId: number) => void): void {
    this.unreachableHandler = handler;
  }

  onSnapshotStatus(handler: (peerId: number, status: SnapshotStatus) => void): void {
    this.snapshotHandler = handler;
  }

  onRemoved(handler: (peerId: number, notice: RemovalNotice) => void): void {
    this.removedHandler = handler;
  }
}
