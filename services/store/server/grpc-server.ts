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
 * - the leader of the group (per the backend) expires leases (LeaseKeeper).
 */
import { Server, ServerCredentials, type sendUnaryData, type ServerUnaryCall, type UntypedServiceImplementation } from "@grpc/grpc-js";
import type { StoreBackend } from "./backend.ts";
import { clusterHandlers } from "./cluster-service.ts";
import { GRPC_OVERHEAD_BYTES, ServerContext, resolveOptions, type GrpcServerOptions } from "./context.ts";
import { toGrpcError, toServiceError } from "./grpc-errors.ts";
import { kvHandlers } from "./kv-service.ts";
import { LeaderForwarder } from "./lease-forward.ts";
import { LeaseKeeper } from "./lease-keeper.ts";
import { leaseHandlers } from "./lease-service.ts";
import { maintenanceHandlers } from "./maintenance-service.ts";
import { serviceDefinition } from "./proto.ts";
import { watchHandlers } from "./watch-service.ts";

export type { GrpcServerOptions } from "./context.ts";

type Handler = (...args: never[]) => unknown;

/** Wraps each async unary handler so its result or its error reaches the callback. */
function unaryService(ctx: ServerContext, handlers: Record<string, Handler>, streaming: readonly string[] = []): UntypedServiceImplementation {
  const out: UntypedServiceImplementation = {};
  for (const [name, fn] of Object.entries(handlers)) {
    if (streaming.includes(name)) {
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
  private readonly keeper: LeaseKeeper;
  private readonly forwarder: LeaderForwarder;
  private started = false;

  constructor(backend: StoreBackend, options: GrpcServerOptions = {}) {
    this.context = new ServerContext(backend, resolveOptions(options));
    const ctx = this.context;
    this.keeper = new LeaseKeeper(ctx);
    this.forwarder = new LeaderForwarder(backend);
    this.server = new Server({
      "grpc.max_receive_message_length": ctx.options.maxRequestBytes + GRPC_OVERHEAD_BYTES,
      "grpc.max_send_message_length": -1,
      "grpc.keepalive_permit_without_calls": 1,
    });
    this.server.addService(serviceDefinition("KV"), unaryService(ctx, kvHandlers(ctx)));
    this.server.addService(serviceDefinition("Watch"), unaryService(ctx, watchHandlers(ctx), ["Watch"]));
    this.server.addService(serviceDefinition("Lease"), unaryService(ctx, leaseHandlers(ctx, this.keeper, this.forwarder), ["LeaseKeepAlive"]));
    this.server.addService(serviceDefinition("Cluster"), unaryService(ctx, clusterHandlers(ctx)));
    this.server.addService(serviceDefinition("Maintenance"), unaryService(ctx, maintenanceHandlers(ctx)));
  }

  /** Listens on host:port (port 0: any free port); resolves with the bound port. */
  async listen(hostPort: string): Promise<number> {
    const port = await new Promise<number>((resolve, reject) => {
      this.server.bindAsync(hostPort, ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p)));
    });
    if (!this.started) {
      this.started = true;
      this.keeper.start();
    }
    return port;
  }

  /** Stops lease expiry and closes every call; waits briefly for a graceful close. */
  async close(graceMs = 2000): Promise<void> {
    this.keeper.stop();
    this.forwarder.close();
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
