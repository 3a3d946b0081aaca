/**
 * The store in process answers exactly as its gRPC server does: the same requests
 * through InProcessEtcd and through EtcdClient over a real gRPC server on the same
 * backend give equal results (int64 fields compared as numbers) and equal errors
 * (gRPC code and etcd's message); watches deliver history, live events, progress
 * and compaction cancels in process too.
 */
import { afterEach, describe, expect, it } from "vitest";
import { EtcdClient } from "../../shared/etcd/client.ts";
import { EtcdCallError } from "../../shared/etcd/errors.ts";
import type { EtcdApi, EtcdStream } from "../../shared/etcd/methods.ts";
import type { PbWatchRequest, PbWatchResponse } from "../../shared/etcd/wire.ts";
import { memoryStore } from "./embedded.ts";
import { StoreGrpcServer } from "./server/grpc-server.ts";

const b = (s: string) => Buffer.from(s);

/** A response with int64 strings as numbers and buffers as strings, for comparison across forms. */
function plain(v: unknown): unknown {
  if (v instanceof Uint8Array) return Buffer.from(v).toString();
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      // Defaults filled in by the gRPC decoder only; absent in process.
      if (x === null || x === undefined || x === false || x === "" || x === "0" || x === 0 || (Array.isArray(x) && x.length === 0)) continue;
      if (k === "member_id" || k === "cluster_id" || k === "raft_term") continue;
      out[k] = plain(x);
    }
    return out;
  }
  if (typeof v === "string" && /^-?\d+$/.test(v)) return Number(v);
  return v;
}

async function failure(p: Promise<unknown>): Promise<{ code: number; details: string }> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EtcdCallError);
  const e = err as EtcdCallError;
  return { code: e.code, details: e.details };
}

function responses(stream: EtcdStream<PbWatchRequest, PbWatchResponse>): { next(timeoutMs?: number): Promise<PbWatchResponse> } {
  const queue: PbWatchResponse[] = [];
  let wake: (() => void) | undefined;
  stream.on("data", (r) => {
    queue.push(r);
    wake?.();
  });
  return {
    async next(timeoutMs = 3000) {
      const deadline = Date.now() + timeoutMs;
      while (queue.length === 0) {
        if (Date.now() > deadline) throw new Error("no watch response in time");
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, 50);
        });
      }
      return queue.shift() as PbWatchResponse;
    },
  };
}

describe("store in process (services/store/embedded.ts)", () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function bothForms(): Promise<{ local: EtcdApi; remote: EtcdApi }> {
    const store = memoryStore();
    const server = new StoreGrpcServer(store.backend);
    const port = await server.listen("127.0.0.1:0");
    const remote = new EtcdClient(`127.0.0.1:${port}`);
    cleanups.push(() => store.close(), () => server.close(100), () => remote.close());
    return { local: store.api, remote };
  }

  it("answers KV requests and their errors as the gRPC server does", async () => {
    const { local, remote } = await bothForms();
    // Writes alternate between the forms; every read is asked of both.
    await local.unary("Put", { key: b("/a"), value: b("1") });
    await remote.unary("Put", { key: b("/b"), value: b("2") });
    const txn = { compare: [{ key: b("/a"), result: "EQUAL", target: "VERSION", target_union: "version", version: 1 }], success: [{ request: "request_put" as const, request_put: { key: b("/a"), value: b("3"), prev_kv: true } }], failure: [] };
    const t = await local.unary("Txn", txn);
    expect(t.succeeded).toBe(true);
    const failed = await remote.unary("Txn", txn);
    expect(failed.succeeded).toBe(false);
    const range = { key: b("/"), range_end: b("0") };
    expect(plain(await local.unary("Range", range))).toEqual(plain(await remote.unary("Range", range)));
    await local.unary("Compact", { revision: 3 });
    const old = { key: b("/a"), revision: 2 };
    const errs = await Promise.all([failure(local.unary("Range", old)), failure(remote.unary("Range", old))]);
    expect(errs[0]).toEqual({ code: 11, details: "etcdserver: mvcc: required revision has been compacted" });
    expect(errs[1]).toEqual(errs[0]);
    const empty = { key: b("") };
    const bad = await Promise.all([failure(local.unary("Put", empty)), failure(remote.unary("Put", empty))]);
    expect(bad[0]).toEqual({ code: 3, details: "etcdserver: key is not provided" });
    expect(bad[1]).toEqual(bad[0]);
    const lease = await local.unary("LeaseGrant", { TTL: 60, ID: 7 });
    expect(Number(lease.ID)).toBe(7);
    expect(await failure(remote.unary("LeaseGrant", { TTL: 60, ID: 7 }))).toEqual({ code: 9, details: "etcdserver: lease already exists" });
  });

  it("watches in process: history with previous values, live events, progress and a compacted start", async () => {
    const { local } = await bothForms();
    await local.unary("Put", { key: b("/w/a"), value: b("1") });
    await local.unary("Put", { key: b("/w/a"), value: b("2") });
    const stream = local.stream("Watch");
    cleanups.push(() => stream.cancel());
    const res = responses(stream);
    stream.write({ request_union: "create_request", create_request: { key: b("/w/"), range_end: b("/w0"), start_revision: 1, prev_kv: true } });
    expect((await res.next()).created).toBe(true);
    const history = await res.next();
    expect(history.events?.map((e) => `${e.type}:${Buffer.from(e.kv.value).toString()}:${e.prev_kv ? Buffer.from(e.prev_kv.value).toString() : "-"}`)).toEqual(["PUT:1:-", "PUT:2:1"]);
    await local.unary("DeleteRange", { key: b("/w/a"), prev_kv: true });
    const live = await res.next();
    expect(live.events?.map((e) => e.type)).toEqual(["DELETE"]);
    // A new store is at revision 1 (as etcd): the puts were 2 and 3.
    expect(Number(live.header.revision)).toBe(4);
    stream.write({ request_union: "progress_request", progress_request: {} });
    expect(Number((await res.next()).watch_id)).toBe(-1);

    await local.unary("Compact", { revision: 4 });
    const late = local.stream("Watch");
    cleanups.push(() => late.cancel());
    const lateRes = responses(late);
    late.write({ request_union: "create_request", create_request: { key: b("/w/"), range_end: b("/w0"), start_revision: 1 } });
    let canceled: PbWatchResponse | undefined;
    for (let i = 0; i < 3 && canceled === undefined; i++) {
      const r = await lateRes.next();
      if (r.canceled) canceled = r;
    }
    expect(Number(canceled?.compact_revision)).toBe(4);
  });
});
