/**
 * A lean unary gRPC channel to one member over node:http2: one HTTP/2 session, each
 * call one stream (headers, one length-prefixed message, status from the trailers).
 * It replaces grpc-js's per-call machinery (filters, metadata objects, resolver and
 * picker) on the hot unary path; the wire protocol is the same.
 *
 * Contracts:
 * - TLS is the grpc-js channel credentials' own (their secure connector: the same
 *   server verification, ALPN h2, client certificate and reloaded files); plaintext
 *   credentials give a plaintext session;
 * - a call waits for a connection in progress (bounded by its deadline); after a
 *   failed connection attempt, calls fail fast with UNAVAILABLE "No connection
 *   established. Last error: ..." until the reconnect backoff has passed (initial,
 *   x1.6, up to the maximum; reset by a connection), as grpc-js does in transient
 *   failure. Such a call was never sent;
 * - a GOAWAY, error or close of the session makes the next call connect anew; calls
 *   on it end with the status grpc-js gives (UNAVAILABLE "Connection dropped", ...);
 * - the deadline travels as `grpc-timeout`; when it passes the call rejects with
 *   DEADLINE_EXCEEDED and its stream is cancelled;
 * - failures reject with EtcdCallError (gRPC code, details, this endpoint);
 * - a call its caller marks multiplexable (a small answer) goes over the session's call
 *   multiplexer once the server has opened it, with the same outcome as a stream of
 *   its own; against a server without one (etcd) every call is a stream of its own.
 * The session keeps the process alive only while calls are in flight.
 */
import http2, { type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders, type OutgoingHttpHeaders } from "node:http2";
import { connect as netConnect, type Socket } from "node:net";
import type { ChannelCredentials, experimental } from "@grpc/grpc-js";
import { CallMuxStream } from "./call-mux-client.ts";
import { EtcdCallError, GrpcStatus } from "./errors.ts";
import { frameMessage, grpcTimeout, statusFromHeaders, statusFromHttp, unframeMessage, type CallStatus } from "./grpc-frame.ts";

const { NGHTTP2_NO_ERROR, NGHTTP2_REFUSED_STREAM, NGHTTP2_CANCEL, NGHTTP2_ENHANCE_YOUR_CALM, NGHTTP2_INADEQUATE_SECURITY } = http2.constants;

/** Per-stream and session receive windows: a large Range answer is not paced by 64 KiB window updates. */
const STREAM_WINDOW = 4 << 20;
const SESSION_WINDOW = 32 << 20;

export interface Http2ChannelOptions {
  /** First reconnect backoff after a failed connection attempt (default 1 s, as grpc-js). */
  initialReconnectBackoffMs?: number;
  /** Largest reconnect backoff (default 120 s, as grpc-js). */
  maxReconnectBackoffMs?: number;
  /** Bound of one connection attempt: TCP, TLS and the server's SETTINGS (default 20 s, as grpc-js). */
  connectTimeoutMs?: number;
  /** Whether calls marked multiplexable use the server's call multiplexer when it has one (default true). */
  callMux?: boolean;
}

/** Requests at most this long go over the call multiplexer; longer ones take a stream of their own. */
export const MUX_MAX_REQUEST_BYTES = 256 << 10;

/** An established session, its calls in flight and its call multiplexer. */
class Connection {
  active = 0;
  mux: CallMuxStream | undefined;
  /** The server answered the multiplexer UNIMPLEMENTED: this session's calls are unary. */
  muxUnsupported = false;
  constructor(readonly session: ClientHttp2Session) {}

  hold(): void {
    if (this.active++ === 0) this.session.ref();
  }

  release(): void {
    if (--this.active === 0) this.session.unref();
  }

  /** Closes the session once its calls are done (the multiplexer's side is ended too, or the session would wait for it). */
  close(): void {
    this.mux?.end();
    if (!this.session.closed) this.session.close();
  }
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** "host:port" or "[v6]:port" -> host and port. */
function hostPort(target: string): { host: string; port: number } {
  const m = /^\[([^\]]+)\]:(\d+)$/.exec(target) ?? /^([^:]+):(\d+)$/.exec(target);
  if (m === null) return { host: target, port: 443 };
  return { host: m[1], port: Number(m[2]) };
}

function tcpConnect(host: string, port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host, port }, () => {
      socket.removeListener("error", reject);
      socket.setNoDelay(true);
      resolve(socket);
    });
    socket.once("error", reject);
  });
}

