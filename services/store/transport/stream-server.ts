// The peer port: a TCP server, or a TLS server when the member's peer TLS
// gives server options (then, as etcd's --peer-client-cert-auth or a peer CA
// file asks, a client certificate of that CA is required during the
// handshake). Certificate changes apply to new connections.
//
// A connection's first frame says what it carries: PeerBatch frames (a
// stream, answered with PeerAck frames) or SnapshotChunk frames (one
// snapshot, answered with one SnapshotAck, then closed); see receiver.ts for
// what is accepted and acknowledged. A frame of the other kind, a bad frame
// or an undecodable message destroys the connection. close() destroys every
// open connection.

import { createServer as createNetServer, type Server, type Socket } from "node:net";
import { createServer as createTlsServer, type Server as TlsServer } from "node:tls";
import { FrameKind } from "./frames.ts";
import { decodePeerBatch, decodeSnapshotChunk, encodePeerAck, encodeSnapshotAck, type PeerAckMsg, type SnapshotAckMsg } from "./peer-wire.ts";
import { framed, writeFrame, type PeerTls } from "./peer-socket.ts";
import { ACK_AFTER_MS, BatchReceiver, SnapshotReceiver, type ReceiverContext } from "./receiver.ts";

export class PeerStreamServer {
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;
  private readonly unsubscribe: () => void = () => undefined;

  private constructor(
    private readonly ctx: ReceiverContext,
    tls: PeerTls | undefined,
  ) {
    const options = tls?.server();
    if (tls === undefined || options === undefined) {
      this.server = createNetServer((s) => this.accept(s));
    } else {
      const server: TlsServer = createTlsServer(options, (s) => this.accept(s));
      // A failed handshake (no or a foreign client certificate) only closes that connection.
      server.on("tlsClientError", () => undefined);
      this.unsubscribe = tls.onChange(() => {
        const next = tls.server();
        if (next !== undefined) server.setSecureContext(next);
      });
      this.server = server;
    }
  }

  /** Listens on host:port (port 0: a free one, see `port`). */
  static async listen(host: string, port: number, ctx: ReceiverContext, tls: PeerTls | undefined): Promise<PeerStreamServer> {
    const s = new PeerStreamServer(ctx, tls);
    await new Promise<void>((resolve, reject) => {
      s.server.once("error", reject);
      s.server.listen(port, host, () => {
        s.server.off("error", reject);
        resolve();
      });
    });
    return s;
  }

  get port(): number {
    const a = this.server.address();
    return typeof a === "object" && a !== null ? a.port : 0;
  }

  private accept(socket: Socket): void {
    socket.setNoDelay(true);
    this.sockets.add(socket);
    socket.on("close", () => this.sockets.delete(socket));
    socket.on("error", () => undefined);
    let batches: BatchReceiver | undefined;
    let snapshot: SnapshotReceiver | undefined;
    let ackTimer: NodeJS.Timeout | undefined;
    const ack = (a: PeerAckMsg): void => {
      clearTimeout(ackTimer);
      ackTimer = undefined;
      writeFrame(socket, FrameKind.Ack, (headroom) => encodePeerAck(a, headroom));
    };
    const answerSnapshot = (a: SnapshotAckMsg | undefined): void => {
      if (a === undefined) return;
      writeFrame(socket, FrameKind.SnapshotAck, (headroom) => encodeSnapshotAck(a, headroom));
      socket.end();
    };
    socket.on("close", () => clearTimeout(ackTimer));
    socket.on("end", () => {
      if (snapshot) answerSnapshot(snapshot.ended());
      else socket.end();
    });
    framed(socket, (frame) => {
      if (frame.kind === FrameKind.Batch && snapshot === undefined) {
        batches ??= new BatchReceiver(this.ctx);
        const answer = batches.receive(decodePeerBatch(frame.payload));
        if (answer.ack) ack(answer.ack);
        if (answer.end) socket.end();
        else if (!answer.ack && ackTimer === undefined) {
          const r = batches;
          ackTimer = setTimeout(() => {
            ackTimer = undefined;
            const late = r.lateAck();
            if (late && !socket.destroyed) ack(late);
          }, ACK_AFTER_MS);
        }
      } else if (frame.kind === FrameKind.SnapshotChunk && batches === undefined) {
        snapshot ??= new SnapshotReceiver(this.ctx);
        answerSnapshot(snapshot.chunk(decodeSnapshotChunk(frame.payload)));
      } else {
        throw new Error(`unexpected peer frame kind ${frame.kind}`);
      }
    });
  }

  async close(): Promise<void> {
    this.unsubscribe();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    await closed;
  }
}
