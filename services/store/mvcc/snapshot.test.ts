import { describe, expect, it } from "vitest";
import { BinaryReader, BinaryWriter, DecodeError } from "./binary.ts";
import { decodeRequest, encodeRequest } from "./request-codec.ts";
import { encodeSnapshotSliced } from "./snapshot.ts";
import { MvccStore } from "./store.ts";
import { b, changes, kvs, rng } from "./testing/helpers.ts";
import type { StoreRequest } from "./types.ts";

function busy(): MvccStore {
  const s = new MvccStore();
  s.leaseGrant({ id: 3n, ttl: 30 });
  s.leaseGrant({ id: -4n, ttl: 7 });
  s.put({ key: b("a"), value: b("1") });
  s.put({ key: b("a"), value: b("2"), lease: 3n });
  s.put({ key: new Uint8Array([0xff, 0x00]), value: new Uint8Array([0, 1, 2]), lease: -4n });
  s.deleteRange({ key: b("a") });
  s.put({ key: b("a"), value: b("3") });
  s.txn({
    success: [
      { type: "put", request: { key: b("t1"), value: b("x"), lease: 3n } },
      { type: "put", request: { key: b("t2"), value: b("") } },
    ],
  });
  s.put({ key: b("t1"), value: b("y"), ignoreLease: true });
  s.compact(5);
  s.put({ key: b("z"), value: b("after") });
  return s;
}

const all = { key: new Uint8Array([0]), rangeEnd: new Uint8Array([0]) };

describe("snapshot", () => {
  it("round trips exactly: bytes, reads at every retained revision, history, leases", () => {
    const s = busy();
    const bytes = s.snapshot();
    const r = MvccStore.fromSnapshot(bytes);
    expect(r.snapshot()).toEqual(bytes);
    expect(r.currentRevision).toBe(s.currentRevision);
    expect(r.compactRevision).toBe(5);
    for (let rev = 5; rev <= s.currentRevision; rev++) {
      expect(r.range({ ...all, revision: rev })).toEqual(s.range({ ...all, revision: rev }));
    }
    expect(() => r.range({ ...all, revision: 4 })).toThrow("mvcc: required revision has been compacted");
    expect(r.changesSince(5)).toEqual(s.changesSince(5));
    expect(r.changesSince(5).map((c) => c.revision)).toEqual([5, 6, 7, 8, 9]);
    expect(changes(r.changesSince(5))[0]).toBe("5: DELETE a=@0/5/v0 prev a=2@2/3/v2/l3");
    expect(r.leases()).toEqual(s.leases());
    expect(r.lease(3n)).toEqual(s.lease(3n));
    expect(r.lease(-4n)).toEqual(s.lease(-4n));
    // the restored store continues identically
    const req: StoreRequest = { type: "leaseRevoke", request: { id: 3n } };
    expect(r.apply(req)).toEqual(s.apply(req));
    expect(r.snapshot()).toEqual(s.snapshot());
  });

  it("of an empty store round trips", () => {
    const s = new MvccStore();
    const r = MvccStore.fromSnapshot(s.snapshot());
    expect(r.currentRevision).toBe(1);
    expect(r.range(all).count).toBe(0);
    expect(r.snapshot()).toEqual(s.snapshot());
  });

  it("restore replaces the state of an existing store", () => {
    const r = new MvccStore();
    r.put({ key: b("old"), value: b("x") });
    r.restore(busy().snapshot());
    expect(kvs(r.range({ key: b("old") }).kvs)).toEqual([]);
    expect(kvs(r.range({ key: b("z") }).kvs)).toEqual(["z=after@9/9/v1"]);
  });

  it("rejects malformed input and keeps the previous state", () => {
    const s = busy();
    const bytes = s.snapshot();
    const r = new MvccStore();
    r.put({ key: b("mine"), value: b("x") });
    expect(() => r.restore(bytes.subarray(0, bytes.length - 1))).toThrow(DecodeError);
    expect(() => r.restore(new Uint8Array([...bytes, 0]))).toThrow(DecodeError);
    const badMagic = Uint8Array.from(bytes);
    badMagic[0] = 0;
    expect(() => r.restore(badMagic)).toThrow("not an mvcc snapshot");
    expect(kvs(r.range({ key: b("mine") }).kvs)).toEqual(["mine=x@2/2/v1"]);
  });
});

