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
 *   codecs of kv-wire/ (the same bytes as the generic codec).
 */
import { Server, ServerCredentials, type sendUnaryData, type ServerUnaryCall, type UntypedServiceImplementation } from "@grpc/grpc-js";
import type { StoreBackend } from "./backend.ts";
import { GRPC_OVERHEAD_BYTES, type GrpcServerOptions, type ServerContext } from "./context.ts";
import { toGrpcError, toServiceError } from "./grpc-errors.ts";
import { StoreHandlers, STREAMING_METHODS, type Handler } from "./handlers.ts";
import { kvServiceDefinition } from "./kv-wire/service.ts";
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

export class StoreGrpcServer {
  readonly context: ServerContext;
  private readonly server: Server;
  private readonly handlers: StoreHandlers;

  constructor(backend: StoreBackend, options: GrpcServerOptions = {}) {
    this.handlers = new StoreHandlers(backend, options);
    this.context = this.handlers.context;
    const ctx = this.context;
    this.server = new Server({
      "grpc.max_receive_message_length": ctx.options.maxRequestBytes + GRPC_OVERHEAD_BYTES,
      "grpc.max_send_message_length": -1,
      "grpc.keepalive_permit_without_calls": 1,
    });
    for (const name of SERVICES) this.server.addService(name === "KV" ? kvServiceDefinition() : serviceDefinition(name), unaryService(ctx, this.handlers.services[name]));
  }

  /** Listens on host:port (port 0: any free port) with the credentials (default plaintext); resolves with the bound port. */
  async listen(hostPort: string, credentials: ServerCredentials = ServerCredentials.createInsecure()): Promise<number> {
    const port = await new Promise<number>((resolve, reject) => {
      this.server.bindAsync(hostPort, credentials, (err, p) => (err ? reject(err) : resolve(p)));
    });
    this.handlers.start();
    return port;
  }

  /** Stops lease expiry and closes every call; waits briefly for a graceful close. */
  async close(graceMs = 2000): Promise<void> {
    this.handlers.stop();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.server.forceShutdown();
        resolve();
      }, graceMs);
      this.server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
