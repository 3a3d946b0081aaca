import { status } from "@grpc/grpc-js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { encodeRequest, type StoreRequest } from "../mvcc/index.ts";
import type { StoreBackend } from "./backend.ts";
import { LocalBackend } from "./local-backend.ts";
import { b, expectGrpcError, startTestServer, str, type Msg, type TestServer } from "./testing/support.ts";

type Kv = { key: Buffer; value: Buffer; create_revision: string; mod_revision: string; version: string; lease: string };
type RangeRes = Msg & { kvs: Kv[]; more: boolean; count: string };

describe("KV service", () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer({ maxRequestBytes: 64 * 1024 });
  });
  afterEach(async () => {
    await t.close();
  });

  const put = (key: string, value: string, extra: object = {}) => t.call("KV", "Put", { key: b(key), value: b(value), ...extra });
  const range = (req: object) => t.call<RangeRes>("KV", "Range", req);

  it("puts and reads back with etcd's response header", async () => {
    const p = await put("a", "1");
    expect(p.header).toEqual({ cluster_id: "1", member_id: "1", revision: "2", raft_term: "1" });
    const r = await range({ key: b("a") });
    expect(r.header?.revision).toBe("2");
    expect(r.count).toBe("1");
    expect(str(r.kvs[0].value)).toBe("1");
    expect(r.kvs[0]).toMatchObject({ create_revision: "2", mod_revision: "2", version: "1", lease: "0" });
    const p2 = await put("a", "2", { prev_kv: true });
    expect(str((p2.prev_kv as Kv).value)).toBe("1");
  });

  it("serves prefixes, limits, past revisions, sorting, keys-only, count-only and serializable reads", async () => {
    for (const k of ["p/a", "p/b", "p/c", "q"]) await put(k, k);
    await put("p/a", "again");
    const all = await range({ key: b("p/"), range_end: b("p0") });
    expect(all.kvs.map((kv) => str(kv.key))).toEqual(["p/a", "p/b", "p/c"]);
    const limited = await range({ key: b("p/"), range_end: b("p0"), limit: 2 });
    expect(limited.kvs).toHaveLength(2);
    expect(limited.more).toBe(true);
    expect(limited.count).toBe("3");
    const old = await range({ key: b("p/a"), revision: 2 });
    expect(str(old.kvs[0].value)).toBe("p/a");
    const desc = await range({ key: b("p/"), range_end: b("p0"), sort_order: "DESCEND", sort_target: "KEY" });
    expect(desc.kvs.map((kv) => str(kv.key))).toEqual(["p/c", "p/b", "p/a"]);
    const keys = await range({ key: b("p/"), range_end: b("p0"), keys_only: true });
    expect(keys.kvs.every((kv) => kv.value.length === 0)).toBe(true);
    const count = await range({ key: b("\0"), range_end: b("\0"), count_only: true });
    expect(count.kvs).toHaveLength(0);
    expect(count.count).toBe("4");
    const ser = await range({ key: b("q"), serializable: true });
    expect(str(ser.kvs[0].value)).toBe("q");
  });

  it("deletes ranges with previous values", async () => {
    for (const k of ["d/1", "d/2", "e"]) await put(k, k);
    const res = await t.call<Msg & { deleted: string; prev_kvs: Kv[] }>("KV", "DeleteRange", { key: b("d/"), range_end: b("d0"), prev_kv: true });
    expect(res.deleted).toBe("2");
    expect(res.prev_kvs.map((kv) => str(kv.value))).toEqual(["d/1", "d/2"]);
    expect(res.header?.revision).toBe("5");
    expect((await range({ key: b("d/"), range_end: b("d0") })).count).toBe("0");
  });

  it("runs txns: compares choose the branch, nested txns, read-only txns take no revision", async () => {
    await put("k", "v");
    const ok = await t.call<Msg & { succeeded: boolean; responses: Msg[] }>("KV", "Txn", {
      compare: [
        { key: b("k"), target: "VALUE", result: "EQUAL", value: b("v") },
        { key: b("k"), target: "MOD", result: "GREATER", mod_revision: 0 },
        { key: b("k"), target: "VERSION", result: "EQUAL", version: 1 },
        { key: b("missing"), target: "CREATE", result: "EQUAL", create_revision: 0 },
      ],
      success: [
        { request_put: { key: b("k"), value: b("w"), prev_kv: true } },
        { request_range: { key: b("k") } },
        { request_txn: { compare: [], success: [{ request_put: { key: b("n"), value: b("1") } }] } },
      ],
      failure: [{ request_delete_range: { key: b("k") } }],
    });
    expect(ok.succeeded).toBe(true);
    expect(ok.header?.revision).toBe("3");
    expect(ok.responses).toHaveLength(3);
    expect(str(((ok.responses[0].response_put as Msg).prev_kv as Kv).value)).toBe("v");
    expect(str(((ok.responses[1].response_range as RangeRes).kvs[0]).value)).toBe("w");
    const failed = await t.call<Msg & { succeeded: boolean; responses: Msg[] }>("KV", "Txn", {
      compare: [{ key: b("k"), target: "VALUE", result: "EQUAL", value: b("nope") }],
      success: [{ request_put: { key: b("x"), value: b("x") } }],
      failure: [{ request_range: { key: b("n") } }],
    });
    expect(failed.succeeded).toBe(false);
    expect(failed.header?.revision).toBe("3");
    expect(str(((failed.responses[0].response_range as RangeRes).kvs[0]).value)).toBe("1");
  });

  it("compacts; reads below the compact revision are OUT_OF_RANGE, as are future revisions", async () => {
    for (let i = 0; i < 5; i++) await put("c", String(i));
    const res = await t.call("KV", "Compact", { revision: 4 });
    expect(res.header?.revision).toBe("6");
    await expectGrpcError(range({ key: b("c"), revision: 3 }), status.OUT_OF_RANGE, "etcdserver: mvcc: required revision has been compacted");
    expect(str((await range({ key: b("c"), revision: 4 })).kvs[0].value)).toBe("2");
    await expectGrpcError(range({ key: b("c"), revision: 100 }), status.OUT_OF_RANGE, "etcdserver: mvcc: required revision is a future revision");
    await expectGrpcError(t.call("KV", "Compact", { revision: 3 }), status.OUT_OF_RANGE, "etcdserver: mvcc: required revision has been compacted");
    await expectGrpcError(t.call("KV", "Compact", { revision: 99 }), status.OUT_OF_RANGE, /future revision/);
  });

  it("refuses malformed requests with INVALID_ARGUMENT and keeps serving", async () => {
    const INVALID = status.INVALID_ARGUMENT;
    await expectGrpcError(range({ key: b("") }), INVALID, "etcdserver: key is not provided");
    await expectGrpcError(put("", "v"), INVALID, "etcdserver: key is not provided");
    await expectGrpcError(t.call("KV", "DeleteRange", {}), INVALID, "etcdserver: key is not provided");
    await expectGrpcError(range({ key: b("a"), sort_order: 7 }), INVALID, /unknown sort order/);
    await expectGrpcError(range({ key: b("a"), limit: -1 }), INVALID, /negative limit/);
    await expectGrpcError(range({ key: b("a"), revision: "9007199254740993" }), INVALID, /out of range/);
    await expectGrpcError(put("a", "v", { ignore_value: true }), INVALID, "etcdserver: value is provided");
    await expectGrpcError(put("a", "", { ignore_value: true }), INVALID, "etcdserver: key not found");
    await expectGrpcError(put("a", "v", { lease: 42 }), status.NOT_FOUND, "etcdserver: requested lease not found");
    const txn = (req: object) => t.call("KV", "Txn", req);
    await expectGrpcError(txn({ compare: [{ key: b("a"), target: 9, result: "EQUAL" }] }), INVALID, /unknown compare target 9/);
    await expectGrpcError(txn({ compare: [{ key: b("a"), target: "MOD", result: 12 }] }), INVALID, /unknown compare result/);
    await expectGrpcError(txn({ success: [{}] }), INVALID, /txn op without a request/);
    const ops = Array.from({ length: 129 }, (_, i) => ({ request_put: { key: b(`k${i}`), value: b("v") } }));
    await expectGrpcError(txn({ success: ops }), INVALID, "etcdserver: too many operations in txn request");
    const dup = [{ request_put: { key: b("k"), value: b("1") } }, { request_put: { key: b("k"), value: b("2") } }];
    await expectGrpcError(txn({ success: dup }), INVALID, "etcdserver: duplicate key given in txn request");
    const putDel = [{ request_put: { key: b("k/1"), value: b("1") } }, { request_delete_range: { key: b("k/"), range_end: b("k0") } }];
    await expectGrpcError(txn({ success: putDel }), INVALID, "etcdserver: duplicate key given in txn request");
    expect((await put("still", "alive")).header?.revision).toBe("2");
  });

  it("refuses values over the request limit; beyond the gRPC limit the transport refuses", async () => {
    await expectGrpcError(put("big", "x".repeat(65 * 1024)), status.INVALID_ARGUMENT, "etcdserver: request is too large");
    const txn = { success: [{ request_put: { key: b("big"), value: b("x".repeat(70 * 1024)) } }] };
    await expectGrpcError(t.call("KV", "Txn", txn), status.INVALID_ARGUMENT, "etcdserver: request is too large");
    await expectGrpcError(put("huge", "x".repeat(700 * 1024)), status.RESOURCE_EXHAUSTED);
    expect(await put("small", "x".repeat(60 * 1024))).toBeDefined();
  });

  it("answers 'no leader' as UNAVAILABLE for writes and linearizable reads, serializable reads still work", async () => {
    const local = new LocalBackend();
    const leaderless: StoreBackend = {
      mvcc: local.mvcc,
      propose: (r) => local.propose(r),
      readBarrier: () => local.readBarrier(),
      onApplied: (l) => local.onApplied(l),
      status: () => ({ ...local.status(), leader: 0n }),
    };
    const u = await startTestServer({}, leaderless);
    try {
      await expectGrpcError(u.call("KV", "Put", { key: b("a"), value: b("1") }), status.UNAVAILABLE, "etcdserver: no leader");
      await expectGrpcError(u.call("KV", "Range", { key: b("a") }), status.UNAVAILABLE, "etcdserver: no leader");
      expect((await u.call<RangeRes>("KV", "Range", { key: b("a"), serializable: true })).count).toBe("0");
    } finally {
      await u.close();
    }
  });

  it("hands the backend each write encoded once, as encodeRequest makes it (the node does not encode it again)", async () => {
    const local = new LocalBackend();
    const seen: { request: StoreRequest; encoded: Uint8Array | undefined }[] = [];
    const recording: StoreBackend = {
      mvcc: local.mvcc,
      propose: (r, encoded) => {
        seen.push({ request: r, encoded });
        return local.propose(r);
      },
      readBarrier: () => local.readBarrier(),
      onApplied: (l) => local.onApplied(l),
      status: () => local.status(),
    };
    const u = await startTestServer({}, recording);
    try {
      await u.call("KV", "Put", { key: b("a"), value: b("x".repeat(1024)) });
      await u.call("KV", "Txn", { compare: [{ key: b("a"), target: "MOD", mod_revision: "2" }], success: [{ request_put: { key: b("a"), value: b("y") } }] });
      expect(seen.map((s) => s.request.type)).toEqual(["put", "txn"]);
      for (const s of seen) expect(s.encoded).toEqual(encodeRequest(s.request));
    } finally {
      await u.close();
    }
  });

  it("maps backend failures to etcd's errors and never crashes", async () => {
    const local = new LocalBackend();
    const failing: StoreBackend = {
      mvcc: local.mvcc,
      propose: () => Promise.reject(Object.assign(new Error("store: request timed out"), { name: "NodeError", code: "timeout" })),
      readBarrier: () => Promise.reject(new Error("boom")),
      onApplied: (l) => local.onApplied(l),
      status: () => local.status(),
    };
    const u = await startTestServer({}, failing);
    try {
      await expectGrpcError(u.call("KV", "Put", { key: b("a"), value: b("1") }), status.UNAVAILABLE, "etcdserver: request timed out");
      await expectGrpcError(u.call("KV", "Range", { key: b("a") }), status.INTERNAL, "etcdserver: boom");
    } finally {
      await u.close();
    }
  });
});
