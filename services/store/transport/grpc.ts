// The gRPC peer transport over shared/proto/store/peer.proto: a server for
// the messages of the other nodes and one PeerSender per peer (see
// grpc-peer.ts for batching, flow control and reconnects, grpc-server.ts for
// the receiving side). Peer URLs are "host:port", "http://host:port" or, with
// channel credentials for TLS, "https://host:port"; the first URL is used.

import * as grpc from "@grpc/grpc-js";
import type { Message, SnapshotStatus } from "../raft/index.ts";
import { MAX_GRPC_MESSAGE_BYTES, grpcAddress, newPeerClient, peerServiceDefinition } from "./grpc-proto.ts";
import { PeerSender } from "./grpc-peer.ts";
import { peerHandlers } from "./grpc-server.ts";
import type { RemovalNotice, Transport } from "./types.ts";

export interface GrpcTransportOptions {
  id: number;
  clusterId: bigint;
  /** "host:port" to listen on; port 0 picks a free port. */
  listen: string;
  /** Default: insecure. */
  serverCredentials?: grpc.ServerCredentials;
  /** Default: insecure. */
  channelCredentials?: grpc.ChannelCredentials;
  /** Largest PeerBatch, bytes. Default 4 MiB. */
  maxBatchBytes?: number;
}

const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  "grpc.max_send_message_length": MAX_GRPC_MESSAGE_BYTES,
  "grpc.max_receive_message_length": MAX_GRPC_MESSAGE_BYTES,
  "grpc.keepalive_time_ms": 10_000,
  "grpc.keepalive_timeout_ms": 5_000,
  "grpc.initial_reconnect_backoff_ms": 100,
  "grpc.max_reconnect_backoff_ms": 3_000,
  // No channelz on the channels (nothing reads it): it timestamps and counts every
  // message. The server keeps it: grpc-js (1.14) tracks the sessions that
  // forceShutdown destroys only with channelz on.
  "grpc.enable_channelz": 0,
};

export class GrpcTransport implements Transport {
  readonly id: number;
  private readonly senders = new Map<number, PeerSender>();
  private readonly urls = new Map<number, string>();
  /** Removed peers, whose messages are refused, with the notice to answer them with. */
  private readonly removed = new Map<number, { notice: RemovalNotice | undefined }>();
  private messageHandler: (m: Message) => void = () => {};
  private unreachableHandler: (peerId: number) => void = () => {};
  private snapshotHandler: (peerId: number, status: SnapshotStatus) => void = () => {};
  private removedHandler: (peerId: number, notice: RemovalNotice) => void = () => {};
  private closed = false;

  private constructor(
    private readonly opts: GrpcTransportOptions,
    private readonly server: grpc.Server,
    /** The port the server listens on. */
    readonly port: number,
  ) {
    this.id = opts.id;
  }

  /** Starts the server and returns the transport (port 0: see `.port`). */
  static async listen(opts: GrpcTransportOptions): Promise<GrpcTransport> {
    const server = new grpc.Server({ "grpc.max_receive_message_length": MAX_GRPC_MESSAGE_BYTES, "grpc.max_send_message_length": MAX_GRPC_MESSAGE_BYTES });
    // The handlers need the transport, which needs the bound port.
    const ref: { transport?: GrpcTransport } = {};
    server.addService(
      peerServiceDefinition(),
      peerHandlers({
        id: opts.id,
        clusterId: opts.clusterId,
        removal: (peer) => ref.transport?.removed.get(peer),
        deliver: (m) => {
          const t = ref.transport;
          if (t && !t.closed) t.messageHandler(m);
        },
      }),
    );
    const port = await new Promise<number>((resolve, reject) => {
      server.bindAsync(opts.listen, opts.serverCredentials ?? grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p)));
    });
    ref.transport = new GrpcTransport(opts, server, port);
    return ref.transport;
  }

  send(messages: readonly Message[]): void {
    if (this.closed) return;
    for (const m of messages) {
      const sender = this.sender(m.to);
      if (sender) sender.send(m);
      else this.unreachableHandler(m.to);
    }
  }

  private sender(id: number): PeerSender | undefined {
    const existing = this.senders.get(id);
    if (existing) return existing;
    const url = this.urls.get(id);
    if (url === undefined) return undefined;
    const client = newPeerClient(grpcAddress(url), this.opts.channelCredentials ?? grpc.credentials.createInsecure(), CHANNEL_OPTIONS);
    const sender = new PeerSender(
      id,
      this.id,
      this.opts.clusterId,
      client,
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
    // Streams from other nodes never end on their own: cut them.
    this.server.forceShutdown();
  }
}
