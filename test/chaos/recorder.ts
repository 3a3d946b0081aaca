/**
 * Recording key-value client for the chaos tests: every operation goes once (no
 * retries) to one endpoint over the etcd v3 gRPC API and lands in the history with
 * its call and return times (performance.now()) and result.
 *
 * Failures: a failed read did nothing and is dropped. A failed write is *pending*
 * (it may or may not have taken effect) unless the failure proves it was never
 * proposed: the endpoint could not be reached, or the store said it has no leader.
 */
import type { ServiceError } from "@grpc/grpc-js";
import type { Operation } from "../support/linearizability/history.ts";
import type { KvInput, KvOutput } from "../support/linearizability/kv-model.ts";
import { EtcdClient } from "../../shared/etcd/client.ts";
import type { UnaryName, UnaryRequest, UnaryResponse } from "../../shared/etcd/methods.ts";

export type KvOp = Operation<KvInput, KvOutput>;

const NOT_PROPOSED = /etcdserver: no leader|No connection established|ECONNREFUSED|failed to connect/i;

export class History {
  readonly ops: KvOp[] = [];
  /** Failed operations by error text, for the report. */
  readonly errors = new Map<string, number>();
  private nextId = 0;

  newId(): number {
    return this.nextId++;
  }

  noteError(err: ServiceError | Error): void {
    const text = "details" in err && typeof err.details === "string" ? `${err.code}: ${err.details}` : err.message;
    // Group alike failures: no addresses, timings or counts.
    const k = text.replace(/Last error:.*$/, "").replace(/[\d.:]+s?\b/g, "#").replace(/,.*$/, "").slice(0, 80);
    this.errors.set(k, (this.errors.get(k) ?? 0) + 1);
  }
}

export class RecordingClient {
  private readonly clients = new Map<string, EtcdClient>();

  constructor(
    readonly id: number,
    private readonly history: History,
    private readonly timeoutMs: number,
  ) {}

  private client(endpoint: string): EtcdClient {
    let c = this.clients.get(endpoint);
    if (c === undefined) {
      c = new EtcdClient(endpoint, { "grpc.initial_reconnect_backoff_ms": 100, "grpc.max_reconnect_backoff_ms": 500 });
      this.clients.set(endpoint, c);
    }
    return c;
  }

  private call<M extends UnaryName>(endpoint: string, method: M, req: UnaryRequest<M>): Promise<UnaryResponse<M>> {
    return this.client(endpoint).unary(method, req, { deadline: Date.now() + this.timeoutMs });
  }

  /** Runs one operation and records it; returns its output, or undefined when it failed. */
  async run(endpoint: string, input: KvInput): Promise<KvOutput | undefined> {
    const op: KvOp = { id: this.history.newId(), client: this.id, input, called: performance.now() };
    try {
      op.output = await this.send(endpoint, input);
      op.returned = performance.now();
      this.history.ops.push(op);
      return op.output;
    } catch (err) {
      const e = err as ServiceError;
      this.history.noteError(e);
      const definite = input.kind === "get" || NOT_PROPOSED.test(e.details ?? e.message);
      if (!definite) this.history.ops.push(op);
      return undefined;
    }
  }

  private async send(endpoint: string, input: KvInput): Promise<KvOutput> {
    const key = Buffer.from(input.key);
    switch (input.kind) {
      case "get": {
        const res = await this.call(endpoint, "Range", { key });
        const kv = res.kvs[0];
        return kv === undefined ? { kind: "get", value: null } : { kind: "get", value: Buffer.from(kv.value).toString(), modRevision: Number(kv.mod_revision) };
      }
      case "put": {
        const res = await this.call(endpoint, "Put", { key, value: Buffer.from(input.value) });
        return { kind: "put", revision: Number(res.header?.revision) };
      }
      case "delete": {
        const res = await this.call(endpoint, "DeleteRange", { key });
        return { kind: "delete", deleted: Number(res.deleted) };
      }
      case "cas": {
        const compare =
          "value" in input.expect
            ? { key, result: "EQUAL", target: "VALUE", value: Buffer.from(input.expect.value ?? "") }
            : { key, result: "EQUAL", target: "MOD", mod_revision: input.expect.modRevision };
        const res = await this.call(endpoint, "Txn", { compare: [compare], success: [{ request: "request_put", request_put: { key, value: Buffer.from(input.value) } }], failure: [] });
        return res.succeeded ? { kind: "cas", ok: true, revision: Number(res.header?.revision) } : { kind: "cas", ok: false };
      }
    }
  }

  close(): void {
    for (const c of this.clients.values()) c.close();
    this.clients.clear();
  }
}
