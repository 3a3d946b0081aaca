// Sending side of the gRPC peer transport: one PeerSender per remote node.
//
// - One long-lived bidirectional Stream per peer, opened on first use.
// - Messages queued in one turn of the event loop are written as one
//   PeerBatch (up to maxBatchBytes each); at most MAX_UNACKED batches are
//   written before an ack covers them; beyond MAX_QUEUED queued messages new
//   ones are dropped and the peer reported unreachable (Raft retransmits).
// - Acks are cumulative (an ack of seq s covers every batch up to s). The
//   sender asks the receiver, in the call metadata, to ack only every
//   ACK_EVERY-th batch (see ackInterval in grpc-server.ts): half of the
//   stream's messages were acks, each costing CPU on both sides. A receiver
//   that ignores the request acks every batch, which is still correct.
// - A refusal ack that carries a removal notice (this node was removed from
//   the cluster, see peer.proto) is reported through events.removed before
//   the stream fails as below.
// - A failed stream (connection refused, reset, refusal ack) drops what is
//   queued, reports the peer unreachable and blocks the peer for a backoff
//   (100 ms doubling to 3 s, reset by the first ack of a stream); while
//   blocked, messages are dropped and reported. The next send after the
//   backoff reconnects.
// - A MsgSnap goes through SendSnapshot in 1 MiB chunks, outside the
//   stream; its outcome is reported through onSnapshot.

import * as grpc from "@grpc/grpc-js";
import { MessageType, SnapshotStatus, type Message } from "../raft/index.ts";
import { encodeMessage } from "./codec.ts";
import type { RemovalNotice } from "./types.ts";
import { ACK_EVERY_METADATA, type PeerAckMsg, type PeerBatchMsg, type PeerClient } from "./grpc-proto.ts";

const MAX_UNACKED = 64;
/** Requested ack interval, in batches; well below MAX_UNACKED so that a sender never waits for an ack. */
export const ACK_EVERY = 16;
const MAX_QUEUED = 8192;
const SNAPSHOT_CHUNK = 1024 * 1024;
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

export class PeerSender {
  private stream: grpc.ClientDuplexStream<PeerBatchMsg, PeerAckMsg> | undefined;
  private queue: Uint8Array[] = [];
  /** Seq of the last batch written, and of the last one an ack covered (on the current stream). */
  private seq = 0;
  private ackedSeq = 0;
  private flushScheduled = false;
  private blockedUntil = 0;
  private backoffMs = BACKOFF_MIN_MS;
  private closed = false;
  /** Counters for tests and metrics. */
  readonly stats = { batches: 0, messages: 0, dropped: 0, reconnects: 0, acks: 0 };

  constructor(
    readonly peerId: number,
    private readonly selfId: number,
    private readonly clusterId: bigint,
    private readonly client: PeerClient,
    private readonly events: PeerSenderEvents,
    private readonly maxBatchBytes: number,
  ) {}

  send(m: Message): void {
    if (this.closed) return;
    if (m.type === MessageType.Snap) {
      this.sendSnapshot(m);
      return;
    }
    if (Date.now() < this.blockedUntil || this.queue.length >= MAX_QUEUED) {
      this.stats.dropped++;
      this.events.unreachable(this.peerId);
      return;
    }
    const buf = encodeMessage(m);
    this.queue.push(buf);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => {
        this.flushScheduled = false;
        this.flush();
      });
    }
  }

  private openStream(): grpc.ClientDuplexStream<PeerBatchMsg, PeerAckMsg> {
    const md = new grpc.Metadata();
    md.set(ACK_EVERY_METADATA, String(ACK_EVERY));
    const s = this.client.Stream(md);
    this.stats.reconnects++;
    this.ackedSeq = this.seq;
    s.on("data", (ack: PeerAckMsg) => {
      if (this.stream !== s) return;
      if (ack.error) {
        const notice = ackNotice(ack);
        if (notice && !this.closed) this.events.removed(this.peerId, notice);
        this.fail(s, ack.error);
        return;
      }
      this.stats.acks++;
      this.ackedSeq = Math.min(this.seq, Math.max(this.ackedSeq, Number(ack.seq)));
      this.backoffMs = BACKOFF_MIN_MS;
      this.flush();
    });
    s.on("error", (e: Error) => this.fail(s, e.message));
    s.on("end", () => this.fail(s, "stream ended"));
    return s;
  }

  private flush(): void {
    if (this.closed || this.queue.length === 0) return;
    this.stream ??= this.openStream();
    const s = this.stream;
    while (this.queue.length > 0 && this.seq - this.ackedSeq < MAX_UNACKED) {
      let n = 0;
      let bytes = 0;
      while (n < this.queue.length && (n === 0 || bytes + this.queue[n].byteLength <= this.maxBatchBytes)) bytes += this.queue[n++].byteLength;
      const messages = this.queue.splice(0, n);
      this.stats.batches++;
      this.stats.messages += n;
      s.write({ cluster_id: this.clusterId.toString(), from: this.selfId, to: this.peerId, seq: ++this.seq, messages });
    }
  }

  private fail(s: grpc.ClientDuplexStream<PeerBatchMsg, PeerAckMsg>, _reason: string): void {
    if (this.stream !== s) return;
    this.stream = undefined;
    s.cancel();
    this.stats.dropped += this.queue.length;
    this.queue = [];
    this.blockedUntil = Date.now() + this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, BACKOFF_MAX_MS);
    if (!this.closed) this.events.unreachable(this.peerId);
  }

  private sendSnapshot(m: Message): void {
    const snap = m.snapshot;
    if (!snap) return;
    const head = encodeMessage({ ...m, snapshot: { metadata: snap.metadata, data: new Uint8Array(0) } });
    let reported = false;
    const report = (ok: boolean): void => {
      if (reported || this.closed) return;
      reported = true;
      if (!ok) this.events.unreachable(this.peerId);
      this.events.snapshot(this.peerId, ok ? SnapshotStatus.Finish : SnapshotStatus.Failure);
    };
    const call = this.client.SendSnapshot((err, ack) => report(!err && ack !== undefined && ack.error === "" && Number(ack.received) === snap.data.byteLength));
    const base = { cluster_id: this.clusterId.toString(), from: this.selfId, to: this.peerId };
    let offset = 0;
    do {
      const data = snap.data.subarray(offset, offset + SNAPSHOT_CHUNK);
      const last = offset + data.byteLength >= snap.data.byteLength;
      call.write({ ...base, metadata: offset === 0 ? head : new Uint8Array(0), offset, data, last });
      offset += data.byteLength;
    } while (offset < snap.data.byteLength);
    call.end();
  }

  close(): void {
    this.closed = true;
    this.queue = [];
    this.stream?.cancel();
    this.stream = undefined;
    this.client.close();
  }
}
