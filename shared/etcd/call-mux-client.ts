/**
 * The client end of the store's call multiplexer (call-mux-wire.ts): one stream on an
 * HTTP/2 session that carries unary calls, each matched to its answer by id.
 *
 * Contracts:
 * - the stream is usable (`state` "open") once the server's answer headers arrived
 *   without a status; a trailers-only answer closes it, and UNIMPLEMENTED marks it
 *   `unsupported` (a server without the service: the caller sends unary calls instead;
 *   no call was sent before "open");
 * - a call resolves with its response message or rejects with its status as a unary
 *   call would (EtcdCallError through `fail`); its deadline rejects it with
 *   DEADLINE_EXCEEDED, and a late answer is ignored;
 * - the server's trailers end the stream: the client ends its side at once;
 * - when the stream closes, every call still waiting rejects with UNAVAILABLE
 *   "Connection dropped" (it may have run: the same ambiguity as a dropped unary call);
 * - `hold`/`release` are called once per call, when it starts and when it settles.
 */
import http2, { type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders } from "node:http2";
import { CALL_MUX_PATH, FrameReader, decodeMuxAnswer, encodeMuxCall } from "./call-mux-wire.ts";
import { GrpcStatus, type EtcdCallError } from "./errors.ts";
import { statusFromHeaders } from "./grpc-frame.ts";

const { NGHTTP2_CANCEL } = http2.constants;

/** Largest answer accepted (the unary channel sets no limit either; this only bounds a corrupt length). */
const MAX_ANSWER_BYTES = 2 ** 31 - 1;

const OPEN_HEADERS = { ":method": "POST", ":path": CALL_MUX_PATH, "content-type": "application/grpc", te: "trailers" };

interface Waiting {
  resolve: (body: Buffer) => void;
  reject: (err: EtcdCallError) => void;
  timer: NodeJS.Timeout | undefined;
}

export interface CallMuxHooks {
  fail(code: GrpcStatus, details: string): EtcdCallError;
  hold(): void;
  release(): void;
  /** The stream closed (`unsupported`: the server has no multiplexer). */
  closed(unsupported: boolean): void;
}

export class CallMuxStream {
  state: "opening" | "open" | "closed" = "opening";
  private readonly stream: ClientHttp2Stream;
  private readonly waiting = new Map<number, Waiting>();
  private readonly reader = new FrameReader(MAX_ANSWER_BYTES);
  private nextId = 1;
  private unsupported = false;

  constructor(
    session: ClientHttp2Session,
    private readonly hooks: CallMuxHooks,
  ) {
    this.stream = session.request(OPEN_HEADERS, { endStream: false });
    this.stream.on("response", (h: IncomingHttpHeaders) => this.onHeaders(h));
    this.stream.on("data", (chunk: Buffer) => this.onData(chunk));
    // The server ended its side (it answers every call it ran first): no new calls go
    // here, and ending ours closes the stream (calls still waiting then end as dropped).
    this.stream.on("trailers", () => {
      this.state = "closed";
      this.end();
    });
    this.stream.on("error", () => undefined);
    this.stream.on("close", () => this.onClose());
  }

  /** One call; only while `state` is "open". */
  call(path: string, message: Uint8Array, deadline: number | undefined): Promise<Buffer> {
    let left = 0;
    if (deadline !== undefined) {
      left = deadline - Date.now();
      if (left <= 0) return Promise.reject(this.hooks.fail(GrpcStatus.DEADLINE_EXCEEDED, "Deadline exceeded"));
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const w: Waiting = { resolve, reject, timer: undefined };
      if (deadline !== undefined) w.timer = setTimeout(() => this.expire(id), left);
      this.waiting.set(id, w);
      this.hooks.hold();
      this.stream.write(encodeMuxCall(id, path, message));
    });
  }

  /** Ends the client's side: the server answers what it runs, then ends the stream. */
  end(): void {
    if (!this.stream.writableEnded && !this.stream.destroyed) this.stream.end();
  }

  private onHeaders(h: IncomingHttpHeaders): void {
    const st = statusFromHeaders(h);
    if (st === undefined && Number(h[":status"]) === 200) {
      this.state = "open";
      return;
    }
    this.unsupported = st?.code === GrpcStatus.UNIMPLEMENTED;
    this.stream.close(NGHTTP2_CANCEL);
  }

  private onData(chunk: Buffer): void {
    try {
      for (const m of this.reader.push(chunk)) {
        if (!Buffer.isBuffer(m)) throw new Error("answer too large");
        const a = decodeMuxAnswer(m);
        const w = this.waiting.get(a.id);
        if (w === undefined) continue; // expired
        this.settle(a.id, w);
        if (a.code === GrpcStatus.OK) w.resolve(a.response);
        else w.reject(this.hooks.fail(a.code as GrpcStatus, a.message));
      }
    } catch {
      // Garbage from the server: the stream is unusable; its calls end as dropped.
      this.stream.close(NGHTTP2_CANCEL);
    }
  }

  private settle(id: number, w: Waiting): void {
    clearTimeout(w.timer);
    this.waiting.delete(id);
    this.hooks.release();
  }

  private expire(id: number): void {
    const w = this.waiting.get(id);
    if (w === undefined) return;
    this.settle(id, w);
    w.reject(this.hooks.fail(GrpcStatus.DEADLINE_EXCEEDED, "Deadline exceeded"));
  }

  private onClose(): void {
    this.state = "closed";
    const left = [...this.waiting];
    for (const [id, w] of left) {
      this.settle(id, w);
      w.reject(this.hooks.fail(GrpcStatus.UNAVAILABLE, "Connection dropped"));
    }
    this.hooks.closed(this.unsupported);
  }
}
