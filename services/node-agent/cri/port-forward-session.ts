/**
 * One port-forward session of the platform's port-forward protocol over SPDY/3.1
 * (as a runtime's streaming server serves it; here carried in WebSocket binary messages,
 * the WebSocket tunnel of shared/stream/channel-protocol.ts). The client opens, per forwarded
 * connection, an `error` stream and a `data` stream with the same `requestID` and the
 * target `port` in their headers; every stream gets a SYN_REPLY. Once both streams of a
 * request exist, a TCP connection to the pod's port is opened: data stream bytes go to
 * it, its bytes come back as data frames; a FIN from the client half-closes it, its end
 * sends FIN on the data stream and closes the error stream. A failed dial writes the
 * platform's message on the error stream. PINGs are echoed; RST_STREAM drops the
 * connection; GOAWAY or a protocol error ends the session.
 */
import { connect, type Socket } from "node:net";
import {
  dataFrame,
  FLAG_FIN,
  FrameReader,
  GOAWAY,
  HeaderDeflater,
  HeaderInflater,
  PING,
  pingFrame,
  parseSynStream,
  payloadStreamId,
  RST_CANCEL,
  RST_STREAM,
  rstStreamFrame,
  SYN_STREAM,
  synReplyFrame,
  type SpdyFrame,
} from "./spdy-frames.ts";

/** Where the pod's port is reached (the fake runtime maps pods onto loopback). */
export type PortTarget = (port: number) => { host: string; port: number };

export interface PortForwardTransport {
  send(bytes: Buffer): void;
  close(): void;
}

interface Pending {
  port: number;
  error?: number;
  data?: number;
  socket?: Socket;
}

/** Data frames carry at most this much. */
const MAX_DATA_CHUNK = 32 * 1024;

export class PortForwardSession {
  private readonly reader = new FrameReader();
  private readonly inflater = new HeaderInflater();
  private readonly deflater = new HeaderDeflater();
  private readonly requests = new Map<string, Pending>();
  /** Stream id → its request. */
  private readonly streams = new Map<number, Pending>();
  private closed = false;

  constructor(
    private readonly transport: PortForwardTransport,
    private readonly target: PortTarget,
    private readonly podName: string,
  ) {}

  /** Bytes from the client. */
  receive(chunk: Buffer): void {
    if (this.closed) return;
    let frames: SpdyFrame[];
    try {
      frames = this.reader.push(chunk);
      for (const f of frames) this.handle(f);
    } catch {
      this.close();
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const p of this.streams.values()) p.socket?.destroy();
    this.streams.clear();
    this.requests.clear();
    this.transport.close();
  }

  private send(bytes: Buffer): void {
    if (!this.closed) this.transport.send(bytes);
  }

  private handle(f: SpdyFrame): void {
    if (f.kind === "data") return this.onData(f.streamId, f.data, (f.flags & FLAG_FIN) !== 0);
    if (f.type === SYN_STREAM) return this.onSynStream(f.payload);
    if (f.type === PING) return f.payload.length >= 4 ? this.send(pingFrame(f.payload.readUInt32BE(0))) : undefined;
    if (f.type === RST_STREAM) return this.onReset(payloadStreamId(f.payload));
    if (f.type === GOAWAY) return this.close();
    // SETTINGS, WINDOW_UPDATE, HEADERS: nothing to do for a forwarder.
  }

  private onSynStream(payload: Buffer): void {
    const { streamId, headerBlock } = parseSynStream(payload);
    const headers = this.inflater.decode(headerBlock);
    const one = (name: string) => headers.get(name)?.[0] ?? "";
    this.send(synReplyFrame(streamId, this.deflater.encode(new Map())));
    const type = one("streamtype");
    const port = Number(one("port"));
    const requestId = one("requestid");
    if ((type !== "error" && type !== "data") || !Number.isInteger(port) || port < 1 || port > 65535) {
      this.send(rstStreamFrame(streamId, RST_CANCEL));
      return;
    }
    const key = `${requestId}/${port}`;
    const pending = this.requests.get(key) ?? { port };
    this.requests.set(key, pending);
    pending[type] = streamId;
    this.streams.set(streamId, pending);
    if (pending.error !== undefined && pending.data !== undefined) {
      this.requests.delete(key);
      this.forward(pending);
    }
  }

  private forward(p: Pending): void {
    const at = this.target(p.port);
    const socket = connect({ host: at.host, port: at.port });
    p.socket = socket;
    const dataId = p.data as number;
    const errorId = p.error as number;
    let connected = false;
    socket.on("connect", () => {
      connected = true;
    });
    socket.on("data", (chunk: Buffer) => {
      for (let i = 0; i < chunk.length; i += MAX_DATA_CHUNK) this.send(dataFrame(dataId, chunk.subarray(i, i + MAX_DATA_CHUNK), false));
    });
    socket.on("error", (err) => {
      if (!connected) {
        const message = `error forwarding port ${p.port} to pod ${this.podName}, uid : failed to execute portforward in network namespace: failed to connect to localhost:${p.port} inside namespace: ${err.message}`;
        this.send(dataFrame(errorId, Buffer.from(message), true));
      }
    });
    socket.on("close", () => {
      this.send(dataFrame(dataId, Buffer.alloc(0), true));
      if (connected) this.send(dataFrame(errorId, Buffer.alloc(0), true));
      this.streams.delete(dataId);
      this.streams.delete(errorId);
    });
  }

  private onData(streamId: number, data: Buffer, fin: boolean): void {
    const p = this.streams.get(streamId);
    if (!p || streamId !== p.data || !p.socket) return;
    if (data.length > 0) p.socket.write(data);
    if (fin) p.socket.end();
  }

  private onReset(streamId: number): void {
    const p = this.streams.get(streamId);
    if (!p) return;
    this.streams.delete(streamId);
    if (streamId === p.data) p.socket?.destroy();
  }
}
