import { connect, type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders } from "node:http2";
import { status } from "@grpc/grpc-js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CALL_MUX_PATH, FrameReader, decodeMuxAnswer, encodeMuxCall, type MuxAnswer } from "../../../shared/etcd/call-mux-wire.ts";
import { CALL_MUX_OPTION, EtcdClient } from "../../../shared/etcd/client.ts";
import { EtcdCallError } from "../../../shared/etcd/errors.ts";
import { methodDefinition } from "../../../shared/etcd/proto.ts";
import { MAX_IN_FLIGHT } from "./call-mux.ts";
import type { StoreRequest, StoreResponse } from "../mvcc/index.ts";
import { LocalBackend } from "./local-backend.ts";
import { b, startTestServer, str, useServerAndSession, type TestServer } from "./testing/support.ts";

/** A raw multiplexer stream: calls written as framed MuxCalls, answers read back. */
class RawMux {
  readonly answers: MuxAnswer[] = [];
  headers: IncomingHttpHeaders = {};
  trailers: IncomingHttpHeaders = {};
  readonly stream: ClientHttp2Stream;
  private readonly reader = new FrameReader(1 << 30);
  private waiters: Array<() => void> = [];
  ended = false;

  constructor(session: ClientHttp2Session) {
    this.stream = session.request({ ":method": "POST", ":path": CALL_MUX_PATH, "content-type": "application/grpc", te: "trailers" }, { endStream: false });
    this.stream.on("response", (h) => (this.headers = h));
    this.stream.on("trailers", (t) => {
      this.trailers = t;
      this.stream.end();
    });
    this.stream.on("data", (c: Buffer) => {
      for (const m of this.reader.push(c)) if (Buffer.isBuffer(m)) this.answers.push(decodeMuxAnswer(m));
      this.wake();
    });
    this.stream.on("close", () => {
      this.ended = true;
      this.wake();
    });
    this.stream.on("error", () => undefined);
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  async until(pred: () => boolean, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!pred()) {
      if (Date.now() > deadline) throw new Error("timed out waiting on the multiplexer");
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 50);
      });
    }
  }

  answer(id: number): MuxAnswer | undefined {
    return this.answers.find((a) => a.id === id);
  }
}

function put(key: string, value: string | Buffer): Buffer {
  return methodDefinition("KV", "Put").requestSerialize({ key: b(key), value: typeof value === "string" ? b(value) : value });
}

