import { describe, expect, it } from "vitest";
import { LeaseDeadlines } from "./lease-expiry.ts";
import { MAX_LEASE_TTL, MvccStore } from "./store.ts";
import { b, changes, kvs, str } from "./testing/helpers.ts";

const keysOf = (s: MvccStore, id: bigint) => s.lease(id)?.keys.map(str);

describe("leases in the store", () => {
  it("grant, list, and reject duplicates, id 0 and too large TTLs", () => {
    const s = new MvccStore();
    expect(s.leaseGrant({ id: 20n, ttl: 30 }).response).toEqual({ id: 20n, ttl: 30 });
    s.leaseGrant({ id: 10n, ttl: 5 });
    s.leaseGrant({ id: 0x7fff_ffff_ffff_ffffn, ttl: 1 });
    expect(s.leases()).toEqual([
      { id: 10n, ttl: 5 },
      { id: 20n, ttl: 30 },
      { id: 0x7fff_ffff_ffff_ffffn, ttl: 1 },
    ]);
    expect(() => s.leaseGrant({ id: 10n, ttl: 5 })).toThrow("etcdserver: lease already exists");
    expect(() => s.leaseGrant({ id: 0n, ttl: 5 })).toThrow(/lease id 0/);
    expect(() => s.leaseGrant({ id: 11n, ttl: MAX_LEASE_TTL + 1 })).toThrow("etcdserver: too large lease TTL");
    // granting takes no revision
    expect(s.currentRevision).toBe(1);
  });

  it("put attaches, re-put with another lease moves, put without lease and delete detach", () => {
    const s = new MvccStore();
    s.leaseGrant({ id: 1n, ttl: 10 });
    s.leaseGrant({ id: 2n, ttl: 10 });
    s.put({ key: b("b"), value: b("x"), lease: 1n });
    s.put({ key: b("a"), value: b("x"), lease: 1n });
    s.put({ key: b("c"), value: b("x"), lease: 1n });
    expect(keysOf(s, 1n)).toEqual(["a", "b", "c"]);
    s.put({ key: b("a"), value: b("y"), lease: 2n });
    s.put({ key: b("b"), value: b("y") });
    s.deleteRange({ key: b("c") });
    expect(keysOf(s, 1n)).toEqual([]);
    expect(keysOf(s, 2n)).toEqual(["a"]);
    expect(kvs(s.range({ key: b("a") }).kvs)).toEqual(["a=y@3/5/v2/l2"]);
    expect(s.lease(3n)).toBeUndefined();
    expect(() => s.put({ key: b("d"), value: b("x"), lease: 3n })).toThrow("etcdserver: requested lease not found");
  });

  it("revoke deletes the attached keys in key order as one revision", () => {
    const s = new MvccStore();
    s.leaseGrant({ id: 5n, ttl: 10 });
    s.put({ key: b("z"), value: b("1"), lease: 5n }); // 2
    s.put({ key: b("m"), value: b("1"), lease: 5n }); // 3
    s.put({ key: b("keep"), value: b("1") }); // 4
    const res = s.leaseRevoke({ id: 5n });
    expect(res.revision).toBe(5);
    expect(changes(res.change ? [res.change] : [])).toEqual([
      "5: DELETE m=@0/5/v0 prev m=1@3/3/v1/l5",
      "5: DELETE z=@0/5/v0 prev z=1@2/2/v1/l5",
    ]);
    expect(s.leases()).toEqual([]);
    expect(kvs(s.range({ key: b("a"), rangeEnd: new Uint8Array([0]) }).kvs)).toEqual(["keep=1@4/4/v1"]);
    expect(() => s.leaseRevoke({ id: 5n })).toThrow("etcdserver: requested lease not found");
  });

  it("revoking a lease without keys takes no revision", () => {
    const s = new MvccStore();
    s.leaseGrant({ id: 5n, ttl: 10 });
    expect(s.leaseRevoke({ id: 5n })).toEqual({ revision: 1, change: null, response: {} });
    expect(s.leases()).toEqual([]);
  });
});

describe("lease deadlines (leader side)", () => {
  it("expire after the TTL unless renewed; the caller revokes through the log", () => {
    const d = new LeaseDeadlines();
    const s = new MvccStore();
    s.leaseGrant({ id: 1n, ttl: 10 });
    s.leaseGrant({ id: 2n, ttl: 5 });
    s.put({ key: b("k"), value: b("v"), lease: 2n });
    d.grant(1n, 10, 0);
    d.grant(2n, 5, 0);
    expect(d.expiredLeases(4_999)).toEqual([]);
    expect(d.remainingSeconds(2n, 4_001)).toBe(1);
    expect(d.expiredLeases(5_000)).toEqual([2n]);
    expect(d.renew(2n, 5_000)).toBeUndefined(); // too late
    expect(d.renew(1n, 9_000)).toBe(10);
    expect(d.expiredLeases(15_000)).toEqual([2n]);
    expect(d.expiredLeases(19_000)).toEqual([2n, 1n]);
    expect(d.expiredLeases(19_000, 1)).toEqual([2n]);
    for (const id of d.expiredLeases(19_000)) {
      s.apply({ type: "leaseRevoke", request: { id } });
      d.forget(id);
    }
    expect(s.range({ key: b("k") }).count).toBe(0);
    expect(s.leases()).toEqual([]);
    expect(d.size).toBe(0);
    expect(d.remainingSeconds(1n, 0)).toBe(-1);
  });

  it("a new leader gives every lease a full TTL from its promotion", () => {
    const d = new LeaseDeadlines();
    d.grant(9n, 1, 0);
    d.promote(
      [
        { id: 1n, ttl: 10 },
        { id: 2n, ttl: 20 },
      ],
      100_000,
    );
    expect(d.size).toBe(2);
    expect(d.expiredLeases(109_999)).toEqual([]);
    expect(d.expiredLeases(110_000)).toEqual([1n]);
    expect(d.remainingSeconds(2n, 100_000)).toBe(20);
  });
});
