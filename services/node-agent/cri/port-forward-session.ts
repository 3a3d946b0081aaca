/**
 * One port-forward session of the platform's port-forward protocol over SPDY/3.1 (as a
 * runtime's streaming server serves it, spdy-connection.ts): over a raw socket after an
 * `Upgrade: SPDY/3.1` handshake, or carried in WebSocket binary messages (the WebSocket
 * tunnel of shared/stream/channel-protocol.ts). The client opens, per forwarded
 * connection, an `error` stream and a `data` stream with the same `requestID` and the
 * target `port` in their headers. Once both streams of a request exist, a TCP
 * connection to the pod's port is opened: data stream bytes go to it, its bytes come
 * back on the data stream; a FIN from the client half-closes it, its end sends FIN on
 * the data stream and closes the error stream. A failed dial writes the platform's
 * message on the error stream. A stream of another type or without a valid port is
 * reset; a reset data stream drops its connection; the session's end drops them all.
 */
import { connect, type Socket } from "node:net";
import { SpdyServerConnection, type ByteTransport, type SpdyStream } from "./spdy-connection.ts";
import { RST_CANCEL } from "./spdy-frames.ts";

/** Where the pod's port is reached (the fake runtime maps pods onto loopback). */
export type PortTarget = (port: number) => { host: string; port: number };

export type PortForwardTransport = ByteTransport;

interface Pending {
  port: number;
  error?: SpdyStream;
  data?: SpdyStream;
}

export class PortForwardSession {
  private readonly conn: SpdyServerConnection;
  private readonly requests = new Map<string, Pending>();

  constructor(
    transport: PortForwardTransport,
    private readonly target: PortTarget,
    private readonly podName: string,
  ) {
    this.conn = new SpdyServerConnection(transport, (stream) => this.onStream(stream));
  }

  /** Bytes from the client. */
  receive(chunk: Buffer): void {
    this.conn.receive(chunk);
  }

  close(): void {
    this.requests.clear();
    this.conn.close();
  }

  private onStream(stream: SpdyStream): void {
    const type = stream.header("streamtype");
    const port = Number(stream.header("port"));
    if ((type !== "error" && type !== "data") || !Number.isInteger(port) || port < 1 || port > 65535) return stream.reset(RST_CANCEL);
    const key = `${stream.header("requestid")}/${port}`;
    const pending = this.requests.get(key) ?? { port };
    this.requests.set(key, pending);
    pending[type] = stream;
    if (pending.error && pending.data) {
      this.requests.delete(key);
      this.forward(pending.port, pending.data, pending.error);
    }
  }

  private forward(port: number, data: SpdyStream, error: SpdyStream): void {
    const at = this.target(port);
    const socket: Socket = connect({ host: at.host, port: at.port });
    let connected = false;
    socket.on("connect", () => {
      connected = true;
    });
    socket.on("data", (chunk: Buffer) => data.write(chunk));
    socket.on("error", (err) => {
      if (!connected) {
        const message = `error forwarding port ${port} to pod ${this.podName}, uid : failed to execute portforward in network namespace: failed to connect to localhost:${port} inside namespace: ${err.message}`;
        error.end(Buffer.from(message));
      }
    });
    socket.on("close", () => {
      data.end();
      if (connected) error.end();
    });
    data.onData = (bytes) => socket.write(bytes);
    data.onEnd = () => socket.end();
    data.onReset = () => socket.destroy();
  }
}
