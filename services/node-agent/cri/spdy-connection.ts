/**
 * The server side of one SPDY/3.1 connection, as a runtime's streaming server needs it
 * (spdy-frames.ts for the framing), over any byte transport: a raw socket after an
 * `Upgrade: SPDY/3.1` handshake, or a WebSocket carrying SPDY in binary messages.
 *
 * Contract:
 * - every stream the client opens (SYN_STREAM) is answered with a SYN_REPLY at once
 *   and handed to `onStream` with its inflated headers (names lower case);
 * - a stream's data frames go to its `onData`, a FIN to its `onEnd`, a RST_STREAM to
 *   its `onReset` (after which the stream is forgotten);
 * - `write` sends data frames of at most 32 KiB, `end` sends the FIN (with data or
 *   empty), `reset` a RST_STREAM; nothing is sent after `close`;
 * - PINGs are echoed; SETTINGS, WINDOW_UPDATE and HEADERS are accepted and ignored
 *   (the platform's SPDY clients do not enforce flow control); GOAWAY, a frame that
 *   cannot be parsed or an oversized one ends the connection;
 * - `close` sends GOAWAY, then closes the transport; every open stream's `onReset` runs.
 */
import {
  dataFrame,
  FLAG_FIN,
  FrameReader,
  GOAWAY,
  goAwayFrame,
  HeaderDeflater,
  HeaderInflater,
  PING,
  pingFrame,
  parseSynStream,
  payloadStreamId,
  RST_STREAM,
  rstStreamFrame,
  SYN_STREAM,
  synReplyFrame,
  type HeaderBlock,
  type SpdyFrame,
} from "./spdy-frames.ts";

export interface ByteTransport {
  send(bytes: Buffer): void;
  close(): void;
}

/** Data frames carry at most this much. */
const MAX_DATA_CHUNK = 32 * 1024;

export class SpdyStream {
  onData?: (data: Buffer) => void;
  onEnd?: () => void;
  onReset?: () => void;
  private finished = false;

  constructor(
    readonly id: number,
    readonly headers: HeaderBlock,
    private readonly conn: SpdyServerConnection,
  ) {}

  /** The first value of a header (lower-case name), or "". */
  header(name: string): string {
    return this.headers.get(name)?.[0] ?? "";
  }

  write(data: Buffer): void {
    if (this.finished) return;
    for (let i = 0; i < data.length; i += MAX_DATA_CHUNK) this.conn.sendFrame(dataFrame(this.id, data.subarray(i, i + MAX_DATA_CHUNK), false));
  }

  /** Half-closes this side of the stream (FIN), after `data` when given. */
  end(data?: Buffer): void {
    if (this.finished) return;
    if (data) this.write(data);
    this.finished = true;
    this.conn.sendFrame(dataFrame(this.id, Buffer.alloc(0), true));
  }

  reset(status: number): void {
    this.finished = true;
    this.conn.sendFrame(rstStreamFrame(this.id, status));
  }
}

export class SpdyServerConnection {
  private readonly reader = new FrameReader();
  private readonly inflater = new HeaderInflater();
  private readonly deflater = new HeaderDeflater();
  private readonly streams = new Map<number, SpdyStream>();
  private lastStreamId = 0;
  private closed = false;

  constructor(
    private readonly transport: ByteTransport,
    private readonly onStream: (stream: SpdyStream) => void,
  ) {}

  get isClosed(): boolean {
    return this.closed;
  }

  /** Bytes from the client. */
  receive(chunk: Buffer): void {
    if (this.closed) return;
    try {
      for (const f of this.reader.push(chunk)) this.handle(f);
    } catch {
      this.close();
    }
  }

  sendFrame(bytes: Buffer): void {
    if (!this.closed) this.transport.send(bytes);
  }

  /** GOAWAY, then the transport is closed; open streams are reset for their owners. */
  close(): void {
    if (this.closed) return;
    this.transport.send(goAwayFrame(this.lastStreamId));
    this.closed = true;
    const open = [...this.streams.values()];
    this.streams.clear();
    for (const s of open) s.onReset?.();
    this.transport.close();
  }

  private handle(f: SpdyFrame): void {
    if (f.kind === "data") return this.onDataFrame(f.streamId, f.data, (f.flags & FLAG_FIN) !== 0);
    if (f.type === SYN_STREAM) return this.onSynStream(f.payload);
    if (f.type === PING) return f.payload.length >= 4 ? this.sendFrame(pingFrame(f.payload.readUInt32BE(0))) : undefined;
    if (f.type === RST_STREAM) return this.onResetFrame(payloadStreamId(f.payload));
    if (f.type === GOAWAY) return this.close();
  }

  private onSynStream(payload: Buffer): void {
    const { streamId, headerBlock } = parseSynStream(payload);
    const headers = this.inflater.decode(headerBlock);
    this.lastStreamId = Math.max(this.lastStreamId, streamId);
    this.sendFrame(synReplyFrame(streamId, this.deflater.encode(new Map())));
    const stream = new SpdyStream(streamId, headers, this);
    this.streams.set(streamId, stream);
    this.onStream(stream);
  }

  private onDataFrame(streamId: number, data: Buffer, fin: boolean): void {
    const stream = this.streams.get(streamId);
    if (!stream) return;
    if (data.length > 0) stream.onData?.(data);
    if (fin) stream.onEnd?.();
  }

  private onResetFrame(streamId: number): void {
    const stream = this.streams.get(streamId);
    if (!stream) return;
    this.streams.delete(streamId);
    stream.onReset?.();
  }
}
