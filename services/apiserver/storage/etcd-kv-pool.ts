/**
 * The store members a replica talks to, each through the typed etcd v3 API of
 * shared/etcd (an EtcdClient per endpoint: unary calls over its lean HTTP/2 channel,
 * streams over grpc-js; or one in-process member), with
 * failover: a call that fails because its member is unreachable or has no leader
 * moves on to the next one and is retried (with backoff, within a retry budget).
 *
 * Retry policy: idempotent calls (reads) are retried on UNAVAILABLE and
 * DEADLINE_EXCEEDED. Writes are retried only when the failure proves nothing was
 * proposed (no connection was made, or the store said "no leader"); an ambiguous
 * failure (timeout, connection lost mid-call) is returned to the caller, which
 * resolves whether the write committed before answering (write-outcome.ts).
 */
import type { ChannelCredentials } from "@grpc/grpc-js";
import { EtcdClient } from "../../../shared/etcd/client.ts";
import { EtcdCallError, GrpcStatus } from "../../../shared/etcd/errors.ts";
import type { EtcdApi, EtcdStream, StreamName, StreamRequest, StreamResponse, UnaryName, UnaryRequest, UnaryResponse } from "../../../shared/etcd/methods.ts";
import type { RevisionReadBatcherOptions } from "./revision-batcher.ts";

export const DEFAULT_RETRY_BUDGET_MS = 15_000;

export interface EtcdKvOptions {
  /** Deadline of each unary call (default 10 s). */
  callTimeoutMs?: number;
  /** Total time spent retrying one call across endpoints (default 15 s). */
  retryBudgetMs?: number;
  /** How `currentRevision()` shares its reads (revision-batcher.ts; default: one in flight, sent at the end of the turn). */
  revisionReads?: RevisionReadBatcherOptions;
}

/** A member to call: its name in errors and its API. */
export interface StoreMember {
  endpoint: string;
  api: EtcdApi;
}

// "Connection dropped" is not here: the request may have reached the leader before the connection closed.
// A stream refused by the server (HTTP/2 REFUSED_STREAM) was not processed (RFC 9113 8.7).
const NOT_PROPOSED = /no leader|ECONNREFUSED|No connection established|failed to connect|connect ECONN|Stream refused by server/i;

/** Whether an UNAVAILABLE failure's message proves the request was never proposed (no connection, no leader). */
export function provesNotProposed(details: string): boolean {
  return NOT_PROPOSED.test(details);
}

function retryable(err: EtcdCallError, idempotent: boolean): boolean {
  if (err.code === GrpcStatus.UNAVAILABLE) return idempotent || provesNotProposed(err.details);
  if (err.code === GrpcStatus.DEADLINE_EXCEEDED) return idempotent;
  return false;
}

/** gRPC members for the given endpoints (host:port or URLs); TLS with `channelCredentials`. */
export function grpcMembers(endpoints: readonly string[], channelCredentials?: ChannelCredentials): StoreMember[] {
  return endpoints.map((e) => {
    const api = new EtcdClient(e, { "grpc.initial_reconnect_backoff_ms": 100, "grpc.max_reconnect_backoff_ms": 1000 }, channelCredentials);
    return { endpoint: api.endpoint, api };
  });
}

export class EndpointPool {
  readonly endpoints: string[];
  private current = 0;
  private closed = false;
  private readonly callTimeoutMs: number;
  private readonly retryBudgetMs: number;

  constructor(
    private readonly members: readonly StoreMember[],
    opts: EtcdKvOptions = {},
  ) {
    if (members.length === 0) throw new Error("store client: no endpoints");
    this.endpoints = members.map((m) => m.endpoint);
    this.callTimeoutMs = opts.callTimeoutMs ?? 10_000;
    this.retryBudgetMs = opts.retryBudgetMs ?? DEFAULT_RETRY_BUDGET_MS;
  }

  private get member(): StoreMember {
    return this.members[this.current % this.members.length];
  }

  /** The endpoint calls go to now. */
  get endpoint(): string {
    return this.member.endpoint;
  }

  /** Moves to the next endpoint (after a failure on `failed`, if it is still the current one). */
  failover(failed: string): void {
    if (this.endpoint === failed) this.current = (this.current + 1) % this.members.length;
  }

  /** One unary call with failover; rejects with EtcdCallError. */
  async unary<M extends UnaryName>(method: M, req: UnaryRequest<M>, idempotent: boolean): Promise<UnaryResponse<M>> {
    const deadline = Date.now() + this.retryBudgetMs;
    for (let attempt = 0; ; attempt++) {
      if (this.closed) throw new EtcdCallError(GrpcStatus.CANCELLED, "client closed", "");
      const { endpoint, api } = this.member;
      try {
        // No attempt outlives the retry budget: a member that does not answer costs at most the budget.
        return await api.unary(method, req, { deadline: Math.min(Date.now() + this.callTimeoutMs, deadline) });
      } catch (err) {
        if (!(err instanceof EtcdCallError) || !retryable(err, idempotent)) throw err;
        this.failover(endpoint);
        // A full round over every endpoint failed: back off before the next round.
        const round = Math.floor((attempt + 1) / this.members.length);
        const wait = (attempt + 1) % this.members.length === 0 ? Math.min(50 * 2 ** round, 1000) : 0;
        if (Date.now() + wait >= deadline) throw err;
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
    }
  }

  /** Opens a bidirectional stream on the current endpoint. */
  stream<M extends StreamName>(method: M): { stream: EtcdStream<StreamRequest<M>, StreamResponse<M>>; endpoint: string } {
    const { endpoint, api } = this.member;
    return { stream: api.stream(method), endpoint };
  }

  close(): void {
    this.closed = true;
    for (const m of this.members) m.api.close();
  }
}
