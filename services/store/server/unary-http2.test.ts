import type { ClientHttp2Session, IncomingHttpHeaders } from "node:http2";
import { status } from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { methodDefinition } from "../../../shared/etcd/proto.ts";
import { b, expectGrpcError, str, useServerAndSession, type Msg } from "./testing/support.ts";

interface RawAnswer {
  headers: IncomingHttpHeaders;
  body: Buffer;
  trailers: IncomingHttpHeaders;
}

/** One HTTP/2 request with the given body; the answer's headers, body and trailers. */
function raw(session: ClientHttp2Session, path: string, body: Buffer, extra: Record<string, string> = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = session.request({ ":method": "POST", ":path": path, "content-type": "application/grpc", te: "trailers", ...extra });
    const chunks: Buffer[] = [];
    let headers: IncomingHttpHeaders = {};
    let trailers: IncomingHttpHeaders = {};
    req.on("response", (h) => (headers = h));
    req.on("trailers", (t) => (trailers = t));
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve({ headers, body: Buffer.concat(chunks), trailers }));
    req.on("error", reject);
    req.end(body);
  });
}

function framed(message: Uint8Array, declared = message.length): Buffer {
  const out = Buffer.alloc(5 + message.length);
  out.writeUInt32BE(declared, 1);
  out.set(message, 5);
  return out;
}

/** grpc-status and grpc-message of an answer (trailers-only answers carry them in the headers). */
function statusOf(a: RawAnswer): { code: number; message: string } {
  const h = a.trailers["grpc-status"] !== undefined ? a.trailers : a.headers;
  return { code: Number(h["grpc-status"]), message: decodeURI(String(h["grpc-message"] ?? "")) };
}

describe("unary calls served from HTTP/2 streams", () => {
  const fx = useServerAndSession({ maxRequestBytes: 1024 });

  it("serves the unary methods of every service (not grpc-js) and leaves Watch to grpc-js", async () => {
    const before = fx.t.server.router.served;
    await fx.t.call("KV", "Put", { key: b("a"), value: b("1") });
    const r = await fx.t.call<Msg & { kvs: Array<{ value: Buffer }> }>("KV", "Range", { key: b("a") });
    expect(str(r.kvs[0].value)).toBe("1");
    const status_ = await fx.t.call<Msg & { version: string }>("Maintenance", "Status");
    expect(status_.version).toBe("3.5.0");
    const grant = await fx.t.call<Msg & { ID: string }>("Lease", "LeaseGrant", { TTL: 60 });
    expect(Number(grant.ID)).toBeGreaterThan(0);
    expect(fx.t.server.router.served - before).toBe(4);
    const w = fx.t.watch();
    w.stream.write({ create_request: { key: b("a") } });
    expect((await w.next()).created).toBe(true);
    await fx.t.call("KV", "Put", { key: b("a"), value: b("2") });
    const ev = await w.next();
    expect(str(ev.events?.[0].kv?.value)).toBe("2");
    expect(fx.t.server.router.served - before).toBe(5);
  });

  it("answers success with headers, one message and status 0 trailers", async () => {
    const def = methodDefinition("KV", "Put");
    const a = await raw(fx.session, def.path, framed(def.requestSerialize({ key: b("k"), value: b("v") })));
    expect(a.headers[":status"]).toBe(200);
    expect(a.headers["content-type"]).toBe("application/grpc+proto");
    expect(statusOf(a)).toEqual({ code: 0, message: "OK" });
    expect(a.body.readUInt32BE(1)).toBe(a.body.length - 5);
    const res = def.responseDeserialize(a.body.subarray(5)) as Msg;
    expect(res.header?.revision).toBe("2");
  });

  it("refuses an oversized message, none, two, a compressed one and bytes that do not decode, as grpc-js does", async () => {
    const path = methodDefinition("KV", "Range").path;
    const max = 1024 + 512 * 1024;
    expect(statusOf(await raw(fx.session, path, framed(Buffer.alloc(8), max + 1)))).toEqual({ code: status.RESOURCE_EXHAUSTED, message: `Received message larger than max (${max + 1} vs. ${max})` });
    expect(statusOf(await raw(fx.session, path, Buffer.alloc(0)))).toEqual({ code: status.UNIMPLEMENTED, message: `Received no request message for server streaming method ${path}` });
    const one = framed(Buffer.from([0x0a, 0x01, 0x61]));
    expect(statusOf(await raw(fx.session, path, Buffer.concat([one, one])))).toEqual({ code: status.UNIMPLEMENTED, message: `Received a second request message for server streaming method ${path}` });
    const compressed = Buffer.from(one);
    compressed[0] = 1;
    expect(statusOf(await raw(fx.session, path, compressed)).code).toBe(status.INTERNAL);
    expect(statusOf(await raw(fx.session, path, framed(Buffer.from([0x0a, 0x09, 0x61]))))).toEqual({ code: status.INTERNAL, message: "Error deserializing request" });
  });

  it("refuses bytes past the one message at once, before the request ends", async () => {
    const path = methodDefinition("KV", "Range").path;
    const req = fx.session.request({ ":method": "POST", ":path": path, "content-type": "application/grpc", te: "trailers" });
    req.on("error", () => undefined);
    const headers = new Promise<IncomingHttpHeaders>((resolve) => req.once("response", resolve));
    const one = framed(Buffer.from([0x0a, 0x01, 0x61]));
    req.write(Buffer.concat([one, one.subarray(0, 3)]));
    const h = await headers;
    expect(Number(h["grpc-status"])).toBe(status.UNIMPLEMENTED);
    expect(req.writableEnded).toBe(false);
    req.close();
  });

  it("answers the handler's errors with etcd's codes and leaves unknown paths to grpc-js", async () => {
    await expectGrpcError(fx.t.call("KV", "Put", { key: b(""), value: b("v") }), status.INVALID_ARGUMENT, "etcdserver: key is not provided");
    await expectGrpcError(fx.t.call("KV", "Put", { key: b("big"), value: Buffer.alloc(2048) }), status.INVALID_ARGUMENT, "etcdserver: request is too large");
    const before = fx.t.server.router.served;
    const a = await raw(fx.session, "/etcdserverpb.KV/Nope", framed(Buffer.alloc(0)));
    expect(statusOf(a).code).toBe(status.UNIMPLEMENTED);
    expect(fx.t.server.router.served).toBe(before);
  });

  it("close() ends connections grpc-js would leave open (a watch's)", async () => {
    const w = fx.t.watch();
    w.stream.write({ create_request: { key: b("a") } });
    await w.next();
    const ended = new Promise<void>((resolve) => w.stream.once("status", () => resolve()));
    await fx.t.server.close(100);
    await ended;
    expect(w.ended).toBeDefined();
  });
});