/** The status of a stream that closed without one (grpc-js's mapping of RST_STREAM codes). */
function statusOfReset(stream: ClientHttp2Stream, httpStatus: number | undefined, streamError: Error | undefined, sessionGone: boolean): CallStatus {
  const code = stream.rstCode ?? NGHTTP2_NO_ERROR;
  if (sessionGone || code === NGHTTP2_CANCEL) return { code: GrpcStatus.UNAVAILABLE, details: "Connection dropped" };
  const sysCode = (streamError as NodeJS.ErrnoException | undefined)?.code;
  if (sysCode === "ECONNRESET" || sysCode === "ETIMEDOUT") return { code: GrpcStatus.UNAVAILABLE, details: errorMessage(streamError) };
  switch (code) {
    case NGHTTP2_NO_ERROR:
      if (httpStatus !== undefined && httpStatus !== 200) return statusFromHttp(httpStatus);
      return { code: GrpcStatus.INTERNAL, details: "Received RST_STREAM with code 0 (Call ended without gRPC status)" };
    case NGHTTP2_REFUSED_STREAM:
      return { code: GrpcStatus.UNAVAILABLE, details: "Stream refused by server" };
    case NGHTTP2_ENHANCE_YOUR_CALM:
      return { code: GrpcStatus.RESOURCE_EXHAUSTED, details: "Bandwidth exhausted or memory limit exceeded" };
    case NGHTTP2_INADEQUATE_SECURITY:
      return { code: GrpcStatus.PERMISSION_DENIED, details: "Protocol not secure enough" };
    default:
      return { code: GrpcStatus.INTERNAL, details: `Received RST_STREAM with code ${code}` };
  }
}

export class Http2UnaryChannel {
  private conn: Connection | undefined;
  private connecting: Promise<Connection> | undefined;
  private lastError = "";
  private retryAt = 0;
  private backoffMs: number;
  private closed = false;
  private readonly connector: experimental.SecureConnector;
  private readonly initialBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly connectTimeoutMs: number;
  private readonly callMux: boolean;
  /** Calls sent over a call multiplexer since the channel was made (tests check the path taken). */
  multiplexed = 0;

  /** `target`: host:port. */
  constructor(
    readonly target: string,
    credentials: ChannelCredentials,
    opts: Http2ChannelOptions = {},
  ) {
    this.initialBackoffMs = opts.initialReconnectBackoffMs ?? 1000;
    this.maxBackoffMs = opts.maxReconnectBackoffMs ?? 120_000;
    this.connectTimeoutMs = opts.connectTimeoutMs ?? 20_000;
    this.callMux = opts.callMux ?? true;
    this.backoffMs = this.initialBackoffMs;
    this.connector = credentials._createSecureConnector({ scheme: "dns", path: target }, {});
  }

  /**
   * One unary call: `path` is /package.Service/Method, `message` the encoded request.
   * Resolves with the encoded response (undefined when the server sent none with OK).
   * `deadline`: ms since the epoch. `multiplexable`: the answer is known to be small
   * (one key, a count), so the call may share the session's call multiplexer with
   * others instead of opening a stream of its own (call-mux-client.ts); the outcome is
   * the same either way.
   */
  call(path: string, message: Uint8Array, deadline?: number, multiplexable = false): Promise<Buffer | undefined> {
    const conn = this.conn;
    if (conn !== undefined) return this.send(conn, path, message, deadline, multiplexable);
    return this.ready(deadline).then((c) => this.send(c, path, message, deadline, multiplexable));
  }

  private send(conn: Connection, path: string, message: Uint8Array, deadline: number | undefined, multiplexable: boolean): Promise<Buffer | undefined> {
    if (multiplexable && this.callMux && message.length <= MUX_MAX_REQUEST_BYTES) {
      const mux = this.muxOf(conn);
      if (mux?.state === "open") {
        this.multiplexed++;
        return mux.call(path, message, deadline);
      }
    }
    return this.request(conn, path, message, deadline);
  }

  /** The session's multiplexer: opened on first use; undefined where the server has none. */
  private muxOf(conn: Connection): CallMuxStream | undefined {
    if (conn.mux !== undefined || conn.muxUnsupported || conn.session.closed || conn.session.destroyed) return conn.mux;
    try {
      conn.mux = new CallMuxStream(conn.session, {
        fail: (code, details) => this.fail(code, details),
        hold: () => conn.hold(),
        release: () => conn.release(),
        closed: (unsupported) => {
          conn.mux = undefined;
          if (unsupported) conn.muxUnsupported = true;
        },
      });
    } catch {
      return undefined; // the session is going away: the call takes the unary path, which reports it
    }
    return undefined;
  }

  /** Resolves once a session is established; keeps trying until `deadline` (ms since the epoch). */
  async waitForReady(deadline: number): Promise<void> {
    for (;;) {
      try {
        await this.ready(deadline);
        return;
      } catch (err) {
        if (this.closed || Date.now() >= deadline) throw err;
        await new Promise((r) => setTimeout(r, Math.max(1, Math.min(this.retryAt, deadline) - Date.now())));
      }
    }
  }

