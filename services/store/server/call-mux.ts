/**
 * The store's call multiplexer (shared/etcd/call-mux-wire.ts): unary calls carried over
 * one gRPC bidirectional stream, served by the same method table and outcomes
 * (runUnary) as unary-http2.ts.
 *
 * Contracts:
 * - served: a POST to CALL_MUX_PATH with content-type application/grpc(+…) and no
 *   grpc-encoding other than identity; anything else is declined (grpc-js answers it);
 * - the answer headers go out at once; each call gets one answer with its id as soon as
 *   its handler settles, in any order: the method's response, or the status a unary
 *   call would end with (toGrpcError; an unknown method: UNIMPLEMENTED; a request that
 *   does not decode: INTERNAL "Error deserializing request");
 * - a call longer than maxReceiveBytes (plus its envelope) is answered RESOURCE_EXHAUSTED
 *   "Received message larger than max (n vs. max)" unrun, as a unary call is, and its bytes
 *   are skipped, not buffered; a compressed message, or one that is not a MuxCall, ends
 *   the stream with that error in its trailers (calls already running are not answered);
 * - at most MAX_IN_FLIGHT calls run per stream: calls read beyond it wait, and the
 *   stream is not read while any wait (HTTP/2 flow control holds the client back);
 * - after the trailers the client ends its side (what it sends meanwhile is not read);
 * - when the client ends its side, or the server drains (closing), the stream ends with
 *   status 0 after the last answer; a call read while draining is answered UNAVAILABLE
 *   "Stream refused by server" without being run;
 * - a stream the client reset or that closed is never written to.
 */
import { constants, type IncomingHttpHeaders, type ServerHttp2Stream } from "node:http2";
import { status } from "@grpc/grpc-js";
import { CALL_MUX_PATH, FrameReader, MuxWireError, decodeMuxCall, encodeMuxAnswer, leadingId, type Oversized } from "../../../shared/etcd/call-mux-wire.ts";
import { OK_HEADERS, isPlainGrpcPost, runUnary, type UnaryMethod, type UnaryOutcome } from "./unary-http2.ts";

/** Calls running at once on one stream before it stops being read. */
export const MAX_IN_FLIGHT = 1024;

/** Bytes a MuxCall adds around its request (id, method path, tags and lengths), generously. */
const ENVELOPE_BYTES = 1024;


/** One multiplexed stream being served. */
class MuxSession {
  private readonly reader: FrameReader;
  private readonly maxBytes: number;
  private inFlight = 0;
  private clientEnded = false;
  /** Trailers are due: nothing more is written but them. */
  private ending = false;
  private paused = false;
  /** Calls read but not yet run (the in-flight bound was reached). */
  private readonly queue: Array<Buffer | Oversized> = [];
  private draining = false;

  constructor(
    private readonly server: CallMuxServer,
    private readonly stream: ServerHttp2Stream,
    maxReceiveBytes: number,
  ) {
    this.maxBytes = maxReceiveBytes + ENVELOPE_BYTES;
    this.reader = new FrameReader(this.maxBytes);
    stream.respond(OK_HEADERS, { endStream: false, waitForTrailers: true });
    stream.on("error", () => undefined);
    stream.on("data", (chunk: Buffer) => this.onData(chunk));
    stream.once("end", () => {
      this.clientEnded = true;
      this.maybeEnd();
    });
  }

  private get writable(): boolean {
    return !this.ending && !this.stream.closed && !this.stream.destroyed;
  }

  /** The server is closing: calls that arrive from now on are refused unrun, and the stream ends after the last answer. */
  drain(): void {
    this.draining = true;
    this.maybeEnd();
  }

  private onData(chunk: Buffer): void {
    if (this.ending) return;
    let messages: Array<Buffer | Oversized>;
    try {
      messages = this.reader.push(chunk);
    } catch (err) {
      return this.endWith(status.INTERNAL, `Received a ${(err as Error).message}`);
    }
    for (const m of messages) this.queue.push(m);
    this.runQueued();
  }

  /** Runs queued calls up to the in-flight bound; the stream is read only while none wait. */
  private runQueued(): void {
    while (this.queue.length > 0 && this.inFlight < MAX_IN_FLIGHT && !this.ending) {
      const m = this.queue.shift() as Buffer | Oversized;
      if (!Buffer.isBuffer(m)) {
        // As a unary call too large is refused: that call alone, unrun.
        const id = leadingId(m.head);
        const message = `Received message larger than max (${m.length} vs. ${this.maxBytes})`;
        if (id === undefined) return this.endWith(status.RESOURCE_EXHAUSTED, message);
        this.answer(id, status.RESOURCE_EXHAUSTED, message);
        continue;
      }
      let call: ReturnType<typeof decodeMuxCall>;
      try {
        call = decodeMuxCall(m);
      } catch (err) {
        return this.endWith(status.INTERNAL, `Error deserializing call: ${err instanceof MuxWireError ? err.message : String(err)}`);
      }
      this.run(call.id, call.method, call.request);
    }
    const full = this.queue.length > 0;
    if (full !== this.paused && this.writable) {
      this.paused = full;
      if (full) this.stream.pause();
      else this.stream.resume();
    }
  }

  private run(id: number, path: string, request: Buffer): void {
    // The same words as an HTTP/2 stream refused unprocessed: the caller may send it again elsewhere.
    if (this.draining) return this.answer(id, status.UNAVAILABLE, "Stream refused by server");
    const method = this.server.methods.get(path);
    if (method === undefined) return this.answer(id, status.UNIMPLEMENTED, `The server does not implement the method ${path}`);
    this.inFlight++;
    void runUnary(method, path, request, this.server.onInternal).then((o) => this.settled(id, o));
  }

  private settled(id: number, o: UnaryOutcome): void {
    this.inFlight--;
    this.answer(id, o.code, o.message, o.response);
    if (this.queue.length > 0) this.runQueued();
    this.maybeEnd();
  }

  private answer(id: number, code: status, message: string, response?: Buffer): void {
    if (!this.writable) return;
    this.server.answered++;
    this.stream.write(encodeMuxAnswer(id, code, message, response));
  }

  private maybeEnd(): void {
    if ((this.clientEnded || this.draining) && this.inFlight === 0 && this.queue.length === 0) this.endWith(status.OK, "OK");
  }

  /** Ends the stream with a status in its trailers; later answers are dropped. */
  private endWith(code: status, message: string): void {
    if (!this.writable) return;
    this.ending = true;
    const stream = this.stream;
    stream.once("wantTrailers", () => stream.sendTrailers({ "grpc-status": String(code), "grpc-message": encodeURI(message) }));
    stream.end();
  }
}

export class CallMuxServer {
  /** Calls answered over multiplexed streams (tests check that the path is taken). */
  answered = 0;
  private readonly sessions = new Set<MuxSession>();

  constructor(
    readonly methods: ReadonlyMap<string, UnaryMethod>,
    private readonly maxReceiveBytes: number,
    readonly onInternal: (path: string, err: unknown) => void,
  ) {}

  /** Serves the stream when it opens the call multiplexer; false: declined. */
  serve(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): boolean {
    if (headers[constants.HTTP2_HEADER_PATH] !== CALL_MUX_PATH || !isPlainGrpcPost(headers)) return false;
    const session = new MuxSession(this, stream, this.maxReceiveBytes);
    this.sessions.add(session);
    stream.once("close", () => this.sessions.delete(session));
    return true;
  }

  /** Ends every stream once its running calls are answered (the server is closing). */
  drain(): void {
    for (const s of this.sessions) s.drain();
  }
}
