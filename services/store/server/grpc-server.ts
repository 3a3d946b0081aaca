/**
 * The store's client API: the etcd v3 KV, Watch, Lease, Cluster and Maintenance
 * services on @grpc/grpc-js over any StoreBackend (the Raft node, or LocalBackend).
 *
 * Contracts:
 * - every response header carries cluster_id, member_id, revision and raft_term;
 * - errors are etcd's gRPC codes and messages (grpc-errors.ts); a handler never
 *   throws past this file, so bad input cannot crash the process;
 * - messages up to maxRequestBytes + 512 KiB are received (as etcd does), and writes
 *   whose encoded request exceeds maxRequestBytes fail with "request is too large";
 * - the leader of the group (per the backend) expires leases (LeaseKeeper);
 * - KV's Range, Put, DeleteRange and Txn are read and written by the hand-written
 *   codecs of kv-wire/ (the same bytes as the generic codec);
 * - unary calls are served from the HTTP/2 streams of grpc-js's listening servers by
 *   unary-http2.ts (the same answers, without grpc-js's per-call work); the streaming
 *   methods (Watch, LeaseKeepAlive, Snapshot) and whatever it declines go to grpc-js;
 * - the same unary methods are also served multiplexed over one stream (call-mux.ts);
 * - close() ends every connection, also those grpc-js leaves open without channelz.
 */
import type { Http2Server, Http2Session, IncomingHttpHeaders, ServerHttp2Stream } from "node:http2";
import { Server, ServerCredentials, type MethodDefinition, type sendUnaryData, type ServerUnaryCall, type UntypedServiceImplementation } from "@grpc/grpc-js";
import type { StoreBackend } from "./backend.ts";
import { GRPC_OVERHEAD_BYTES, type GrpcServerOptions, type ServerContext } from "./context.ts";
import { toGrpcError, toServiceError } from "./grpc-errors.ts";
import { StoreHandlers, STREAMING_METHODS, type Handler } from "./handlers.ts";
import { kvServiceDefinition } from "./kv-wire/service.ts";
import { CallMuxServer } from "./call-mux.ts";
import { UnaryHttp2Router, type UnaryMethod } from "./unary-http2.ts";
import { serviceDefinition, type EtcdServiceName } from "../../../shared/etcd/proto.ts";

export type { GrpcServerOptions } from "./context.ts";

const SERVICES: readonly EtcdServiceName[] = ["KV", "Watch", "Lease", "Cluster", "Maintenance"];

/** Wraps each async unary handler so its result or its error reaches the callback. */
function unaryService(ctx: ServerContext, handlers: Record<string, Handler>): UntypedServiceImplementation {
  const out: UntypedServiceImplementation = {};
  for (const [name, fn] of Object.entries(handlers)) {
    if (STREAMING_METHODS.includes(name)) {
      out[name] = fn as UntypedServiceImplementation[string];
      continue;
    }
    const unary = fn as (req: unknown) => Promise<unknown>;
    out[name] = (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
      Promise.resolve()
        .then(() => unary(call.request))
        .then(
          (res) => callback(null, res),
          (err: unknown) => {
            const e = toGrpcError(err);
            if (e.code === 13) ctx.options.logger?.error({ method: name, err: String(err) }, "internal error in a store request");
            callback(toServiceError(err));
          },
        );
    };
  }
  return out;
}

/** The unary methods of every service, by path, for the router. */
function unaryMethods(handlers: StoreHandlers): Map<string, UnaryMethod> {
  const out = new Map<string, UnaryMethod>();
  for (const name of SERVICES) {
    const definition = name === "KV" ? kvServiceDefinition() : serviceDefinition(name);
    for (const [method, fn] of Object.entries(handlers.services[name])) {
      const def = definition[method] as MethodDefinition<unknown, unknown> | undefined;
      if (def === undefined || STREAMING_METHODS.includes(method) || def.requestStream || def.responseStream) continue;
      out.set(def.path, { decode: def.requestDeserialize, encode: def.responseSerialize, handle: fn as (req: unknown) => Promise<unknown> });
    }
  }
  return out;
}

