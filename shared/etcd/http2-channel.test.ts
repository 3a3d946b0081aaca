/**
 * The lean unary channel against a scripted HTTP/2 gRPC server on 127.0.0.1: the
 * request it sends, the statuses it reads (trailers, trailers-only, HTTP status),
 * deadlines, a dropped connection, a refused one with fail-fast backoff, GOAWAY.
 */
import http2, { type Http2Server, type Http2Session, type ServerHttp2Stream, type IncomingHttpHeaders } from "node:http2";
import { createServer, type AddressInfo, type Socket } from "node:net";
import { credentials } from "@grpc/grpc-js";
import { afterEach, describe, expect, it } from "vitest";
import { EtcdCallError, GrpcStatus } from "./errors.ts";
import { frameMessage, unframeMessage } from "./grpc-frame.ts";
import { Http2UnaryChannel } from "./http2-channel.ts";

type Handler = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, body: Buffer) => void;

interface TestServer {
  target: string;
  port: number;
  sessions: Http2Session[];
  close(): Promise<void>;
}

function startServer(handler: Handler, port = 0): Promise<TestServer> {
  const server: Http2Server = http2.createServer();
  const sessions: Http2Session[] = [];
  server.on("session", (s) => sessions.push(s));
  server.on("stream", (stream, headers) => {
    const chunks: Buffer[] = [];
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("end", () => handler(stream, headers, Buffer.concat(chunks)));
    stream.on("error", () => undefined);
  });
  return new Promise((resolve) => {
    server.listen(port, "127.0.0.1", () => {
      const p = (server.address() as AddressInfo).port;
      resolve({
        target: `127.0.0.1:${p}`,
        port: p,
        sessions,
        close: () =>
          new Promise<void>((r) => {
            for (const s of sessions) s.destroy();
            server.close(() => r());
          }),
      });
    });
  });
}

/** Answers the request's message reversed, status OK in trailers. */
const echoReversed: Handler = (stream, _headers, body) => {
  const msg = unframeMessage(body) as Buffer;
  stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
  stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
  stream.end(frameMessage(Buffer.from([...msg].reverse())));
};

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function channel(target: string, initialReconnectBackoffMs = 1000): Http2UnaryChannel {
  const ch = new Http2UnaryChannel(target, credentials.createInsecure(), { initialReconnectBackoffMs });
  cleanups.push(() => ch.close());
  return ch;
}

async function server(handler: Handler, port?: number): Promise<TestServer> {
  const s = await startServer(handler, port);
  cleanups.push(() => s.close());
  return s;
}

async function failure(p: Promise<unknown>): Promise<EtcdCallError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EtcdCallError);
  return err as EtcdCallError;
}

