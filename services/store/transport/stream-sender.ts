// Sending side of the peer stream: one PeerSender per remote node.
//
// - One long-lived connection per peer (peer-socket.ts), opened on first use,
//   carrying PeerBatch frames out and PeerAck frames back (frames.ts).
// - Messages are queued by send() and written by flush(), which the transport
//   calls at the end of each of its send() calls: the messages of one call
//   go out at once as one PeerBatch (up to maxBatchBytes each), with no timer
//   or turn of the event loop in between.
// - At most MAX_UNACKED batches are written before an ack covers them; acks
//   are cumulative (an ack of seq s covers every batch up to s), and a live
//   receiver acks within ACK_AFTER_MS (receiver.ts). Beyond MAX_QUEUED queued
//   messages new ones are dropped and the peer reported unreachable (Raft
//   retransmits).
// - A stream on which a batch has waited STALL_MS for its ack (a peer host
//   that vanished without closing the connection) is failed as below.
// - A refusal ack that carries a removal notice (this node was removed from
//   the cluster, see peer.proto) is reported through events.removed before
//   the stream fails as below.
// - A failed stream (connection refused, reset, refusal ack, bad frame) drops
//   what is queued, reports the peer unreachable and blocks the peer for a
//   backoff (100 ms doubling to 3 s, reset by the first ack of a stream);
//   while blocked, messages are dropped and reported. The next send after
//   the backoff reconnects.
// - A MsgSnap goes on a connection of its own in 1 MiB SnapshotChunk frames,
//   answered by one SnapshotAck; its outcome is reported through
//   events.snapshot.

import type { Socket } from "node:net";
import { MessageType, SnapshotStatus, type Message } from "../raft/index.ts";
import { encodeMessage } from "./codec.ts";
import { FrameKind } from "./frames.ts";
import { decodePeerAck, decodeSnapshotAck, encodePeerBatch, encodeSnapshotChunk, type PeerAckMsg } from "./peer-wire.ts";
import { dialPeer, framed, writeFrame, type PeerTls } from "./peer-socket.ts";
import type { RemovalNotice } from "./types.ts";

export const MAX_UNACKED = 64;
const MAX_QUEUED = 8192;
export const STALL_MS = 10_000;
const SNAPSHOT_CHUNK = 1024 * 1024;
/** A snapshot connection with no traffic for this long is given up. */
const SNAPSHOT_IDLE_MS = 30_000;
const BACKOFF_MIN_MS = 100;
const BACKOFF_MAX_MS = 3000;

export interface PeerSenderEvents {
  unreachable(peerId: number): void;
  snapshot(peerId: number, status: SnapshotStatus): void;
  removed(peerId: number, notice: RemovalNotice): void;
}

/** The removal notice of an ack, if it carries one. */
export function ackNotice(ack: PeerAckMsg): RemovalNotice | undefined {
  const index = Number(ack.removed_index ?? 0);
  const term = Number(ack.removed_term ?? 0);
  return ack.error !== "" && Number.isSafeInteger(index) && index > 0 && Number.isSafeInteger(term) && term >= 0 ? { index, term } : undefined;
}

export interface PeerTarget {
  host: string;
  port: number;
}

export class PeerSender {
  private stream: Socket | undefined;
  private queue: Uint8Array[] = [];
  /** Seq of the last batch written, and of the last one an ack covered (on the current stream). */
  private seq = 0;
  private ackedSeq = 0;
  /** When the oldest batch not covered by an ack was written. */
  private unackedSince = 0;
  private blockedUntil = 0;
  private backoffMs = BACKOFF_MIN_MS;
  private closed = false;
  private readonly snapshotSockets = new Set<Socket>();
  private readonly clusterIdText: string;
  /** Counters for tests and metrics. */
  readonly stats = { batches: 0, messages: 0, dropped: 0, reconnects: 0, acks: 0 };

  constructor(
    readonly peerId: number,
    private readonly selfId: number,
    clusterId: bigint,
    private readonly target: PeerTarget,
    private readonly tls: PeerTls | undefined,
    private readonly events: PeerSenderEvents,
    private readonly maxBatchBytes: number,
    private readonly now: () => number = Date.now,
  ) {
    this.clusterIdText = clusterId.toString();
  }

  /** Queues a message; flush() writes it. */
  send(m: Message): void {
    if (this.closed) return;
    if (m.type === MessageType.Snap) {
      this.sendSnapshot(m);
      return;
    }
    if (this.now() < this.blockedUntil || this.queue.length >= MAX_QUEUED) {
      this.stats.dropped++;
      this.events.unreachable(this.peerId);
      return;
    }
    this.queue.push(encodeMessage(m));
  }

