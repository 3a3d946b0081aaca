/**
 * Test helpers for the client API: a server over a backend on a random loopback
 * port, promisified unary calls by service and method name, a watch stream with a
 * response queue, and an assertion on etcd's gRPC errors.
 */
import { Client, credentials, Metadata, type ClientDuplexStream, type ServiceError } from "@grpc/grpc-js";
import { connect, type ClientHttp2Session } from "node:http2";
import { afterEach, beforeEach, expect } from "vitest";
import type { StoreBackend } from "../backend.ts";
import { StoreGrpcServer, type GrpcServerOptions } from "../grpc-server.ts";
import { LocalBackend } from "../local-backend.ts";
import { methodDefinition, type EtcdServiceName } from "../../../../shared/etcd/proto.ts";
import type { PbWatchResponse } from "../../../../shared/etcd/wire.ts";

/** A decoded response: fields by name (int64 as decimal strings). */
export type Msg = Record<string, unknown> & { header?: { revision: string; cluster_id: string; member_id: string; raft_term: string } };

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
  // Untyped on purpose: the tests also send what a typed client would refuse (unknown enum numbers, missing fields).
  const client = new Client(endpoint, credentials.createInsecure(), { "grpc.max_send_message_length": -1 });
  const streams: Array<{ cancel(): void }> = [];
  const t: TestServer = {
    backend,
    server,
    port,
    endpoint,
    call<T>(service: EtcdServiceName, method: string, req: object = {}): Promise<T> {
      const def = methodDefinition(service, method);
      return new Promise<T>((resolve, reject) =>
        client.makeUnaryRequest(def.path, def.requestSerialize, (buf) => def.responseDeserialize(buf) as T, req, new Metadata(), {}, (err, res) => (err ? reject(err) : resolve(res as T))),
      );
    },
    stream<Req extends object, Res>(service: EtcdServiceName, method: string): ClientDuplexStream<Req, Res> {
      const def = methodDefinition(service, method);
      const s = client.makeBidiStreamRequest<Req, Res>(def.path, def.requestSerialize, (buf) => def.responseDeserialize(buf) as Res, new Metadata());
      s.on("error", () => {});
      streams.push(s);
      return s;
    },
    watch(): WatchClient {
      return new WatchClient(t.stream<object, PbWatchResponse>("Watch", "Watch"));
    },
    async close() {
      for (const s of streams) s.cancel();
      client.close();
      await server.close(200);
    },
  };
  return t;
}

/** For each test of the calling suite: a server with `options` and a raw HTTP/2 session to it, closed after the test. */
export function useServerAndSession(options: GrpcServerOptions): { t: TestServer; session: ClientHttp2Session } {
  const fx = {} as { t: TestServer; session: ClientHttp2Session };
  beforeEach(async () => {
    fx.t = await startTestServer(options);
    fx.session = connect(`http://${fx.t.endpoint}`);
  });
  afterEach(async () => {
    fx.session.destroy();
    await fx.t.close();
  });
  return fx;
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
