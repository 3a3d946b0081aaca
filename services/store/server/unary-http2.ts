/**
 * Unary gRPC calls served straight from node:http2 streams, without grpc-js's
 * per-call machinery (metadata objects, interceptor chain, deadline timer, read
 * queue, two writes and a callback per answer). The store's gRPC server hands
 * every stream to `serve` first; what it declines goes to grpc-js.
 *
 * Contracts (the gRPC HTTP/2 protocol as grpc-js's server speaks it):
 * - served: a POST to a registered method's path with content-type application/grpc
 *   (or application/grpc+…) and no grpc-encoding other than identity; anything
 *   else is declined (grpc-js answers it: 415, compression, unknown paths);
 * - the request is one length-prefixed message of at most maxReceiveBytes, else
 *   RESOURCE_EXHAUSTED "Received message larger than max (n vs. max)" as soon as its
 *   length prefix arrives (nothing beyond one message is buffered); none, two or
 *   a compressed one: UNIMPLEMENTED/INTERNAL as grpc-js; a body that does not
 *   decode: INTERNAL "Error deserializing request";
 * - success: headers (200, application/grpc+proto, identity encodings), the one
 *   message and trailers grpc-status 0 / grpc-message OK, written in one turn;
 *   failure: a trailers-only answer with the handler's error mapped by toGrpcError;
 * - a stream the client reset or that closed is never written to; the deadline
 *   (grpc-timeout) is the client's to enforce.
 */
import { constants, type IncomingHttpHeaders, type ServerHttp2Stream } from "node:http2";
import { status } from "@grpc/grpc-js";
import { frameMessage } from "../../../shared/etcd/grpc-frame.ts";
import { toGrpcError } from "./grpc-errors.ts";

/** One unary method: its request decoder, handler and response encoder. */
export interface UnaryMethod {
  decode(buf: Buffer): unknown;
  handle(req: unknown): Promise<unknown>;
  encode(res: unknown): Buffer;
}

/** Response headers of a call answered with messages (the unary answer, the call multiplexer's stream). */
export const OK_HEADERS = {
  [constants.HTTP2_HEADER_STATUS]: 200,
  [constants.HTTP2_HEADER_CONTENT_TYPE]: "application/grpc+proto",
  "grpc-accept-encoding": "identity,deflate,gzip",
  "grpc-encoding": "identity",
};
const OK_TRAILERS = { "grpc-status": "0", "grpc-message": "OK" };
/**
 * `endStream` is given although false: node's `respond` copies its options with a spread
 * and then sets `endStream`, and on node 20 a copy given a key the spread did not bring
 * gets a hidden class of its own, on every call (see withOwn in shared/schema/values.ts).
 */
const RESPOND_OPTIONS = { endStream: false, waitForTrailers: true };
const PREFIX = 5;

/** A unary call's outcome: its encoded response (code OK), or the status the call ends with. */
export interface UnaryOutcome {
  code: status;
  message: string;
  response?: Buffer;
}

/** A gRPC POST this server reads itself: content-type application/grpc(+…) and no encoding other than identity. */
export function isPlainGrpcPost(headers: IncomingHttpHeaders): boolean {
  const type = headers[constants.HTTP2_HEADER_CONTENT_TYPE];
  if (headers[constants.HTTP2_HEADER_METHOD] !== "POST" || typeof type !== "string" || !type.startsWith("application/grpc")) return false;
  const encoding = headers["grpc-encoding"];
  return encoding === undefined || encoding === "identity";
}

/**
 * Runs `method` on one request message: decode, handle, encode. A request that does not
 * decode is INTERNAL "Error deserializing request"; a handler's error is mapped by
 * toGrpcError; INTERNAL failures of the handler or the encoder go to `onInternal` too.
 */