type StreamListener = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, ...rest: unknown[]) => void;

export class StoreGrpcServer {
  readonly context: ServerContext;
  /** Unary calls served without grpc-js (unary-http2.ts). */
  readonly router: UnaryHttp2Router;
  /** Unary calls multiplexed over one stream (call-mux.ts). */
  readonly mux: CallMuxServer;
  private readonly server: Server;
  private readonly handlers: StoreHandlers;
  private readonly hooked = new WeakSet<Http2Server>();
  private readonly sessions = new Set<Http2Session>();

  constructor(backend: StoreBackend, options: GrpcServerOptions = {}) {
    this.handlers = new StoreHandlers(backend, options);
    this.context = this.handlers.context;
    const ctx = this.context;
    this.server = new Server({
      "grpc.max_receive_message_length": ctx.options.maxRequestBytes + GRPC_OVERHEAD_BYTES,
      "grpc.max_send_message_length": -1,
      "grpc.keepalive_permit_without_calls": 1,
      // channelz timestamps and counts every call and message; nothing reads it.
      "grpc.enable_channelz": 0,
    });
    const methods = unaryMethods(this.handlers);
    const onInternal = (method: string, err: unknown) => ctx.options.logger?.error({ method, err: String(err) }, "internal error in a store request");
    this.router = new UnaryHttp2Router(methods, ctx.options.maxRequestBytes + GRPC_OVERHEAD_BYTES, onInternal);
    this.mux = new CallMuxServer(methods, ctx.options.maxRequestBytes + GRPC_OVERHEAD_BYTES, onInternal);
    for (const name of SERVICES) this.server.addService(name === "KV" ? kvServiceDefinition() : serviceDefinition(name), unaryService(ctx, this.handlers.services[name]));
  }

  /** Listens on host:port (port 0: any free port) with the credentials (default plaintext); resolves with the bound port. */
  async listen(hostPort: string, credentials: ServerCredentials = ServerCredentials.createInsecure()): Promise<number> {
    const port = await new Promise<number>((resolve, reject) => {
      this.server.bindAsync(hostPort, credentials, (err, p) => (err ? reject(err) : resolve(p)));
    });
    this.hookStreams();
    this.handlers.start();
    return port;
  }

  /**
   * Puts the router in front of grpc-js on each of its listening HTTP/2 servers: a
   * stream the router declines goes to grpc-js's own listeners. grpc-js keeps its
   * servers in a private map; without it (another grpc-js), grpc-js serves every call.
   */
  private hookStreams(): void {
    const servers = (this.server as unknown as { http2Servers?: Map<Http2Server, unknown> }).http2Servers;
    if (!(servers instanceof Map)) {
      this.context.options.logger?.warn("grpc-js keeps no http2Servers map; unary calls go through grpc-js");
      return;
    }
    for (const h2 of servers.keys()) {
      if (this.hooked.has(h2)) continue;
      this.hooked.add(h2);
      const grpcListeners = h2.listeners("stream") as StreamListener[];
      h2.removeAllListeners("stream");
      h2.on("stream", (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, ...rest: unknown[]) => {
        if (this.router.serve(stream, headers) || this.mux.serve(stream, headers)) return;
        for (const listener of grpcListeners) listener.call(h2, stream, headers, ...rest);
      });
      h2.on("session", (session: Http2Session) => {
        this.sessions.add(session);
        session.once("close", () => this.sessions.delete(session));
      });
    }
  }

  /** Stops lease expiry and closes every call; waits briefly for a graceful close. */
  async close(graceMs = 2000): Promise<void> {
    this.handlers.stop();
    this.mux.drain();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.server.forceShutdown();
        for (const session of this.sessions) session.destroy();
        resolve();
      }, graceMs);
      this.server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
