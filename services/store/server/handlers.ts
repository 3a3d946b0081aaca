/**
 * The store's client API as plain async handlers, one table per etcd v3 service,
 * over one backend: shared by the gRPC server (grpc-server.ts) and the in-process
 * form (../embedded.ts), so both answer every request the same way. Handlers throw
 * GrpcError (or errors toGrpcError maps); streaming handlers take a call object.
 *
 * start() begins lease expiry on the leader (LeaseKeeper) and the periodic corruption
 * check when configured; stop() ends them and the leader forwarding of keep-alives.
 */
import type { EtcdServiceName } from "../../../shared/etcd/proto.ts";
import type { StoreBackend } from "./backend.ts";
import { clusterHandlers } from "./cluster-service.ts";
import { ServerContext, resolveOptions, type GrpcServerOptions } from "./context.ts";
import { kvHandlers } from "./kv-service.ts";
import { LeaderForwarder } from "./lease-forward.ts";
import { LeaseKeeper } from "./lease-keeper.ts";
import { leaseHandlers } from "./lease-service.ts";
import { maintenanceHandlers } from "./maintenance-service.ts";
import { MaintenanceOperations } from "../maintenance/operations.ts";
import { watchHandlers } from "./watch-service.ts";

/** Any handler: unary ones take the request, streaming ones the call. */
export type Handler = (...args: never[]) => unknown;

/** Methods whose handler takes a bidirectional call instead of a request. */
export const STREAMING_METHODS: readonly string[] = ["Watch", "LeaseKeepAlive", "Snapshot"];

export class StoreHandlers {
  readonly context: ServerContext;
  readonly services: Record<EtcdServiceName, Record<string, Handler>>;
  private readonly keeper: LeaseKeeper;
  private readonly forwarder: LeaderForwarder;
  private readonly maintenance: MaintenanceOperations;
  private started = false;

  constructor(backend: StoreBackend, options: GrpcServerOptions = {}) {
    this.context = new ServerContext(backend, resolveOptions(options));
    const ctx = this.context;
    this.keeper = new LeaseKeeper(ctx);
    this.forwarder = new LeaderForwarder(backend, ctx.options.forwardCredentials);
    this.maintenance = new MaintenanceOperations(ctx);
    this.services = {
      KV: kvHandlers(ctx),
      Watch: watchHandlers(ctx),
      Lease: leaseHandlers(ctx, this.keeper, this.forwarder),
      Cluster: clusterHandlers(ctx),
      Maintenance: maintenanceHandlers(ctx, this.maintenance),
    };
  }

  /** Starts lease expiry (idempotent). */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.keeper.start();
    this.maintenance.start();
  }

  stop(): void {
    this.keeper.stop();
    this.maintenance.stop();
    this.forwarder.close();
  }
}
