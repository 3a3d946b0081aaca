/**
 * The webhook client's connections against real TLS servers on loopback: calls
 * reuse one kept-alive connection (one handshake), answers framed by chunks, by
 * length or by the connection's end are read, a connection the server closed
 * while idle is not used again, `Connection: close` is honoured, a server that
 * never answers fails at the deadline, a certificate of another CA or another
 * name is refused, and closing the client leaves no endpoint behind.
 */
import { createServer as createHttpsServer, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createServer as createTlsServer, type Server as TlsServer } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCA, createServingCert } from "../../server/certs.ts";
import { DeadlineExceeded, TlsConnections, type TlsEndpoint } from "./tls-connections.ts";

let caPem = "";
let otherCaPem = "";
let server: Server;
let raw: TlsServer;
let handshakes = 0;
const endpoint = (): TlsEndpoint => ({ host: "127.0.0.1", port: (server.address() as AddressInfo).port, caPem });
const rawEndpoint = (): TlsEndpoint => ({ host: "127.0.0.1", port: (raw.address() as AddressInfo).port, caPem });
/** What the raw TLS server answers to any request, by the request's path. */
const rawAnswers = new Map<string, string>();

function post(path: string, body = "{}"): string {
  return `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const body = Buffer.concat(chunks).toString();
    switch (req.url) {
      case "/echo":
        return void res.writeHead(200, { "content-type": "application/json" }).end(body);
      case "/chunked":
        res.writeHead(200, { "content-type": "application/json" });
        res.write('{"parts":[');
        setImmediate(() => res.end(`${JSON.stringify(body)}]}`));
        return;
      case "/close":
        return void res.writeHead(200, { connection: "close", "content-length": 2 }).end("{}");
      case "/hang":
        return;
      default:
        res.writeHead(404).end("no");
    }
  });
}

beforeAll(async () => {
  const ca = await createCA({ commonName: "conn-test-ca" });
  const other = await createCA({ commonName: "other-ca" });
  caPem = ca.certPem;
  otherCaPem = other.certPem;
  const serving = await createServingCert(ca, { hosts: ["webhook.test.svc"] });
  server = createHttpsServer({ key: serving.keyPem, cert: serving.certPem }, handle);
  server.on("secureConnection", () => handshakes++);
  raw = createTlsServer({ key: serving.keyPem, cert: serving.certPem }, (socket) => {
    socket.on("data", (d: Buffer) => {
      const path = d.toString("latin1").split(" ")[1];
      const answer = rawAnswers.get(path);
      if (answer === undefined) return socket.destroy();
      socket.end(answer);
    });
    socket.on("error", () => undefined);
  });
  await Promise.all([new Promise<void>((r) => server.listen(0, "127.0.0.1", r)), new Promise<void>((r) => raw.listen(0, "127.0.0.1", r))]);
});

afterAll(async () => {
  server.closeAllConnections();
  await Promise.all([new Promise((r) => server.close(r)), new Promise((r) => raw.close(r))]);
});

/** Runs `fn` with a new pool, closed afterwards whatever happens. */
async function withPool(fn: (pool: TlsConnections) => Promise<void>): Promise<void> {
  const pool = new TlsConnections();
  try {
    await fn(pool);
  } finally {
    pool.close();
  }
}

describe("TlsConnections", () => {
  it("sequential and concurrent calls reuse kept-alive connections", () =>
    withPool(async (pool) => {
      const before = handshakes;
      for (let i = 0; i < 20; i++) {
        const res = await pool.exchange(endpoint(), post("/echo", `{"i":${i}}`), 5000, 1024);
        expect([res.status, res.body.toString(), res.reusable]).toEqual([200, `{"i":${i}}`, true]);
      }
      expect(handshakes - before).toBe(1);
      // Four at once need four connections; the next four reuse them.
      await Promise.all([1, 2, 3, 4].map(() => pool.exchange(endpoint(), post("/echo"), 5000, 1024)));
      await Promise.all([1, 2, 3, 4].map(() => pool.exchange(endpoint(), post("/echo"), 5000, 1024)));
      expect(handshakes - before).toBe(4);
    }));

  it("reads a chunked answer and keeps the connection", () =>
    withPool(async (pool) => {
      const before = handshakes;
      for (let i = 0; i < 3; i++) {
        const res = await pool.exchange(endpoint(), post("/chunked", "x"), 5000, 1024);
        expect(JSON.parse(res.body.toString())).toEqual({ parts: ["x"] });
      }
      expect(handshakes - before).toBe(1);
    }));

  it("a Connection: close answer, or an idle connection the server closed, is not used again", () =>
    withPool(async (pool) => {
      const before = handshakes;
      expect((await pool.exchange(endpoint(), post("/close"), 5000, 1024)).reusable).toBe(false);
      expect((await pool.exchange(endpoint(), post("/echo"), 5000, 1024)).status).toBe(200);
      expect(handshakes - before).toBe(2);
      // The server drops its idle connections; the client sees it close.
      server.closeIdleConnections();
      await new Promise((r) => setTimeout(r, 50));
      expect((await pool.exchange(endpoint(), post("/echo", "[1]"), 5000, 1024)).body.toString()).toBe("[1]");
      expect(handshakes - before).toBe(3);
    }));

  it("an answer without length runs to the end of the connection; a server that closes without answering fails", () =>
    withPool(async (pool) => {
      rawAnswers.set("/eof", 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{"to":"the end"}');
      const res = await pool.exchange(rawEndpoint(), post("/eof"), 5000, 1024);
      expect([res.status, res.body.toString(), res.reusable]).toEqual([200, '{"to":"the end"}', false]);
      await expect(pool.exchange(rawEndpoint(), post("/nothing"), 5000, 1024)).rejects.toThrow(/^socket hang up$/);
      rawAnswers.set("/big", `HTTP/1.1 200 OK\r\nContent-Length: 2048\r\n\r\n${"x".repeat(2048)}`);
      await expect(pool.exchange(rawEndpoint(), post("/big"), 5000, 1024)).rejects.toThrow(/^response body larger than 1024 bytes$/);
    }));

  it("a server that never answers fails at the deadline, and the connection is dropped", () =>
    withPool(async (pool) => {
      const start = performance.now();
      await expect(pool.exchange(endpoint(), post("/hang"), 200, 1024)).rejects.toBeInstanceOf(DeadlineExceeded);
      expect(performance.now() - start).toBeGreaterThanOrEqual(195);
      expect(performance.now() - start).toBeLessThan(2000);
      const before = handshakes;
      expect((await pool.exchange(endpoint(), post("/echo"), 5000, 1024)).status).toBe(200);
      expect(handshakes - before).toBe(1);
    }));

  it("verifies the certificate: another CA, or a name it does not carry, is refused", () =>
    withPool(async (pool) => {
      await expect(pool.exchange({ ...endpoint(), caPem: otherCaPem }, post("/echo"), 5000, 1024)).rejects.toThrow(/certificate/);
      await expect(pool.exchange({ ...endpoint(), servername: "other.test.svc" }, post("/echo"), 5000, 1024)).rejects.toThrow(/does not match certificate's altnames/);
      expect((await pool.exchange({ ...endpoint(), servername: "webhook.test.svc" }, post("/echo"), 5000, 1024)).status).toBe(200);
    }));

  it("connections closed leave no endpoint behind", async () => {
    const pool = new TlsConnections();
    await pool.exchange(endpoint(), post("/echo"), 5000, 1024);
    await pool.exchange({ ...endpoint(), servername: "webhook.test.svc" }, post("/echo"), 5000, 1024);
    expect(pool.endpoints()).toBe(2);
    pool.close();
    await new Promise((r) => setTimeout(r, 50));
    expect(pool.endpoints()).toBe(0);
  });
});