describe("request codec", () => {
  const requests: StoreRequest[] = [
    { type: "put", request: { key: b("k"), value: b("v"), lease: 0x7fff_ffff_ffff_ffffn, prevKv: true, ignoreValue: false, ignoreLease: false } },
    { type: "deleteRange", request: { key: b("a"), rangeEnd: new Uint8Array([0]), prevKv: false } },
    { type: "compact", request: { revision: 123_456_789_012 } },
    { type: "leaseGrant", request: { id: -(1n << 63n), ttl: 60 } },
    { type: "leaseRevoke", request: { id: 42n } },
    {
      type: "txn",
      request: {
        compare: [
          { key: b("a"), rangeEnd: new Uint8Array(0), result: "EQUAL", target: "MOD", modRevision: 0 },
          { key: b("a"), rangeEnd: b("b"), result: "NOT_EQUAL", target: "VALUE", value: b("x") },
          { key: b("a"), rangeEnd: new Uint8Array(0), result: "GREATER", target: "VERSION", version: 3 },
          { key: b("a"), rangeEnd: new Uint8Array(0), result: "LESS", target: "CREATE", createRevision: 9 },
          { key: b("a"), rangeEnd: new Uint8Array(0), result: "EQUAL", target: "LEASE", lease: -1n },
        ],
        success: [
          {
            type: "range",
            request: {
              key: b("a"),
              rangeEnd: b("z"),
              limit: 10,
              revision: -1,
              sortOrder: "DESCEND",
              sortTarget: "MOD",
              keysOnly: true,
              countOnly: false,
              minModRevision: 1,
              maxModRevision: 2,
              minCreateRevision: 3,
              maxCreateRevision: 4,
            },
          },
          {
            type: "txn",
            request: { compare: [], success: [{ type: "deleteRange", request: { key: b("q"), rangeEnd: new Uint8Array(0), prevKv: true } }], failure: [] },
          },
        ],
        failure: [{ type: "put", request: { key: b("f"), value: new Uint8Array(0), lease: 0n, prevKv: false, ignoreValue: true, ignoreLease: true } }],
      },
    },
  ];

  for (const req of requests) {
    it(`round trips a ${req.type} request`, () => {
      const bytes = encodeRequest(req);
      expect(decodeRequest(bytes)).toEqual(req);
      expect(encodeRequest(decodeRequest(bytes))).toEqual(bytes);
    });
  }

  it("fills absent optional fields with zero values", () => {
    expect(decodeRequest(encodeRequest({ type: "put", request: { key: b("k") } }))).toEqual({
      type: "put",
      request: { key: b("k"), value: new Uint8Array(0), lease: 0n, prevKv: false, ignoreValue: false, ignoreLease: false },
    });
  });

  it("decoded bytes do not alias the entry buffer", () => {
    const bytes = encodeRequest({ type: "put", request: { key: b("k"), value: b("v") } });
    const decoded = decodeRequest(bytes);
    bytes.fill(0);
    expect(decoded.type === "put" && new TextDecoder().decode(decoded.request.value)).toBe("v");
  });

  it("rejects truncated, trailing and unknown input", () => {
    const bytes = encodeRequest(requests[5]);
    for (let n = 0; n < bytes.length; n++) expect(() => decodeRequest(bytes.subarray(0, n))).toThrow(DecodeError);
    expect(() => decodeRequest(new Uint8Array([...bytes, 1]))).toThrow(DecodeError);
    expect(() => decodeRequest(new Uint8Array([1, 9]))).toThrow(DecodeError);
    expect(() => decodeRequest(new Uint8Array([2, 1]))).toThrow("unsupported request version 2");
  });

  it("apply of a decoded entry equals apply of the original request", () => {
    const a = busy();
    const c = busy();
    for (const req of requests) {
      const ra = a.apply(req);
      const rc = c.apply(decodeRequest(encodeRequest(req)));
      expect(rc).toEqual(ra);
    }
    expect(c.snapshot()).toEqual(a.snapshot());
  });
});