  /** Ends the session once its calls are done; later calls fail with CANCELLED. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.conn?.close();
    this.conn = undefined;
    this.connector.destroy();
  }

  private fail(code: GrpcStatus, details: string): EtcdCallError {
    return new EtcdCallError(code, details, this.target);
  }

  private noConnection(): EtcdCallError {
    return this.fail(GrpcStatus.UNAVAILABLE, `No connection established. Last error: ${this.lastError}`);
  }

  /** The established session, a connection in progress, or a new attempt (unless backing off). */
  private ready(deadline?: number): Promise<Connection> {
    if (this.closed) return Promise.reject(this.fail(GrpcStatus.CANCELLED, "Channel has been shut down"));
    if (this.conn !== undefined) return Promise.resolve(this.conn);
    if (this.connecting === undefined) {
      if (Date.now() < this.retryAt) return Promise.reject(this.noConnection());
      this.connecting = this.connect().then(
        (conn) => {
          this.connecting = undefined;
          this.backoffMs = this.initialBackoffMs;
          if (this.closed) {
            conn.close();
            throw this.fail(GrpcStatus.CANCELLED, "Channel has been shut down");
          }
          this.conn = conn;
          return conn;
        },
        (err: unknown) => {
          this.connecting = undefined;
          this.lastError = errorMessage(err);
          this.retryAt = Date.now() + this.backoffMs;
          this.backoffMs = Math.min(this.backoffMs * 1.6, this.maxBackoffMs);
          throw this.noConnection();
        },
      );
    }
    const connecting = this.connecting;
    if (deadline === undefined) return connecting;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(this.fail(GrpcStatus.DEADLINE_EXCEEDED, "Deadline exceeded while connecting")), Math.max(0, deadline - Date.now()));
      connecting.then(
        (c) => {
          clearTimeout(timer);
          resolve(c);
        },
        (err: unknown) => {
          clearTimeout(timer);
          reject(err);
        },
      );
    });
  }

  /** TCP, the credentials' TLS, then an HTTP/2 session that has received the server's SETTINGS. */
  private async connect(): Promise<Connection> {
    const started = Date.now();
    let timer: NodeJS.Timeout | undefined;
    let socket: Socket | undefined;
    let session: ClientHttp2Session | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`connection attempt timed out after ${Date.now() - started} ms`)), this.connectTimeoutMs);
    });
    let abandoned = false;
    // An attempt abandoned by the timeout destroys what it opens later.
    const keep = <T extends { destroy(): void }>(x: T, set: (x: T) => void): T => {
      set(x);
      if (abandoned) {
        x.destroy();
        throw new Error("connection attempt abandoned");
      }
      return x;
    };
    try {
      return await Promise.race([timeout, this.establish((s) => keep(s, (v) => (socket = v)), (s) => keep(s, (v) => (session = v)))]);
    } catch (err) {
      abandoned = true;
      session?.destroy();
      socket?.destroy();
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  private async establish(onSocket: (s: Socket) => void, onSession: (s: ClientHttp2Session) => void): Promise<Connection> {
    await this.connector.waitForReady();
    const { host, port } = hostPort(this.target);
    const tcp = await tcpConnect(host, port);
    onSocket(tcp);
    const secured = await this.connector.connect(tcp);
    onSocket(secured.socket);
    const session = http2.connect(`${secured.secure ? "https" : "http"}://${this.target}`, {
      createConnection: () => secured.socket,
      settings: { initialWindowSize: STREAM_WINDOW },
      maxSessionMemory: Number.MAX_SAFE_INTEGER,
    });
    onSession(session);
    // A refusal after the handshake (e.g. a TLS 1.3 server rejecting the client certificate) closes the socket.
    const socket = secured.socket;
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error) => reject(err);
      const onClose = () => reject(new Error("connection closed before the server's settings"));
      session.once("error", onError);
      session.once("close", onClose);
      socket.once("error", onError);
      socket.once("close", onClose);
      session.once("remoteSettings", () => {
        session.removeListener("error", onError);
        session.removeListener("close", onClose);
        socket.removeListener("error", onError);
        socket.removeListener("close", onClose);
        resolve();
      });
    });
    session.setLocalWindowSize(SESSION_WINDOW);
    const conn = new Connection(session);
    const drop = () => {
      if (this.conn === conn) this.conn = undefined;
    };
    session.on("goaway", () => {
      drop();
      conn.close();
    });
    session.on("error", drop);
    session.on("close", drop);
    session.unref();
    return conn;
  }

  private request(conn: Connection, path: string, message: Uint8Array, deadline: number | undefined): Promise<Buffer | undefined> {
    let left = 0;
    if (deadline !== undefined) {
      left = deadline - Date.now();
      if (left <= 0) return Promise.reject(this.fail(GrpcStatus.DEADLINE_EXCEEDED, "Deadline exceeded"));
    }
    const { session } = conn;
    let stream: ClientHttp2Stream;
    try {
      stream = session.request(requestHeaders(path, deadline === undefined ? undefined : grpcTimeout(left)), REQUEST_OPTIONS);
    } catch (err) {
      // Nothing was sent: the session is closing or gone.
      if (this.conn === conn) this.conn = undefined;
      return Promise.reject(this.fail(GrpcStatus.UNAVAILABLE, `No connection established. Last error: ${errorMessage(err)}`));
    }
    conn.hold();
    return new Promise((resolve, reject) => {
      const call = new UnaryCall(this, conn, stream, resolve, reject);
      (stream as CallStream)[CALL] = call;
      if (deadline !== undefined) call.timer = setTimeout(onDeadline, left, call);
      stream.on("response", onResponse);
      stream.on("trailers", onTrailers);
      stream.on("data", onData);
      stream.on("error", onStreamError);
      stream.on("close", onClose);
      stream.end(frameMessage(message));
    });
  }

  /** @internal An EtcdCallError of this channel (for the calls in flight). */
  callError(code: GrpcStatus, details: string): EtcdCallError {
    return this.fail(code, details);
  }
}

