// Receiving side of the gRPC peer transport.
//
// Stream: batches from one sender, handed to the node in order. Acks are
// cumulative: by default every batch is acknowledged with its seq; a sender
// that asks for it in the call metadata (ACK_EVERY_METADATA = n) gets an ack
// only for batches whose seq is a multiple of n. A batch from another
// cluster, addressed to another node, from a removed member or that does not
// decode is refused with an error ack and the stream is ended (the sender
// reconnects later). The refusal of a removed member carries its removal
// notice (removed_index, removed_term) when the node gave one.
// SendSnapshot: chunks in order without gaps; the first carries the MsgSnap
// encoded without its data; after the last chunk the message is handed to
// the node and acknowledged with the byte count.
// Propose and ReadIndex are not served: proposals and read requests reach
// the leader as Raft messages (the core forwards them).

import * as grpc from "@grpc/grpc-js";
import type { Message } from "../raft/index.ts";
import { decodeMessage } from "./codec.ts";
import type { RemovalNotice } from "./types.ts";
import { ACK_EVERY_METADATA, type PeerAckMsg, type PeerBatchMsg, type SnapshotAckMsg, type SnapshotChunkMsg } from "./grpc-proto.ts";

const MAX_ACK_EVERY = 1024;

/** The ack interval a sender asked for (1 when absent or invalid). */
export function ackInterval(metadata: grpc.Metadata): number {
  const v = metadata.get(ACK_EVERY_METADATA)[0];
  const n = typeof v === "string" ? Number(v) : NaN;
  return Number.isInteger(n) && n >= 1 && n <= MAX_ACK_EVERY ? n : 1;
}

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

export function peerHandlers(ctx: ReceiverContext): grpc.UntypedServiceImplementation {
  const stream = (call: grpc.ServerDuplexStream<PeerBatchMsg, PeerAckMsg>): void => {
    const every = ackInterval(call.metadata);
    call.on("data", (batch: PeerBatchMsg) => {
      let refused = refuse(ctx, batch.cluster_id, batch.to, batch.from);
      if (!refused) {
        try {
          const msgs = batch.messages.map((b) => decodeMessage(b));
          for (const m of msgs) ctx.deliver(m);
        } catch (e) {
          refused = { error: `malformed batch: ${String(e)}` };
        }
      }
      if (refused) {
        call.write(refusalAck(batch.seq, refused));
        call.end();
      } else if (every === 1 || Number(batch.seq) % every === 0) {
        call.write({ seq: batch.seq, error: "" });
      }
    });
    call.on("end", () => call.end());
    call.on("error", () => undefined);
  };

  const sendSnapshot = (call: grpc.ServerReadableStream<SnapshotChunkMsg, SnapshotAckMsg>, callback: grpc.sendUnaryData<SnapshotAckMsg>): void => {
    let head: Message | undefined;
    const parts: Uint8Array[] = [];
    let received = 0;
    let done = false;
    const finish = (error: string): void => {
      if (done) return;
      done = true;
      callback(null, { received, error });
    };
    call.on("data", (chunk: SnapshotChunkMsg) => {
      if (done) return;
      if (!head) {
        const refused = refuse(ctx, chunk.cluster_id, chunk.to, chunk.from);
        if (refused) return finish(refused.error);
        try {
          head = decodeMessage(chunk.metadata);
        } catch (e) {
          return finish(`malformed snapshot metadata: ${String(e)}`);
        }
        if (!head.snapshot) return finish("snapshot metadata without a snapshot");
      }
      if (Number(chunk.offset) !== received) return finish(`chunk at offset ${chunk.offset}, expected ${received}`);
      parts.push(chunk.data);
      received += chunk.data.byteLength;
      if (!chunk.last) return;
      const data = Buffer.concat(parts);
      const m: Message = { ...head, snapshot: { metadata: head.snapshot!.metadata, data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) } };
      ctx.deliver(m);
      finish("");
    });
    call.on("end", () => finish(head ? "snapshot stream ended before the last chunk" : "empty snapshot stream"));
    call.on("error", () => finish("snapshot stream failed"));
  };

  const unimplemented = (_call: unknown, callback: grpc.sendUnaryData<never>): void => {
    callback({ code: grpc.status.UNIMPLEMENTED, details: "proposals and read requests travel as Raft messages on the peer stream" });
  };

  return { Stream: stream, SendSnapshot: sendSnapshot, Propose: unimplemented, ReadIndex: unimplemented };
}
