// The peer transport of a store member: Raft messages in length-prefixed
// frames of the peer.proto codec (frames.ts, peer-wire.ts) over one TCP or
// mutual-TLS connection per peer and direction, Nagle off. The server side
// is stream-server.ts, one PeerSender per peer is stream-sender.ts (batching,
// acks, reconnects, snapshots). Peer URLs are "host:port", "http://host:port"
// or "https://host:port"; the first URL is used, and TLS is used towards
// every peer when the member's peer TLS gives client options.
//
// Why not gRPC: a 1-client put crosses the peer link twice (append out, its
// answer back), and grpc-js over Node's HTTP/2 spent a turn of the event loop
// on each write (HTTP/2 frames are flushed from an immediate) plus its own
// per-message work; a frame here is one socket write.

import type { Message } from "../raft/index.ts";
import { TransportHandlers } from "./handlers.ts";
import { peerAddress, type PeerTls } from "./peer-socket.ts";
import { PeerSender } from "./stream-sender.ts";
import { PeerStreamServer } from "./stream-server.ts";
import type { RemovalNotice, Transport } from "./types.ts";

export interface StreamTransportOptions {
  id: number;
  clusterId: bigint;
  /** "host:port" to listen on; port 0 picks a free port. */
  listen: string;
  /** Default: plaintext on both sides. */
  tls?: PeerTls;
  /** Largest PeerBatch, bytes. Default 4 MiB. */
  maxBatchBytes?: number;
}

export class StreamTransport extends TransportHandlers implements Transport {
  readonly id: number;
  private readonly senders = new Map<number, PeerSender>();
  private readonly urls = new Map<number, string>();
  /** Removed peers, whose messages are refused, with the notice to answer them with. */
  private readonly removed = new Map<number, { notice: RemovalNotice | undefined }>();
  private server: PeerStreamServer | undefined;
  private closed = false;

  private constructor(private readonly opts: StreamTransportOptions) {
    super();
    this.id = opts.id;
  }

  /** Starts the server and returns the transport (port 0: see `.port`). */
  static async listen(opts: StreamTransportOptions): Promise<StreamTransport> {
    const address = peerAddress(opts.listen);
    if (address === undefined) throw new Error(`peer listen address ${opts.listen} has no port`);
    const t = new StreamTransport(opts);
    t.server = await PeerStreamServer.listen(
      address.host,
      address.port,
      {
        id: opts.id,
        clusterId: opts.clusterId,
        removal: (peer) => t.removed.get(peer),
        deliver: (m) => {
          if (!t.closed) t.messageHandler(m);
        },
      },
      opts.tls,
    );
    return t;
  }

  /** The port the server listens on. */
  get port(): number {
    return this.server?.port ?? 0;
  }

  send(messages: readonly Message[]): void {
    if (this.closed) return;
    let touched: PeerSender | Set<PeerSender> | undefined;
    for (const m of messages) {
      const sender = this.sender(m.to);
      if (!sender) {
        this.unreachableHandler(m.to);
        continue;
      }
      sender.send(m);
      if (touched === undefined) touched = sender;
      else if (touched !== sender) {
        if (!(touched instanceof Set)) touched = new Set([touched]);
        touched.add(sender);
      }
    }
    if (touched instanceof Set) for (const s of touched) s.flush();
    else touched?.flush();
  }

  private sender(id: number): PeerSender | undefined {
    const existing = this.senders.get(id);
    if (existing) return existing;
    const url = this.urls.get(id);
    const target = url === undefined ? undefined : peerAddress(url);
    if (target === undefined) return undefined;
    const sender = new PeerSender(
      id,
      this.id,
      this.opts.clusterId,
      target,
      this.opts.tls,
      {
        unreachable: (peer) => this.unreachableHandler(peer),
        snapshot: (peer, status) => this.snapshotHandler(peer, status),
        removed: (peer, notice) => this.removedHandler(peer, notice),
      },
      this.opts.maxBatchBytes ?? 4 * 1024 * 1024,
    );
    this.senders.set(id, sender);
    return sender;
  }

  addPeer(id: number, urls: readonly string[]): void {
    if (id === this.id || urls.length === 0) return;
    this.removed.delete(id);
    if (this.urls.get(id) === urls[0]) return;
    this.urls.set(id, urls[0]);
    this.senders.get(id)?.close();
    this.senders.delete(id);
  }

  removePeer(id: number, notice?: RemovalNotice): void {
    this.removed.set(id, { notice });
    this.urls.delete(id);
    this.senders.get(id)?.close();
    this.senders.delete(id);
  }

  /** Senders' counters, by peer id. */
  stats(): Record<number, PeerSender["stats"]> {
    return Object.fromEntries([...this.senders].map(([id, s]) => [id, { ...s.stats }]));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const s of this.senders.values()) s.close();
    this.senders.clear();
    await this.server?.close();
  }
}
