// Receiving side of the peer stream, free of sockets (the connection handling
// is in stream-server.ts).
//
// Batches: handed to the node in order. Acks are cumulative: the receiver
// acknowledges a batch whose seq is a multiple of ACK_EVERY at once, and
// any other batch at the latest ACK_AFTER_MS later (so that a sender with
// little traffic still hears from a live receiver, see stream-sender.ts). A
// batch from another cluster, addressed to another node, from a removed
// member or that does not decode is refused with an error ack and the
// connection is ended (the sender reconnects later). The refusal of a removed
// member carries its removal notice (removed_index, removed_term) when the
// node gave one.
// Snapshots: chunks in order without gaps; the first carries the MsgSnap
// encoded without its data; after the last chunk the message is handed to
// the node and acknowledged with the byte count.

import type { Message } from "../raft/index.ts";
import { decodeMessage } from "./codec.ts";
import type { PeerAckMsg, PeerBatchMsg, SnapshotAckMsg, SnapshotChunkMsg } from "./peer-wire.ts";
import type { RemovalNotice } from "./types.ts";

/** A receiver acknowledges every ACK_EVERY-th batch; a sender never has more than MAX_UNACKED batches unacknowledged. */
export const ACK_EVERY = 16;
/**
 * Longest wait of a batch for its ack. Longer than ACK_EVERY batches at the
 * leader's heartbeat rate (16 x 100 ms), so that an idle stream carrying only
 * heartbeats (and their answers) is acked by every ACK_EVERY-th batch alone,
 * not by a late ack every half second as well; well below the sender's
 * STALL_MS (10 s).
 */
export const ACK_AFTER_MS = 2000;

export interface ReceiverContext {
  readonly id: number;
  readonly clusterId: bigint;
  /** Whether messages from this peer are refused (removed member), with the notice to answer them with if any. */
  removal(peerId: number): { notice: RemovalNotice | undefined } | undefined;
  deliver(m: Message): void;
}

interface Refusal {
  error: string;
  /** Only when refused because the sender was removed (same cluster, this receiver). */
  notice?: RemovalNotice;
}

function refuse(ctx: ReceiverContext, clusterId: string | number, to: string | number, from: string | number): Refusal | undefined {
  if (BigInt(clusterId) !== ctx.clusterId) return { error: `cluster id mismatch: got ${clusterId}, this is ${ctx.clusterId}` };
  if (Number(to) !== ctx.id) return { error: `wrong receiver: message for ${to}, this is ${ctx.id}` };
  const removal = ctx.removal(Number(from));
  if (removal) return { error: `member ${from} was removed from the cluster`, notice: removal.notice };
  return undefined;
}

/** The error ack of a refused batch; a removed sender's carries its removal notice. */
function refusalAck(seq: PeerBatchMsg["seq"], r: Refusal): PeerAckMsg {
  return r.notice ? { seq, error: r.error, removed_index: r.notice.index, removed_term: r.notice.term } : { seq, error: r.error };
}

/** What to answer a batch with: no ack, an ack, or a refusal after which the connection ends. */
export type BatchAnswer = { ack?: PeerAckMsg; end: boolean };

/** The batches of one connection. */
export class BatchReceiver {
  private lastSeq: PeerBatchMsg["seq"] = 0;
  private ackedSeq: PeerBatchMsg["seq"] = 0;
  private refused = false;

  constructor(private readonly ctx: ReceiverContext) {}

  /**
   * Delivers a batch's messages. Without an ack in the answer the batch waits
   * for a later one: the next ACK_EVERY-th batch, or lateAck() (the
   * connection calls it ACK_AFTER_MS later). After a refusal nothing more is
   * delivered or answered.
   */
  receive(batch: PeerBatchMsg): BatchAnswer {
    if (this.refused) return { end: true };
    let refused = refuse(this.ctx, batch.cluster_id, batch.to, batch.from);
    if (!refused) {
      try {
        const msgs = batch.messages.map((b) => decodeMessage(b));
        for (const m of msgs) this.ctx.deliver(m);
      } catch (e) {
        refused = { error: `malformed batch: ${String(e)}` };
      }
    }
    if (refused) {
      this.refused = true;
      return { ack: refusalAck(batch.seq, refused), end: true };
    }
    this.lastSeq = batch.seq;
    if (Number(batch.seq) % ACK_EVERY !== 0) return { end: false };
    this.ackedSeq = batch.seq;
    return { ack: { seq: batch.seq, error: "" }, end: false };
  }

  /** The ack of the latest batch, unless it was acknowledged. */
  lateAck(): PeerAckMsg | undefined {
    if (this.refused || this.lastSeq === this.ackedSeq) return undefined;
    this.ackedSeq = this.lastSeq;
    return { seq: this.lastSeq, error: "" };
  }
}

/** The chunks of one snapshot connection. */
export class SnapshotReceiver {
  private head: Message | undefined;
  private readonly parts: Uint8Array[] = [];
  private received = 0;
  private answer: SnapshotAckMsg | undefined;

  constructor(private readonly ctx: ReceiverContext) {}

  /** Takes a chunk; returns the ack once the snapshot is delivered or refused (later chunks are ignored). */
  chunk(chunk: SnapshotChunkMsg): SnapshotAckMsg | undefined {
    if (this.answer) return undefined;
    if (!this.head) {
      const refused = refuse(this.ctx, chunk.cluster_id, chunk.to, chunk.from);
      if (refused) return this.finish(refused.error);
      try {
        this.head = decodeMessage(chunk.metadata);
      } catch (e) {
        return this.finish(`malformed snapshot metadata: ${String(e)}`);
      }
      if (!this.head.snapshot) return this.finish("snapshot metadata without a snapshot");
    }
    if (Number(chunk.offset) !== this.received) return this.finish(`chunk at offset ${chunk.offset}, expected ${this.received}`);
    this.parts.push(chunk.data);
    this.received += chunk.data.byteLength;
    if (!chunk.last) return undefined;
    const data = Buffer.concat(this.parts);
    const head = this.head;
    this.ctx.deliver({ ...head, snapshot: { metadata: head.snapshot!.metadata, data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) } });
    return this.finish("");
  }

  /** The ack of a connection that ended before the last chunk (undefined once answered). */
  ended(): SnapshotAckMsg | undefined {
    if (this.answer) return undefined;
    return this.finish(this.head ? "snapshot stream ended before the last chunk" : "empty snapshot stream");
  }

  private finish(error: string): SnapshotAckMsg {
    this.answer = { received: this.received, error };
    return this.answer;
  }
}