export function runUnary(method: UnaryMethod, path: string, request: Buffer, onInternal: (path: string, err: unknown) => void): Promise<UnaryOutcome> {
  let req: unknown;
  try {
    req = method.decode(request);
  } catch {
    return Promise.resolve({ code: status.INTERNAL, message: "Error deserializing request" });
  }
  let pending: Promise<unknown>;
  try {
    pending = method.handle(req);
  } catch (err) {
    pending = Promise.reject(err);
  }
  return pending.then(
    (res): UnaryOutcome => {
      try {
        return { code: status.OK, message: "", response: method.encode(res) };
      } catch (err) {
        onInternal(path, err);
        return { code: status.INTERNAL, message: "Error serializing response" };
      }
    },
    (err: unknown): UnaryOutcome => {
      const e = toGrpcError(err);
      if (e.code === status.INTERNAL) onInternal(path, err);
      return { code: e.code, message: e.message };
    },
  );
}

export class UnaryHttp2Router {
  /** Calls answered on this path (tests check that the path is taken). */
  served = 0;

  constructor(
    private readonly methods: ReadonlyMap<string, UnaryMethod>,
    private readonly maxReceiveBytes: number,
    private readonly onInternal: (path: string, err: unknown) => void,
  ) {}

  /** Serves the stream when it is a plain unary call to a registered method; false: declined. */
  serve(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): boolean {
    const path = headers[constants.HTTP2_HEADER_PATH];
    const method = typeof path === "string" ? this.methods.get(path) : undefined;
    if (method === undefined || typeof path !== "string" || !isPlainGrpcPost(headers)) return false;
    this.served++;
    this.read(stream, path, method);
    return true;
  }

  private read(stream: ServerHttp2Stream, path: string, method: UnaryMethod): void {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    let declared = -1;
    stream.on("error", () => undefined);
    stream.on("data", (chunk: Buffer) => {
      if (failed) return;
      chunks.push(chunk);
      size += chunk.length;
      if (declared < 0 && size >= PREFIX) {
        declared = (chunks.length === 1 ? chunk : Buffer.concat(chunks)).readUInt32BE(1);
        if (declared > this.maxReceiveBytes) {
          failed = true;
          this.fail(stream, status.RESOURCE_EXHAUSTED, `Received message larger than max (${declared} vs. ${this.maxReceiveBytes})`);
        }
      }
      // Bytes past the one message: refused now, so that nothing more is buffered.
      if (!failed && declared >= 0 && size > PREFIX + declared) {
        failed = true;
        this.fail(stream, status.UNIMPLEMENTED, `Received a second request message for server streaming method ${path}`);
      }
    });
    stream.once("end", () => {
      if (failed) return;
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
      this.call(stream, path, method, body);
    });
  }

  private call(stream: ServerHttp2Stream, path: string, method: UnaryMethod, body: Buffer): void {
    if (body.length < PREFIX) return this.fail(stream, status.UNIMPLEMENTED, `Received no request message for server streaming method ${path}`);
    const length = body.readUInt32BE(1);
    if (body.length > PREFIX + length) return this.fail(stream, status.UNIMPLEMENTED, `Received a second request message for server streaming method ${path}`);
    if (body.length < PREFIX + length) return this.fail(stream, status.INTERNAL, "Incomplete request message");
    if (body[0] !== 0) return this.fail(stream, status.INTERNAL, "Received a compressed message without grpc-encoding");
    void runUnary(method, path, body.subarray(PREFIX), this.onInternal).then((o) => (o.code === status.OK ? this.answer(stream, o.response as Buffer) : this.fail(stream, o.code, o.message)));
  }

  private answer(stream: ServerHttp2Stream, message: Buffer): void {
    if (stream.closed || stream.destroyed) return;
    stream.respond(OK_HEADERS, RESPOND_OPTIONS);
    stream.once("wantTrailers", () => stream.sendTrailers(OK_TRAILERS));
    stream.end(frameMessage(message));
  }

  /** A trailers-only answer. */
  private fail(stream: ServerHttp2Stream, code: status, message: string): void {
    if (stream.closed || stream.destroyed || stream.headersSent) return;
    stream.respond(
      {
        [constants.HTTP2_HEADER_STATUS]: 200,
        [constants.HTTP2_HEADER_CONTENT_TYPE]: "application/grpc+proto",
        "grpc-status": String(code),
        "grpc-message": encodeURI(message),
      },
      { endStream: true },
    );
  }
}
