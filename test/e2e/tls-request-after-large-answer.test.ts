/**
 * A request whose head and body come in one read while the connection's previous answer
 * is still being flushed (services/apiserver/server/tls-parser-pause.ts): node pauses the
 * connection's parser, the TLS layer still hands over the body's records, and without the
 * fix node destroyed the connection; the POST got no answer (client-go: `EOF`) and the list
 * being written was cut short.
 *
 * The server process is frozen (SIGSTOP) while the client sends the POST's head and body
 * as separate TLS records, so that the thawed server reads them together, in the middle of
 * writing a ~10 MB list the client is not reading yet.
 */
import { readFileSync } from "node:fs";
import { request } from "node:https";
import { join } from "node:path";
import { connect, type TLSSocket } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServerProcess, type ServerProcess } from "../support/server-process.ts";

const NS = "default";
const BIG = 12;
const VALUE_BYTES = 900_000;

let server: ServerProcess;
let tls: { ca: Buffer; cert: Buffer; key: Buffer };

function call(method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      { host: "127.0.0.1", port: server.port, method, path, ...tls, servername: "localhost", headers: payload ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } : {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/** The HTTP/1.1 answers on a raw connection: status and body of each, framed by Content-Length or chunks. */
function parseAnswers(raw: Buffer): Array<{ status: number; body: string }> {
  const answers: Array<{ status: number; body: string }> = [];
  let at = 0;
  while (at < raw.length) {
    const headEnd = raw.indexOf("\r\n\r\n", at);
    if (headEnd < 0) break;
    const head = raw.subarray(at, headEnd).toString("latin1");
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
    let body: Buffer = Buffer.alloc(0);
    let next = headEnd + 4;
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (length) {
      body = raw.subarray(next, next + Number(length[1]));
      next += Number(length[1]);
    } else if (/\r\ntransfer-encoding: *chunked/i.test(head)) {
      const parts: Buffer[] = [];
      for (;;) {
        const lineEnd = raw.indexOf("\r\n", next);
        if (lineEnd < 0) return [...answers, { status, body: "(cut)" }];
        const size = parseInt(raw.subarray(next, lineEnd).toString("latin1"), 16);
        next = lineEnd + 2;
        if (size === 0) {
          next += 2;
          break;
        }
        if (next + size > raw.length) return [...answers, { status, body: "(cut)" }];
        parts.push(raw.subarray(next, next + size));
        next += size + 2;
      }
      body = Buffer.concat(parts);
    }
    answers.push({ status, body: body.toString() });
    at = next;
  }
  return answers;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  server = await startServerProcess();
  const pki = join(server.dir, "pki");
  tls = { ca: readFileSync(join(pki, "ca.crt")), cert: readFileSync(join(pki, "admin.crt")), key: readFileSync(join(pki, "admin.key")) };
  for (let i = 0; i < BIG; i++) {
    const r = await call("POST", `/api/v1/namespaces/${NS}/configmaps`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `big-${i}` }, data: { v: "x".repeat(VALUE_BYTES) } });
    expect(r.status, r.text).toBe(201);
  }
});

afterAll(async () => {
  server?.signal("SIGCONT");
  await server?.close();
});

describe("a request on a connection whose previous answer is still being written", () => {
  it("is answered, and the answer before it is written whole, when its body's records come in one read with its head", async () => {
    const socket: TLSSocket = connect({ host: "127.0.0.1", port: server.port, ...tls, servername: "localhost" });
    const received: Buffer[] = [];
    const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
    socket.on("data", (d: Buffer) => received.push(d));
    await new Promise<void>((resolve, reject) => {
      socket.once("secureConnect", () => resolve());
      socket.once("error", reject);
    });
    socket.pause(); // the list's bytes pile up in the server: its socket needs drain
    socket.write(`GET /api/v1/namespaces/${NS}/configmaps HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\r\n`);
    await sleep(500);

    server.signal("SIGSTOP");
    try {
      const body = Buffer.from(JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "after-the-list" }, data: { v: "y".repeat(20_000) } }));
      socket.write(`POST /api/v1/namespaces/${NS}/configmaps HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
      for (let i = 0; i < body.length; i += 4000) socket.write(body.subarray(i, i + 4000)); // one TLS record each
      await sleep(300);
    } finally {
      server.signal("SIGCONT");
    }
    await sleep(500);
    socket.resume();

    const deadline = Date.now() + 20_000;
    let answers = parseAnswers(Buffer.concat(received));
    while (answers.filter((a) => a.body !== "(cut)").length < 2 && Date.now() < deadline && !socket.destroyed) {
      await sleep(100);
      answers = parseAnswers(Buffer.concat(received));
    }
    socket.end();
    await closed;
    answers = parseAnswers(Buffer.concat(received));

    expect(answers.map((a) => a.status)).toEqual([200, 201]);
    const list = JSON.parse(answers[0].body) as { items: Array<{ metadata: { name: string } }> };
    expect(list.items.map((i) => i.metadata.name).sort()).toEqual(Array.from({ length: BIG }, (_, i) => `big-${i}`).sort());
    expect((JSON.parse(answers[1].body) as { metadata: { name: string } }).metadata.name).toBe("after-the-list");
    const read = await call("GET", `/api/v1/namespaces/${NS}/configmaps/after-the-list`);
    expect(read.status).toBe(200);
  });
});