  /** Writes what is queued, as far as the window of unacked batches allows. */
  flush(): void {
    if (this.closed || this.queue.length === 0) return;
    this.stream ??= this.openStream();
    const s = this.stream;
    if (this.seq > this.ackedSeq && this.now() - this.unackedSince >= STALL_MS) {
      this.fail(s, `no ack for ${STALL_MS} ms`);
      return;
    }
    while (this.queue.length > 0 && this.seq - this.ackedSeq < MAX_UNACKED) {
      let n = 0;
      let bytes = 0;
      while (n < this.queue.length && (n === 0 || bytes + this.queue[n].byteLength <= this.maxBatchBytes)) bytes += this.queue[n++].byteLength;
      const messages = n === this.queue.length ? this.queue : this.queue.slice(0, n);
      this.queue = n === this.queue.length ? [] : this.queue.slice(n);
      this.stats.batches++;
      this.stats.messages += n;
      if (this.seq === this.ackedSeq) this.unackedSince = this.now();
      const batch = { cluster_id: this.clusterIdText, from: this.selfId, to: this.peerId, seq: ++this.seq, messages };
      writeFrame(s, FrameKind.Batch, (headroom) => encodePeerBatch(batch, headroom));
    }
  }

  private openStream(): Socket {
    const s = dialPeer(this.target, this.tls);
    this.stats.reconnects++;
    this.ackedSeq = this.seq;
    framed(s, (frame) => {
      if (this.stream !== s) return;
      if (frame.kind !== FrameKind.Ack) throw new Error(`unexpected peer frame kind ${frame.kind} on a stream`);
      this.onAck(s, decodePeerAck(frame.payload));
    });
    s.on("error", (e: Error) => this.fail(s, e.message));
    s.on("close", () => this.fail(s, "connection closed"));
    return s;
  }

  private onAck(s: Socket, ack: PeerAckMsg): void {
    if (ack.error) {
      const notice = ackNotice(ack);
      if (notice && !this.closed) this.events.removed(this.peerId, notice);
      this.fail(s, ack.error);
      return;
    }
    this.stats.acks++;
    this.ackedSeq = Math.min(this.seq, Math.max(this.ackedSeq, Number(ack.seq)));
    this.unackedSince = this.now();
    this.backoffMs = BACKOFF_MIN_MS;
    this.flush();
  }

  private fail(s: Socket, _reason: string): void {
    if (this.stream !== s) return;
    this.stream = undefined;
    s.destroy();
    this.stats.dropped += this.queue.length;
    this.queue = [];
    this.blockedUntil = this.now() + this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, BACKOFF_MAX_MS);
    if (!this.closed) this.events.unreachable(this.peerId);
  }

  private sendSnapshot(m: Message): void {
    const snap = m.snapshot;
    if (!snap) return;
    const head = encodeMessage({ ...m, snapshot: { metadata: snap.metadata, data: new Uint8Array(0) } });
    const s = dialPeer(this.target, this.tls);
    this.snapshotSockets.add(s);
    let reported = false;
    const report = (ok: boolean): void => {
      s.destroy();
      this.snapshotSockets.delete(s);
      if (reported || this.closed) return;
      reported = true;
      if (!ok) this.events.unreachable(this.peerId);
      this.events.snapshot(this.peerId, ok ? SnapshotStatus.Finish : SnapshotStatus.Failure);
    };
    s.setTimeout(SNAPSHOT_IDLE_MS, () => report(false));
    framed(s, (frame) => {
      if (frame.kind !== FrameKind.SnapshotAck) throw new Error(`unexpected peer frame kind ${frame.kind} on a snapshot connection`);
      const ack = decodeSnapshotAck(frame.payload);
      report(ack.error === "" && Number(ack.received) === snap.data.byteLength);
    });
    s.on("error", () => report(false));
    s.on("close", () => report(false));
    const base = { cluster_id: this.clusterIdText, from: this.selfId, to: this.peerId };
    let offset = 0;
    do {
      const data = snap.data.subarray(offset, offset + SNAPSHOT_CHUNK);
      const last = offset + data.byteLength >= snap.data.byteLength;
      const chunk = { ...base, metadata: offset === 0 ? head : new Uint8Array(0), offset, data, last };
      writeFrame(s, FrameKind.SnapshotChunk, (headroom) => encodeSnapshotChunk(chunk, headroom));
      offset += data.byteLength;
    } while (offset < snap.data.byteLength);
  }

  close(): void {
    this.closed = true;
    this.queue = [];
    this.stream?.destroy();
    this.stream = undefined;
    for (const s of this.snapshotSockets) s.destroy();
    this.snapshotSockets.clear();
  }
}
