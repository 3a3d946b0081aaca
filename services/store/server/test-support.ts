/**
 * Test helpers for the client API: a server over a backend on a random loopback
 * port, promisified unary calls by service and method name, a watch stream with a
 * response queue, and an assertion on etcd's gRPC errors.
 */
import { credentials, type Client, type ClientDuplexStream, type ServiceError } from "@grpc/grpc-js";
import { expect } from "vitest";
import type { StoreBackend } from "./backend.ts";
import { StoreGrpcServer, type GrpcServerOptions } from "./grpc-server.ts";
import { LocalBackend } from "./local-backend.ts";
import { clientConstructor, type EtcdServiceName } from "./proto.ts";
import type { PbWatchResponse } from "./wire.ts";

/** A decoded response: fields by name (int64 as decimal strings). */
export type Msg = Record<string, unknown> & { header?: { revision: string; cluster_id: string; member_id: string; raft_term: string } };

type Unary = (req: object, cb: (err: ServiceError | null, res?: Msg) => void) => void;

export interface TestServer {
  backend: StoreBackend;
  server: StoreGrpcServer;
  port: number;
  endpoint: string;
  call<T = Msg>(service: EtcdServiceName, method: string, req?: object): Promise<T>;
  /** A bidirectional stream of a service (Watch.Watch, Lease.LeaseKeepAlive). */
  stream<Req extends object, Res>(service: EtcdServiceName, method: string): ClientDuplexStream<Req, Res>;
  watch(): WatchClient;
  close(): Promise<void>;
}

export async function startTestServer(options: GrpcServerOptions = {}, backend: StoreBackend = new LocalBackend()): Promise<TestServer> {
  const server = new StoreGrpcServer(backend, options);
  const port = await server.listen("127.0.0.1:0");
  const endpoint = `127.0.0.1:${port}`;
  const clients = new Map<EtcdServiceName, Client>();
  const client = (service: EtcdServiceName): Client => {
    let c = clients.get(service);
    if (c === undefined) {
      const Ctor = clientConstructor(service);
      c = new Ctor(endpoint, credentials.createInsecure(), { "grpc.max_send_message_length": -1 });
      clients.set(service, c);
    }
    return c;
  };
  const streams: ClientDuplexStream<object, unknown>[] = [];
  const t: TestServer = {
    backend,
    server,
    port,
    endpoint,
    call<T>(service: EtcdServiceName, method: string, req: object = {}): Promise<T> {
      const c = client(service);
      const fn = (c as unknown as Record<string, Unary>)[method];
      return new Promise<T>((resolve, reject) => fn.call(c, req, (err, res) => (err ? reject(err) : resolve(res as T))));
    },
    stream<Req extends object, Res>(service: EtcdServiceName, method: string): ClientDuplexStream<Req, Res> {
      const c = client(service);
      const s = (c as unknown as Record<string, () => ClientDuplexStream<Req, Res>>)[method].call(c);
      s.on("error", () => {});
      streams.push(s as unknown as ClientDuplexStream<object, unknown>);
      return s;
    },
    watch(): WatchClient {
      return new WatchClient(t.stream<object, PbWatchResponse>("Watch", "Watch"));
    },
    async close() {
      for (const s of streams) s.cancel();
      for (const c of clients.values()) c.close();
      await server.close(200);
    },
  };
  return t;
}

/** A watch stream whose responses are queued for `next`. */
export class WatchClient {
  private readonly queue: PbWatchResponse[] = [];
  private waiter: (() => void) | undefined;
  ended: Error | undefined;

  constructor(readonly stream: ClientDuplexStream<object, PbWatchResponse>) {
    stream.on("data", (res: PbWatchResponse) => {
      this.queue.push(res);
      this.waiter?.();
    });
    stream.on("error", (err: Error) => {
      this.ended = err;
      this.waiter?.();
    });
  }

  create(req: Record<string, unknown>): void {
    this.stream.write({ create_request: req });
  }

  cancel(watchId: number | string): void {
    this.stream.write({ cancel_request: { watch_id: watchId } });
  }

  progress(): void {
    this.stream.write({ progress_request: {} });
  }

  async next(timeoutMs = 3000): Promise<PbWatchResponse> {
    const deadline = Date.now() + timeoutMs;
    while (this.queue.length === 0) {
      if (this.ended !== undefined) throw this.ended;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error("no watch response in time");
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiter = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.waiter = undefined;
    }
    return this.queue.shift() as PbWatchResponse;
  }

  /** Resolves true if nothing arrives within ms. */
  async quiet(ms = 200): Promise<boolean> {
    await new Promise((r) => setTimeout(r, ms));
    return this.queue.length === 0;
  }
}

export async function expectGrpcError(p: Promise<unknown>, code: number, message?: string | RegExp): Promise<ServiceError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e as ServiceError,
  );
  expect(err, "expected a gRPC error").toBeDefined();
  const e = err as ServiceError;
  expect(e.code, e.details).toBe(code);
  if (typeof message === "string") expect(e.details).toBe(message);
  else if (message !== undefined) expect(e.details).toMatch(message);
  return e;
}

export const b = (s: string): Buffer => Buffer.from(s);
export const str = (v: unknown): string => Buffer.from(v as Uint8Array).toString();