/** Request options: the request message follows the headers. */
const REQUEST_OPTIONS = { endStream: false } as const;

/** The request headers of a call (Node copies them into its own header list). */
function requestHeaders(path: string, timeout: string | undefined): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = { ":method": "POST", ":path": path, "content-type": "application/grpc", te: "trailers" };
  if (timeout !== undefined) headers["grpc-timeout"] = timeout;
  return headers;
}

const CALL = Symbol("unaryCall");
type CallStream = ClientHttp2Stream & { [CALL]: UnaryCall };

/**
 * One call in flight: what its stream has told so far. Its stream's listeners are the
 * module's functions below (`this` is the stream), so a call makes no closures.
 */
class UnaryCall {
  settled = false;
  httpStatus: number | undefined;
  status: CallStatus | undefined;
  streamError: Error | undefined;
  first: Buffer | undefined;
  chunks: Buffer[] | undefined;
  timer: NodeJS.Timeout | undefined;

  constructor(
    readonly channel: Http2UnaryChannel,
    readonly conn: Connection,
    readonly stream: ClientHttp2Stream,
    readonly resolve: (body: Buffer | undefined) => void,
    readonly reject: (err: EtcdCallError) => void,
  ) {}

  /** The stream closed: the call ends with its status (or the one its reset implies). */
  finish(): void {
    clearTimeout(this.timer);
    const { conn, channel } = this;
    conn.release();
    if (this.settled) return;
    this.settled = true;
    const st = this.status ?? statusOfReset(this.stream, this.httpStatus, this.streamError, conn.session.destroyed);
    if (st.code !== GrpcStatus.OK) {
      this.reject(channel.callError(st.code, st.details));
      return;
    }
    const body = unframeMessage(this.chunks !== undefined ? Buffer.concat(this.chunks) : (this.first ?? EMPTY));
    if (body === undefined || Buffer.isBuffer(body)) this.resolve(body);
    else this.reject(channel.callError(body.code, body.details));
  }
}

const EMPTY = Buffer.alloc(0);

function onResponse(this: CallStream, h: IncomingHttpHeaders): void {
  const call = this[CALL];
  call.httpStatus = Number(h[":status"]);
  call.status = statusFromHeaders(h);
}

function onTrailers(this: CallStream, h: IncomingHttpHeaders): void {
  const call = this[CALL];
  call.status = statusFromHeaders(h) ?? call.status;
}

function onData(this: CallStream, chunk: Buffer): void {
  const call = this[CALL];
  if (call.first === undefined) call.first = chunk;
  else (call.chunks ??= [call.first]).push(chunk);
}

function onStreamError(this: CallStream, err: Error): void {
  this[CALL].streamError = err;
}

function onClose(this: CallStream): void {
  this[CALL].finish();
}

/** The deadline passed: the call rejects and its stream is cancelled. */
function onDeadline(call: UnaryCall): void {
  call.settled = true;
  call.reject(call.channel.callError(GrpcStatus.DEADLINE_EXCEEDED, "Deadline exceeded"));
  call.stream.close(NGHTTP2_CANCEL);
}
