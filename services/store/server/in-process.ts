/**
 * The store's client API called in process: the same handler tables as the gRPC
 * server (handlers.ts), behind the typed etcd API of shared/etcd, without sockets
 * or serialization. Errors become EtcdCallError exactly as a gRPC client sees them
 * (code and etcd's message; endpoint "in-process").
 *
 * Requests and responses are passed by reference: callers must not modify a
 * buffer after sending it, and copy what they keep from a response.
 */
import { EventEmitter } from "node:events";
import { status } from "@grpc/grpc-js";
import { EtcdCallError } from "../../../shared/etcd/errors.ts";
import {
  METHOD_SERVICES,
  type EtcdApi,
  type EtcdStream,
  type StreamName,
  type StreamRequest,
  type StreamResponse,
  type UnaryName,
  type UnaryRequest,
  type UnaryResponse,
} from "../../../shared/etcd/methods.ts";
import type { BidiCall } from "./bidi-call.ts";
import { toGrpcError } from "./grpc-errors.ts";
import type { Handler, StoreHandlers } from "./handlers.ts";

export const IN_PROCESS_ENDPOINT = "in-process";

function callError(err: unknown): EtcdCallError {
  const e = toGrpcError(err);
  return new EtcdCallError(e.code, e.message, IN_PROCESS_ENDPOINT);
}

/**
 * A bidirectional call between a client (EtcdStream) and a streaming handler
 * (BidiCall). Messages are delivered on the next tick, in order, each way.
 */
class InProcessCall<Req, Res> implements EtcdStream<Req, Res> {
  private readonly client = new EventEmitter();
  readonly server: ServerSide<Req, Res>;
  private done = false;

  constructor() {
    this.server = new ServerSide<Req, Res>(this);
  }

  /** Server to client. */
  deliver(res: Res, delivered: () => void): void {
    process.nextTick(() => {
      delivered();
      if (!this.done) this.client.emit("data", res);
    });
  }

  /** The server ended the call, with an error or not. */
  finish(err?: unknown): void {
    process.nextTick(() => {
      if (this.done) return;
      this.done = true;
      if (err === undefined) this.client.emit("end");
      else this.client.emit("error", callError(err));
      this.server.emit("close");
    });
  }

  write(req: Req): void {
    if (this.done) return;
    process.nextTick(() => {
      if (!this.done) this.server.emit("data", req);
    });
  }

  on(event: "data", listener: (res: Res) => void): this;
  on(event: "error", listener: (err: Error) => void): this;
  on(event: "end", listener: () => void): this;
  on(event: "data" | "error" | "end", listener: ((res: Res) => void) | ((err: Error) => void) | (() => void)): this {
    this.client.on(event, listener);
    return this;
  }

  cancel(): void {
    if (this.done) return;
    this.done = true;
    this.server.emit("cancelled");
    this.server.emit("close");
  }
}

/** The handler's side of an in-process call. */
class ServerSide<Req, Res> extends EventEmitter implements BidiCall<Req, Res> {
  writableLength = 0;
  writableEnded = false;

  constructor(private readonly call: InProcessCall<Req, Res>) {
    super();
  }

  write(res: Res): boolean {
    if (this.writableEnded) return false;
    this.writableLength++;
    this.call.deliver(res, () => {
      this.writableLength--;
      if (this.writableLength === 0) super.emit("drain");
    });
    return true;
  }

  end(): void {
    if (this.writableEnded) return;
    this.writableEnded = true;
    this.call.finish();
  }

  /** An "error" emitted by the handler ends the call with it at the client (as grpc-js sends the status). */
  override emit(event: string | symbol, ...args: unknown[]): boolean {
    if (event === "error") {
      this.writableEnded = true;
      this.call.finish(args[0]);
    }
    return super.emit(event, ...args);
  }
}

export class InProcessEtcd implements EtcdApi {
  private closed = false;

  constructor(private readonly handlers: StoreHandlers) {}

  async unary<M extends UnaryName>(method: M, req: UnaryRequest<M>): Promise<UnaryResponse<M>> {
    if (this.closed) throw new EtcdCallError(status.CANCELLED, "client closed", IN_PROCESS_ENDPOINT);
    const handler = this.handler(method);
    if (handler === undefined) throw new EtcdCallError(status.UNIMPLEMENTED, `etcdserver: ${method} is not supported by this store`, IN_PROCESS_ENDPOINT);
    const fn = handler as (req: UnaryRequest<M>) => Promise<UnaryResponse<M>>;
    try {
      return await fn(req);
    } catch (err) {
      throw callError(err);
    }
  }

  stream<M extends StreamName>(method: M): EtcdStream<StreamRequest<M>, StreamResponse<M>> {
    const call = new InProcessCall<StreamRequest<M>, StreamResponse<M>>();
    const handler = this.handler(method);
    if (handler === undefined) throw new Error(`no streaming handler for ${method}`);
    const fn = handler as (call: BidiCall<StreamRequest<M>, StreamResponse<M>>) => void;
    fn(call.server);
    return call;
  }

  private handler(method: UnaryName | StreamName): Handler | undefined {
    const table: Record<string, Handler> = this.handlers.services[METHOD_SERVICES[method]];
    return table[method];
  }

  close(): void {
    this.closed = true;
  }
}