describe("Http2UnaryChannel", () => {
  it("sends a gRPC POST with the framed message and its deadline, and returns the answer's message", async () => {
    let seen: IncomingHttpHeaders = {};
    const s = await server((stream, headers, body) => {
      seen = headers;
      echoReversed(stream, headers, body);
    });
    const ch = channel(s.target);
    const out = await ch.call("/etcdserverpb.KV/Range", Buffer.from("abc"), Date.now() + 5000);
    expect(out?.toString()).toBe("cba");
    expect(seen[":method"]).toBe("POST");
    expect(seen[":path"]).toBe("/etcdserverpb.KV/Range");
    expect(seen[":authority"]).toBe(s.target);
    expect(seen["content-type"]).toBe("application/grpc");
    expect(seen.te).toBe("trailers");
    const timeout = /^(\d+)m$/.exec(String(seen["grpc-timeout"]));
    expect(Number(timeout?.[1])).toBeGreaterThan(4000);
    expect(Number(timeout?.[1])).toBeLessThanOrEqual(5000);
    // Calls share one session.
    await ch.call("/etcdserverpb.KV/Range", Buffer.from("x"));
    expect(seen["grpc-timeout"]).toBeUndefined();
    expect(s.sessions).toHaveLength(1);
  });

  it("rejects with the code and decoded message of the trailers, and of a trailers-only answer", async () => {
    const s = await server((stream, headers) => {
      if (headers[":path"] === "/only") {
        stream.respond({ ":status": 200, "content-type": "application/grpc", "grpc-status": "9", "grpc-message": "etcdserver%3A no leader" }, { endStream: true });
        return;
      }
      stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
      stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "11", "grpc-message": "etcdserver%3A mvcc%3A required revision has been compacted" }));
      stream.end();
    });
    const ch = channel(s.target);
    const compacted = await failure(ch.call("/trailers", Buffer.alloc(0)));
    expect([compacted.code, compacted.details, compacted.endpoint]).toEqual([GrpcStatus.OUT_OF_RANGE, "etcdserver: mvcc: required revision has been compacted", s.target]);
    const only = await failure(ch.call("/only", Buffer.alloc(0)));
    expect([only.code, only.details]).toEqual([GrpcStatus.FAILED_PRECONDITION, "etcdserver: no leader"]);
  });

  it("maps an HTTP error without a gRPC status, and resolves undefined for OK without a message", async () => {
    const s = await server((stream, headers) => {
      if (headers[":path"] === "/empty") {
        stream.respond({ ":status": 200, "content-type": "application/grpc", "grpc-status": "0" }, { endStream: true });
        return;
      }
      stream.respond({ ":status": 503 });
      stream.end("overloaded");
    });
    const ch = channel(s.target);
    const err = await failure(ch.call("/x", Buffer.alloc(0)));
    expect([err.code, err.details]).toEqual([GrpcStatus.UNAVAILABLE, "Received HTTP status code 503"]);
    expect(await ch.call("/empty", Buffer.alloc(0))).toBeUndefined();
  });

  it("rejects with DEADLINE_EXCEEDED when the deadline passes and cancels the stream", async () => {
    let serverClose: (rstCode: number) => void = () => undefined;
    const closed = new Promise<number>((resolve) => (serverClose = resolve));
    const s = await server((stream) => stream.on("close", () => serverClose(stream.rstCode)));
    const ch = channel(s.target);
    const started = Date.now();
    const err = await failure(ch.call("/slow", Buffer.alloc(0), Date.now() + 200));
    expect([err.code, err.details]).toEqual([GrpcStatus.DEADLINE_EXCEEDED, "Deadline exceeded"]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(await closed).toBe(http2.constants.NGHTTP2_CANCEL);
  });

  it("answers UNAVAILABLE 'Connection dropped' when the connection is lost during a call, and connects anew for the next", async () => {
    let calls = 0;
    const s = await server((stream, headers, body) => {
      if (++calls === 1) stream.session?.destroy();
      else echoReversed(stream, headers, body);
    });
    const ch = channel(s.target);
    const err = await failure(ch.call("/drop", Buffer.from("a")));
    expect([err.code, err.details]).toEqual([GrpcStatus.UNAVAILABLE, "Connection dropped"]);
    expect((await ch.call("/ok", Buffer.from("ab")))?.toString()).toBe("ba");
    expect(s.sessions).toHaveLength(2);
  });

  it("fails fast with 'No connection established' while backing off after a refused connection, then connects", async () => {
    const probe = await startServer(echoReversed);
    const { target, port } = probe;
    await probe.close();
    const ch = channel(target, 400);
    const refused = await failure(ch.call("/x", Buffer.from("a"), Date.now() + 5000));
    expect(refused.code).toBe(GrpcStatus.UNAVAILABLE);
    expect(refused.details).toMatch(/^No connection established\. Last error: connect ECONNREFUSED/);
    // The server is back, but within the backoff the channel does not try again.
    const s = await server(echoReversed, port);
    const backingOff = await failure(ch.call("/x", Buffer.from("a")));
    expect(backingOff.details).toBe(refused.details);
    expect(s.sessions).toHaveLength(0);
    await new Promise((r) => setTimeout(r, 450));
    expect((await ch.call("/x", Buffer.from("ab")))?.toString()).toBe("ba");
    expect(s.sessions).toHaveLength(1);
  });

  it("moves to a new session after the server's GOAWAY", async () => {
    const s = await server((stream, headers, body) => {
      const session = stream.session;
      echoReversed(stream, headers, body);
      stream.on("close", () => session?.goaway());
    });
    const ch = channel(s.target);
    expect((await ch.call("/a", Buffer.from("12")))?.toString()).toBe("21");
    await new Promise((r) => setTimeout(r, 50));
    expect((await ch.call("/b", Buffer.from("34")))?.toString()).toBe("43");
    expect(s.sessions).toHaveLength(2);
  });

  it("gives up a connection whose server never sends its SETTINGS after the connect timeout, and closes the socket", async () => {
    const accepted: Socket[] = [];
    let closed = 0;
    const silent = createServer((sock) => {
      accepted.push(sock);
      sock.on("close", () => closed++);
      sock.on("error", () => undefined);
      sock.resume();
    });
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    cleanups.push(() => new Promise<void>((r) => silent.close(() => r())));
    cleanups.push(() => accepted.forEach((sock) => sock.destroy()));
    const ch = new Http2UnaryChannel(`127.0.0.1:${(silent.address() as AddressInfo).port}`, credentials.createInsecure(), { connectTimeoutMs: 200 });
    cleanups.push(() => ch.close());
    const started = Date.now();
    const err = await failure(ch.call("/x", Buffer.alloc(0), Date.now() + 5000));
    expect(err.code).toBe(GrpcStatus.UNAVAILABLE);
    expect(err.details).toMatch(/^No connection established\. Last error: connection attempt timed out/);
    expect(Date.now() - started).toBeLessThan(2000);
    for (let i = 0; i < 100 && closed === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect([accepted.length, closed]).toEqual([1, 1]);
  });

  it("waits for a server that starts later, and rejects calls after close", async () => {
    const probe = await startServer(echoReversed);
    const { target, port } = probe;
    await probe.close();
    const ch = channel(target, 100);
    setTimeout(() => void server(echoReversed, port), 300);
    await ch.waitForReady(Date.now() + 5000);
    ch.close();
    const err = await failure(ch.call("/x", Buffer.alloc(0)));
    expect(err.code).toBe(GrpcStatus.CANCELLED);
  });
});