describe("the store's call multiplexer", () => {
  const fx = useServerAndSession({ maxRequestBytes: 1024 });

  it("answers each call by its id with the method's response, in one stream", async () => {
    const mux = new RawMux(fx.session);
    const range = methodDefinition("KV", "Range");
    mux.stream.write(encodeMuxCall(7, methodDefinition("KV", "Put").path, put("a", "1")));
    await mux.until(() => mux.answers.length === 1);
    mux.stream.write(encodeMuxCall(8, range.path, range.requestSerialize({ key: b("a") })));
    await mux.until(() => mux.answers.length === 2);
    expect(mux.headers[":status"]).toBe(200);
    expect(mux.headers["grpc-status"]).toBeUndefined();
    expect(mux.answer(7)?.code).toBe(0);
    const got = range.responseDeserialize(mux.answer(8)?.response ?? Buffer.alloc(0)) as { kvs: Array<{ value: Buffer }> };
    expect(str(got.kvs[0].value)).toBe("1");
    expect(fx.t.server.mux.answered).toBe(2);
    mux.stream.end();
    await mux.until(() => mux.ended);
    expect(mux.trailers["grpc-status"]).toBe("0");
  });

  it("gives each call the status a unary call would end with, and keeps serving the others", async () => {
    const mux = new RawMux(fx.session);
    mux.stream.write(encodeMuxCall(1, methodDefinition("KV", "Put").path, put("", "x")));
    mux.stream.write(encodeMuxCall(2, "/etcdserverpb.KV/Nope", Buffer.alloc(0)));
    mux.stream.write(encodeMuxCall(3, methodDefinition("KV", "Range").path, Buffer.from([0xff, 0xff, 0xff])));
    mux.stream.write(encodeMuxCall(4, methodDefinition("KV", "Put").path, put("k", "v")));
    await mux.until(() => mux.answers.length === 4);
    expect(mux.answer(1)).toMatchObject({ code: status.INVALID_ARGUMENT, message: "etcdserver: key is not provided" });
    expect(mux.answer(2)).toMatchObject({ code: status.UNIMPLEMENTED, message: "The server does not implement the method /etcdserverpb.KV/Nope" });
    expect(mux.answer(3)).toMatchObject({ code: status.INTERNAL, message: "Error deserializing request" });
    expect(mux.answer(4)?.code).toBe(0);
    // A unary call of the first one ends the same way.
    await expect(fx.t.call("KV", "Put", { key: b(""), value: b("x") })).rejects.toMatchObject({ code: status.INVALID_ARGUMENT, details: "etcdserver: key is not provided" });
  });

  it("refuses a call over the size limit alone, unrun and without buffering it, as a unary call is refused", async () => {
    const mux = new RawMux(fx.session);
    const big = put("big", Buffer.alloc(700 << 10, 1));
    mux.stream.write(encodeMuxCall(5, methodDefinition("KV", "Put").path, big));
    mux.stream.write(encodeMuxCall(6, methodDefinition("KV", "Put").path, put("small", "1")));
    await mux.until(() => mux.answers.length === 2);
    const refused = mux.answer(5);
    expect(refused?.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(refused?.message).toMatch(/^Received message larger than max \(\d+ vs\. \d+\)$/);
    expect(mux.answer(6)?.code).toBe(0);
    const r = (await fx.t.call("KV", "Range", { key: b("big") })) as { kvs: unknown[] };
    expect(r.kvs).toHaveLength(0);
  });

  it("ends the stream with INTERNAL on bytes that are not a call", async () => {
    const mux = new RawMux(fx.session);
    const garbage = Buffer.from([0, 0, 0, 0, 3, 0x0f, 0xff, 0xff]);
    mux.stream.write(garbage);
    await mux.until(() => mux.ended);
    expect(mux.trailers["grpc-status"]).toBe(String(status.INTERNAL));
    expect(decodeURI(String(mux.trailers["grpc-message"]))).toMatch(/^Error deserializing call/);
  });


  it("ends its streams with status 0 when the server closes", async () => {
    const mux = new RawMux(fx.session);
    mux.stream.write(encodeMuxCall(1, methodDefinition("KV", "Put").path, put("x", "1")));
    await mux.until(() => mux.answers.length === 1);
    const closing = fx.t.close();
    await mux.until(() => mux.ended);
    await closing;
    expect(mux.trailers["grpc-status"]).toBe("0");
  });
});

/** A store backend whose writes wait for `open()`; counts the writes started. */
class GatedBackend extends LocalBackend {
  started = 0;
  private release: () => void = () => undefined;
  private readonly gate = new Promise<void>((resolve) => (this.release = resolve));
  override async propose(request: StoreRequest): Promise<StoreResponse> {
    this.started++;
    await this.gate;
    return super.propose(request);
  }
  open(): void {
    this.release();
  }
}

describe("the multiplexer's bound on calls running", () => {
  it(`runs at most ${MAX_IN_FLIGHT} calls of a stream at once and the rest as those are answered`, async () => {
    const backend = new GatedBackend();
    const t = await startTestServer({}, backend);
    const session = connect(`http://${t.endpoint}`);
    try {
      const mux = new RawMux(session);
      const calls = MAX_IN_FLIGHT + 100;
      const path = methodDefinition("KV", "Put").path;
      for (let i = 1; i <= calls; i++) mux.stream.write(encodeMuxCall(i, path, put(`g${i}`, "1")));
      await mux.until(() => backend.started >= MAX_IN_FLIGHT);
      await new Promise((r) => setTimeout(r, 200));
      expect(backend.started).toBe(MAX_IN_FLIGHT);
      expect(mux.answers).toHaveLength(0);
      backend.open();
      await mux.until(() => mux.answers.length === calls);
      expect(backend.started).toBe(calls);
      expect(mux.answers.every((a) => a.code === 0)).toBe(true);
    } finally {
      session.destroy();
      await t.close();
    }
  });
});

describe("EtcdClient over the call multiplexer", () => {
  let t: TestServer;
  let client: EtcdClient;
  let plain: EtcdClient;
  beforeEach(async () => {
    t = await startTestServer();
    client = new EtcdClient(t.endpoint);
    plain = new EtcdClient(t.endpoint, { [CALL_MUX_OPTION]: 0 });
  });
  afterEach(async () => {
    client.close();
    plain.close();
    await t.close();
  });

  /** Calls until the multiplexer is open (the first calls of a connection take their own streams). */
  async function warm(c: EtcdClient): Promise<void> {
    for (let i = 0; i < 50 && c.multiplexedCalls === 0; i++) await c.unary("Range", { key: b("warm") });
  }

  it("sends calls with a small answer over it with the same results as streams of their own", async () => {
    await warm(client);
    const before = t.server.mux.answered;
    await client.unary("Put", { key: b("k1"), value: b("v1") });
    const txn = await client.unary("Txn", {
      compare: [{ key: b("k1"), target: "VALUE", result: "EQUAL", value: b("v1") }],
      success: [{ request_put: { key: b("k1"), value: b("v2") } }, { request_range: { key: b("k1") } }],
    });
    expect(txn.succeeded).toBe(true);
    const viaMux = await client.unary("Range", { key: b("k1") });
    const viaStream = await plain.unary("Range", { key: b("k1") });
    expect(str(viaMux.kvs[0].value)).toBe("v2");
    expect({ ...viaMux, header: undefined }).toEqual({ ...viaStream, header: undefined });
    expect(t.server.mux.answered - before).toBe(3);
    expect(plain.multiplexedCalls).toBe(0);
  });

  it("keeps ranges over many keys on streams of their own", async () => {
    await warm(client);
    const before = client.multiplexedCalls;
    await client.unary("Range", { key: b("k"), range_end: b("l") });
    expect(client.multiplexedCalls).toBe(before);
    await client.unary("Range", { key: b("k"), range_end: b("l"), count_only: true });
    expect(client.multiplexedCalls).toBe(before + 1);
  });

  it("rejects a call with its own status as EtcdCallError, as on a stream of its own", async () => {
    await warm(client);
    const viaMux = await client.unary("Put", { key: b(""), value: b("x") }).catch((e: unknown) => e);
    const viaStream = await plain.unary("Put", { key: b(""), value: b("x") }).catch((e: unknown) => e);
    expect(viaMux).toBeInstanceOf(EtcdCallError);
    expect(viaMux).toMatchObject({ code: (viaStream as EtcdCallError).code, details: (viaStream as EtcdCallError).details });
  });

  it("rejects a call whose deadline passes with DEADLINE_EXCEEDED", async () => {
    await warm(client);
    const err = await client.unary("Range", { key: b("k1") }, { deadline: Date.now() - 1 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: status.DEADLINE_EXCEEDED });
  });

  it("runs many concurrent calls over it, each answered with its own result", async () => {
    await warm(client);
    const before = client.multiplexedCalls;
    await Promise.all(Array.from({ length: 200 }, (_, i) => client.unary("Put", { key: b(`c${i}`), value: b(String(i)) })));
    const got = await Promise.all(Array.from({ length: 200 }, (_, i) => client.unary("Range", { key: b(`c${i}`) })));
    got.forEach((r, i) => expect(str(r.kvs[0].value)).toBe(String(i)));
    expect(client.multiplexedCalls - before).toBe(400);
  });
});
