import { Client, credentials, status, type ServiceError } from "@grpc/grpc-js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { b, expectGrpcError, startTestServer, str, type Msg, type TestServer } from "./testing/support.ts";

type Grant = Msg & { ID: string; TTL: string };
type Ttl = Msg & { ID: string; TTL: string; grantedTTL: string; keys: Buffer[] };

describe("Lease service", () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer({ minLeaseTtl: 1, leaseCheckIntervalMs: 50 });
  });
  afterEach(async () => {
    await t.close();
  });

  const grant = (TTL: number, ID: number | string = 0) => t.call<Grant>("Lease", "LeaseGrant", { TTL, ID });
  const ttl = (ID: string, keys = false) => t.call<Ttl>("Lease", "LeaseTimeToLive", { ID, keys });

  it("grants with a server-chosen positive id or the client's id; duplicates and huge TTLs are refused", async () => {
    const g = await grant(30);
    expect(BigInt(g.ID)).toBeGreaterThan(0n);
    expect(g.TTL).toBe("30");
    expect(g.header?.revision).toBe("1");
    const mine = await grant(10, 1234);
    expect(mine.ID).toBe("1234");
    await expectGrpcError(grant(10, 1234), status.FAILED_PRECONDITION, "etcdserver: lease already exists");
    await expectGrpcError(grant(9_000_000_001), status.OUT_OF_RANGE, "etcdserver: too large lease TTL");
    const leases = await t.call<Msg & { leases: Array<{ ID: string }> }>("Lease", "LeaseLeases");
    expect(leases.leases.map((l) => l.ID).sort()).toEqual([g.ID, "1234"].sort());
  });

  it("raises short TTLs to the minimum", async () => {
    const u = await startTestServer({ minLeaseTtl: 5 });
    try {
      expect((await u.call<Grant>("Lease", "LeaseGrant", { TTL: 1 })).TTL).toBe("5");
    } finally {
      await u.close();
    }
  });

  it("reports time to live with attached keys; unknown leases have TTL -1", async () => {
    const g = await grant(30, 77);
    await t.call("KV", "Put", { key: b("l/a"), value: b("1"), lease: g.ID });
    await t.call("KV", "Put", { key: b("l/b"), value: b("2"), lease: g.ID });
    const res = await ttl(g.ID, true);
    expect(res.ID).toBe("77");
    expect(res.grantedTTL).toBe("30");
    expect(Number(res.TTL)).toBeGreaterThan(28);
    expect(res.keys.map(str)).toEqual(["l/a", "l/b"]);
    expect((await ttl(g.ID)).keys).toEqual([]);
    expect((await ttl("999")).TTL).toBe("-1");
  });

  it("revokes a lease and deletes its keys in one revision", async () => {
    const g = await grant(30);
    await t.call("KV", "Put", { key: b("r/a"), value: b("1"), lease: g.ID });
    await t.call("KV", "Put", { key: b("r/b"), value: b("2"), lease: g.ID });
    const res = await t.call("Lease", "LeaseRevoke", { ID: g.ID });
    expect(res.header?.revision).toBe("4");
    expect((await t.call<Msg & { count: string }>("KV", "Range", { key: b("r/"), range_end: b("r0") })).count).toBe("0");
    await expectGrpcError(t.call("Lease", "LeaseRevoke", { ID: g.ID }), status.NOT_FOUND, "etcdserver: requested lease not found");
  });

  it("keeps leases alive over the stream; unknown leases answer TTL 0", async () => {
    const g = await grant(1);
    await t.call("KV", "Put", { key: b("ka"), value: b("1"), lease: g.ID });
    const s = t.stream<{ ID: string }, { ID: string; TTL: string; header: Msg["header"] }>("Lease", "LeaseKeepAlive");
    const replies: Array<{ ID: string; TTL: string }> = [];
    s.on("data", (r: { ID: string; TTL: string }) => replies.push(r));
    for (let i = 0; i < 8; i++) {
      s.write({ ID: g.ID });
      await new Promise((r) => setTimeout(r, 250));
    }
    s.write({ ID: "4242" });
    await new Promise((r) => setTimeout(r, 100));
    expect(replies.slice(0, 8).every((r) => r.ID === g.ID && r.TTL === "1")).toBe(true);
    expect(replies[8]).toMatchObject({ ID: "4242", TTL: "0" });
    // Two seconds have passed, twice the TTL: the keep-alives held the lease and its key.
    expect((await t.call<Msg & { count: string }>("KV", "Range", { key: b("ka") })).count).toBe("1");
    s.end();
  });

  it("expires a lease without keep-alives and removes its keys (seen by watchers)", async () => {
    const g = await grant(1);
    await t.call("KV", "Put", { key: b("e/a"), value: b("1"), lease: g.ID });
    await t.call("KV", "Put", { key: b("e/b"), value: b("2") });
    const w = t.watch();
    w.create({ key: b("e/"), range_end: b("e0") });
    await w.next();
    const ev = await w.next(3000);
    expect(ev.events?.map((e) => `${e.type} ${str(e.kv.key)}`)).toEqual(["DELETE e/a"]);
    expect((await ttl(g.ID)).TTL).toBe("-1");
    const left = await t.call<Msg & { kvs: Array<{ key: Buffer }> }>("KV", "Range", { key: b("e/"), range_end: b("e0") });
    expect(left.kvs.map((kv) => str(kv.key))).toEqual(["e/b"]);
  });

  it("survives undecodable request bytes on every service and keeps serving", async () => {
    const client = new Client(t.endpoint, credentials.createInsecure());
    const raw = (path: string, bytes: Buffer) =>
      new Promise<ServiceError | null>((resolve) => {
        client.makeUnaryRequest(path, (x: Buffer) => x, (x: Buffer) => x, bytes, (err) => resolve(err));
      });
    const garbage = [Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f]), Buffer.from([0x0a, 0x7f, 0x01]), Buffer.from([0x08])];
    for (const path of ["/etcdserverpb.KV/Range", "/etcdserverpb.KV/Txn", "/etcdserverpb.Lease/LeaseGrant", "/etcdserverpb.Cluster/MemberList"]) {
      for (const bytes of garbage) {
        const err = await raw(path, bytes);
        expect(err?.code, path).not.toBe(status.OK);
      }
    }
    client.close();
    expect((await grant(5)).TTL).toBe("5");
  });
});
