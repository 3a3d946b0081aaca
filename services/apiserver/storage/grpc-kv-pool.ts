/**
 * gRPC connections to the store's client API on several endpoints, with failover:
 * a call that fails because its endpoint is unreachable or has no leader moves on
 * to the next endpoint and is retried (with backoff, within a retry budget).
 *
 * Retry policy: idempotent calls (reads) are retried on UNAVAILABLE and
 * DEADLINE_EXCEEDED. Writes are retried only when the failure proves nothing was
 * proposed (no connection was made, or the store said "no leader"); an ambiguous
 * failure (timeout, connection lost mid-call) is returned to the caller, whose
 * writes are guarded by revision compares anyway.
 */
import { credentials, status, type CallOptions, type Client, type ClientDuplexStream, type ServiceError } from "@grpc/grpc-js";
import { clientConstructor, grpcTarget, type EtcdServiceName } from "../../store/server/proto.ts";

export interface GrpcKvOptions {
  /** Deadline of each unary call (default 10 s). */
  callTimeoutMs?: number;
  /** Total time spent retrying one call across endpoints (default 15 s). */
  retryBudgetMs?: number;
}

type UnaryMethod = (req: object, options: CallOptions, cb: (err: ServiceError | null, res?: unknown) => void) => unknown;

/** A store error as the gRPC status reported it. */
export class StoreCallError extends Error {
  constructor(
    readonly code: status,
    readonly details: string,
    readonly endpoint: string,
  ) {
    super(`store: ${details}`);
    this.name = "StoreCallError";
  }
}

// "Connection dropped" is not here: the request may have reached the leader before the connection closed.
const NOT_PROPOSED = /no leader|ECONNREFUSED|No connection established|failed to connect|connect ECONN/i;

function retryable(err: StoreCallError, idempotent: boolean): boolean {
  if (err.code === status.UNAVAILABLE) return idempotent || NOT_PROPOSED.test(err.details);
  if (err.code === status.DEADLINE_EXCEEDED) return idempotent;
  return false;
}

export class EndpointPool {
  readonly endpoints: string[];
  private readonly clients = new Map<string, Client>();
  private current = 0;
  private closed = false;
  private readonly callTimeoutMs: number;
  private readonly retryBudgetMs: number;

  constructor(endpoints: readonly string[], opts: GrpcKvOptions = {}) {
    if (endpoints.length === 0) throw new Error("store client: no endpoints");
    this.endpoints = endpoints.map(grpcTarget);
    this.callTimeoutMs = opts.callTimeoutMs ?? 10_000;
    this.retryBudgetMs = opts.retryBudgetMs ?? 15_000;
  }

  private client(service: EtcdServiceName, endpoint: string): Client {
    const key = `${service}@${endpoint}`;
    let c = this.clients.get(key);
    if (c === undefined) {
      const Ctor = clientConstructor(service);
      c = new Ctor(endpoint, credentials.createInsecure(), {
        "grpc.max_receive_message_length": -1,
        "grpc.max_send_message_length": -1,
        "grpc.initial_reconnect_backoff_ms": 100,
        "grpc.max_reconnect_backoff_ms": 1000,
      });
      this.clients.set(key, c);
    }
    return c;
  }

  /** The endpoint calls go to now. */
  get endpoint(): string {
    return this.endpoints[this.current % this.endpoints.length];
  }

  /** Moves to the next endpoint (after a failure on `failed`, if it is still the current one). */
  failover(failed: string): void {
    if (this.endpoint === failed) this.current = (this.current + 1) % this.endpoints.length;
  }

  private once<T>(service: EtcdServiceName, method: string, req: object, endpoint: string): Promise<T> {
    const client = this.client(service, endpoint);
    const fn = (client as unknown as Record<string, UnaryMethod>)[method];
    return new Promise<T>((resolve, reject) => {
      fn.call(client, req, { deadline: Date.now() + this.callTimeoutMs }, (err, res) => {
        if (err !== null) reject(new StoreCallError(err.code ?? status.UNKNOWN, err.details ?? err.message, endpoint));
        else resolve(res as T);
      });
    });
  }

  /** One unary call with failover. */
  async unary<T>(service: EtcdServiceName, method: string, req: object, idempotent: boolean): Promise<T> {
    const deadline = Date.now() + this.retryBudgetMs;
    for (let attempt = 0; ; attempt++) {
      if (this.closed) throw new StoreCallError(status.CANCELLED, "client closed", "");
      const endpoint = this.endpoint;
      try {
        return await this.once<T>(service, method, req, endpoint);
      } catch (err) {
        if (!(err instanceof StoreCallError) || !retryable(err, idempotent)) throw err;
        this.failover(endpoint);
        // A full round over every endpoint failed: back off before the next round.
        const round = Math.floor((attempt + 1) / this.endpoints.length);
        const wait = (attempt + 1) % this.endpoints.length === 0 ? Math.min(50 * 2 ** round, 1000) : 0;
        if (Date.now() + wait > deadline) throw err;
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
    }
  }

  /** Opens a bidirectional stream of a service on the current endpoint. */
  stream<Req, Res>(service: EtcdServiceName, method: string): { stream: ClientDuplexStream<Req, Res>; endpoint: string } {
    const endpoint = this.endpoint;
    const client = this.client(service, endpoint);
    const fn = (client as unknown as Record<string, () => ClientDuplexStream<Req, Res>>)[method];
    return { stream: fn.call(client), endpoint };
  }

  close(): void {
    this.closed = true;
    for (const c of this.clients.values()) c.close();
    this.clients.clear();
  }
}