describe("varints", () => {
  it("encode the extremes of each integer kind exactly", () => {
    const nums = [0, 1, 127, 128, 2 ** 31, 2 ** 32 + 5, Number.MAX_SAFE_INTEGER];
    const signed = [0, -1, 1, -(2 ** 40), Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];
    const bigs = [0n, -1n, 1n, (1n << 51n) - 1n, 1n << 51n, -(1n << 51n), (1n << 63n) - 1n, -(1n << 63n)];
    const w = new BinaryWriter();
    for (const n of nums) w.uvarint(n);
    for (const n of signed) w.svarint(n);
    for (const n of bigs) w.i64(n);
    const r = new BinaryReader(w.finish());
    expect(nums.map(() => r.uvarint())).toEqual(nums);
    expect(signed.map(() => r.svarint())).toEqual(signed);
    expect(bigs.map(() => r.i64())).toEqual(bigs);
    r.end();
    expect(() => new BinaryWriter().i64(1n << 63n)).toThrow(RangeError);
    expect(() => new BinaryWriter().uvarint(-1)).toThrow(RangeError);
  });
});

describe("a view encoded in slices (encodeSnapshotSliced)", () => {
  /** Deterministic mix of puts (some with a lease), deletes, aborted txns and compactions. */
  function mutate(s: MvccStore, seed: number, ops: number, value: Uint8Array, compact = true): number {
    const next = rng(seed);
    const rand = (n: number) => Math.floor(next() * n);
    const counts = { compactions: 0 };
    for (let i = 0; i < ops; i++) {
      const key = b(`k${rand(40)}`);
      const op = rand(20);
      if (op < 12) s.put({ key, value, lease: op === 0 ? 3n : undefined });
      else if (op < 16) s.deleteRange({ key });
      else if (op < 18) {
        // a txn whose second put fails (unknown lease) rolls its first put back
        expect(() => s.txn({ success: [{ type: "put", request: { key, value } }, { type: "put", request: { key: b("x"), value, lease: 99n } }] })).toThrow();
      } else if (compact) {
        const floor = Math.max(s.compactRevision + 1, s.currentRevision - 150);
        if (floor <= s.currentRevision) {
          s.compact(floor + rand(s.currentRevision - floor + 1));
          counts.compactions++;
        }
      }
    }
    return counts.compactions;
  }

  it.each([1, 7, 42, 1234])("gives the bytes of the state when the view was taken, whatever is written and compacted meanwhile (seed %i)", async (seed) => {
    const value = new Uint8Array(64 * 1024).fill(seed % 251);
    const s = new MvccStore();
    s.leaseGrant({ id: 3n, ttl: 30 });
    mutate(s, seed, 300, value, false); // ~11 MB of history in the view
    const expected = s.snapshot();
    const view = s.snapshotView();
    let compactions = mutate(s, seed + 1, 100, value); // before the first slice
    let pauses = 0;
    const sliced = await encodeSnapshotSliced(view, async () => {
      pauses++;
      compactions += mutate(s, seed + 1 + pauses, 25, value); // between slices
    });
    expect(Buffer.from(sliced).equals(Buffer.from(expected))).toBe(true);
    expect(pauses).toBeGreaterThan(3); // it did yield
    expect(s.compactRevision).toBeGreaterThan(view.compactRevision); // history the view holds was compacted meanwhile
    expect(compactions).toBeGreaterThan(3);
    expect(MvccStore.fromSnapshot(sliced).currentRevision).toBe(view.revision);
  });

  it("without pauses equals encodeSnapshot of the same state, after a prefix when given", async () => {
    const s = busy();
    expect(await encodeSnapshotSliced(s.snapshotView())).toEqual(s.snapshot());
    const prefix = new Uint8Array([9, 8, 7]);
    expect(await encodeSnapshotSliced(s.snapshotView(), undefined, prefix)).toEqual(new Uint8Array([...prefix, ...s.snapshot()]));
  });

  it("is sized from the space in use, which covers the encoding", () => {
    const s = new MvccStore();
    for (let i = 0; i < 2000; i++) s.put({ key: b(`key-${i % 300}`), value: new Uint8Array(i % 700) });
    const view = s.snapshotView();
    expect(view.sizeHint).toBeGreaterThanOrEqual(s.snapshot().byteLength);
  });
});
