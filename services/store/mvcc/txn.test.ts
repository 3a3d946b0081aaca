import { describe, expect, it } from "vitest";
import { ErrCompacted, ErrFutureRev, StoreError } from "./errors.ts";
import { MvccStore } from "./store.ts";
import { b, changes, kvs } from "./testing/helpers.ts";
import type { Compare, CompareResult, CompareTargetValue, TxnRequest } from "./types.ts";

/** "a" exists: created at 2, modified at 4, version 2, value "v2", lease 7. "b" never existed. */
function seeded(): MvccStore {
  const s = new MvccStore();
  s.leaseGrant({ id: 7n, ttl: 60 });
  s.put({ key: b("a"), value: b("v1") }); // 2
  s.put({ key: b("z"), value: b("other") }); // 3
  s.put({ key: b("a"), value: b("v2"), lease: 7n }); // 4
  return s;
}

function holds(s: MvccStore, c: Compare): boolean {
  return s.txn({ compare: [c] }).response.succeeded;
}

describe("txn compares", () => {
  // For each target: the key's actual value, and a smaller and a larger operand.
  const targets: { actual: CompareTargetValue; less: CompareTargetValue; greater: CompareTargetValue }[] = [
    { actual: { target: "VERSION", version: 2 }, less: { target: "VERSION", version: 1 }, greater: { target: "VERSION", version: 3 } },
    {
      actual: { target: "CREATE", createRevision: 2 },
      less: { target: "CREATE", createRevision: 1 },
      greater: { target: "CREATE", createRevision: 3 },
    },
    { actual: { target: "MOD", modRevision: 4 }, less: { target: "MOD", modRevision: 3 }, greater: { target: "MOD", modRevision: 5 } },
    { actual: { target: "VALUE", value: b("v2") }, less: { target: "VALUE", value: b("v1") }, greater: { target: "VALUE", value: b("v3") } },
    { actual: { target: "LEASE", lease: 7n }, less: { target: "LEASE", lease: 6n }, greater: { target: "LEASE", lease: 8n } },
  ];
  // Expected outcome of comparing the key's value (on the left) with the operand.
  const table: { result: CompareResult; equal: boolean; keyIsGreater: boolean; keyIsLess: boolean }[] = [
    { result: "EQUAL", equal: true, keyIsGreater: false, keyIsLess: false },
    { result: "NOT_EQUAL", equal: false, keyIsGreater: true, keyIsLess: true },
    { result: "GREATER", equal: false, keyIsGreater: true, keyIsLess: false },
    { result: "LESS", equal: false, keyIsGreater: false, keyIsLess: true },
  ];
  for (const t of targets) {
    for (const row of table) {
      it(`${t.actual.target} ${row.result}`, () => {
        const s = seeded();
        expect(holds(s, { key: b("a"), result: row.result, ...t.actual })).toBe(row.equal);
        expect(holds(s, { key: b("a"), result: row.result, ...t.less })).toBe(row.keyIsGreater);
        expect(holds(s, { key: b("a"), result: row.result, ...t.greater })).toBe(row.keyIsLess);
      });
    }
  }

  it("on an absent key compares against zero, except VALUE which always fails", () => {
    const s = seeded();
    expect(holds(s, { key: b("b"), result: "EQUAL", target: "CREATE", createRevision: 0 })).toBe(true);
    expect(holds(s, { key: b("b"), result: "EQUAL", target: "VERSION", version: 0 })).toBe(true);
    expect(holds(s, { key: b("b"), result: "EQUAL", target: "MOD", modRevision: 0 })).toBe(true);
    expect(holds(s, { key: b("b"), result: "EQUAL", target: "LEASE", lease: 0n })).toBe(true);
    expect(holds(s, { key: b("b"), result: "EQUAL", target: "VALUE", value: new Uint8Array(0) })).toBe(false);
    expect(holds(s, { key: b("b"), result: "NOT_EQUAL", target: "VALUE", value: b("x") })).toBe(false);
  });

  it("over a range must hold for every key in it", () => {
    const s = seeded();
    s.put({ key: b("p/1"), value: b("x") });
    s.put({ key: b("p/2"), value: b("y") });
    const range = { key: b("p/"), rangeEnd: b("p0") };
    expect(holds(s, { ...range, result: "GREATER", target: "CREATE", createRevision: 4 })).toBe(true);
    expect(holds(s, { ...range, result: "GREATER", target: "CREATE", createRevision: 5 })).toBe(false);
    expect(holds(s, { ...range, result: "EQUAL", target: "VERSION", version: 1 })).toBe(true);
    expect(holds(s, { key: b("a"), rangeEnd: new Uint8Array([0]), result: "GREATER", target: "VERSION", version: 0 })).toBe(true);
  });

  it("are a conjunction; an empty list succeeds", () => {
    const s = seeded();
    const yes: Compare = { key: b("a"), result: "EQUAL", target: "VERSION", version: 2 };
    const no: Compare = { key: b("a"), result: "EQUAL", target: "VERSION", version: 1 };
    expect(s.txn({ compare: [yes, yes] }).response.succeeded).toBe(true);
    expect(s.txn({ compare: [yes, no] }).response.succeeded).toBe(false);
    expect(s.txn({}).response.succeeded).toBe(true);
  });
});

describe("txn ops", () => {
  it("the create-if-absent pattern: one revision with sub-revisions for several puts", () => {
    const s = seeded();
    const create: TxnRequest = {
      compare: [{ key: b("obj"), result: "EQUAL", target: "MOD", modRevision: 0 }],
      success: [
        { type: "put", request: { key: b("obj"), value: b("1") } },
        { type: "put", request: { key: b("idx"), value: b("1") } },
      ],
      failure: [{ type: "range", request: { key: b("obj") } }],
    };
    const first = s.txn(create);
    expect(first.response.succeeded).toBe(true);
    expect(first.revision).toBe(5);
    expect(changes(first.change ? [first.change] : [])).toEqual(["5: PUT obj=1@5/5/v1", "5: PUT idx=1@5/5/v1"]);
    const second = s.txn(create);
    expect(second.response.succeeded).toBe(false);
    expect(second.change).toBeNull();
    expect(second.revision).toBe(5);
    const [op] = second.response.responses;
    expect(op.type === "range" ? kvs(op.response.kvs) : []).toEqual(["obj=1@5/5/v1"]);
  });

  it("reads inside a write txn see the txn's earlier writes; a read-only txn takes no revision", () => {
    const s = seeded();
    const res = s.txn({
      success: [
        { type: "range", request: { key: b("a") } },
        { type: "put", request: { key: b("a"), value: b("v3") } },
        { type: "range", request: { key: b("a") } },
        { type: "deleteRange", request: { key: b("a"), prevKv: true } },
        { type: "range", request: { key: b("a") } },
        { type: "range", request: { key: b("a"), revision: 2 } },
      ],
    });
    const ranges = res.response.responses.flatMap((r) => (r.type === "range" ? [kvs(r.response.kvs)] : []));
    expect(ranges).toEqual([["a=v2@2/4/v2/l7"], ["a=v3@2/5/v3"], [], ["a=v1@2/2/v1"]]);
    const del = res.response.responses[3];
    expect(del.type === "deleteRange" ? kvs(del.response.prevKvs) : []).toEqual(["a=v3@2/5/v3"]);
    expect(s.currentRevision).toBe(5);
    expect(changes(s.changesSince(5))).toEqual([
      "5: PUT a=v3@2/5/v3 prev a=v2@2/4/v2/l7",
      "5: DELETE a=@0/5/v0 prev a=v3@2/5/v3",
    ]);
    expect(s.txn({ success: [{ type: "range", request: { key: b("a") } }] }).change).toBeNull();
    expect(s.currentRevision).toBe(5);
  });

  it("nested txns choose branches by compares evaluated before any write", () => {
    const s = seeded();
    const res = s.txn({
      compare: [{ key: b("a"), result: "EQUAL", target: "VERSION", version: 2 }],
      success: [
        { type: "put", request: { key: b("a"), value: b("v3") } },
        {
          type: "txn",
          request: {
            // sees version 2 (before the put above), so it succeeds
            compare: [{ key: b("a"), result: "EQUAL", target: "VERSION", version: 2 }],
            success: [
              { type: "put", request: { key: b("n1"), value: b("s") } },
              {
                type: "txn",
                request: {
                  compare: [{ key: b("b"), result: "GREATER", target: "VERSION", version: 0 }],
                  success: [{ type: "put", request: { key: b("n2"), value: b("s") } }],
                  failure: [{ type: "put", request: { key: b("n2"), value: b("f") } }],
                },
              },
            ],
            failure: [{ type: "put", request: { key: b("n1"), value: b("f") } }],
          },
        },
      ],
    });
    expect(res.response.succeeded).toBe(true);
    const nested = res.response.responses[1];
    expect(nested.type === "txn" && nested.response.succeeded).toBe(true);
    const inner = nested.type === "txn" ? nested.response.responses[1] : undefined;
    expect(inner?.type === "txn" && inner.response.succeeded).toBe(false);
    expect(changes(res.change ? [res.change] : [])).toEqual([
      "5: PUT a=v3@2/5/v3 prev a=v2@2/4/v2/l7",
      "5: PUT n1=s@5/5/v1",
      "5: PUT n2=f@5/5/v1",
    ]);
  });

  it("moving a key's lease in a txn detaches it from the old lease", () => {
    const s = seeded();
    s.txn({ success: [{ type: "put", request: { key: b("a"), value: b("v3") } }] });
    expect(s.lease(7n)?.keys).toEqual([]);
  });
});

describe("txn failures are atomic", () => {
  it("ops on the chosen path are checked before anything is written", () => {
    const s = seeded();
    const before = s.snapshot();
    const attempt = (t: TxnRequest) => () => s.txn(t);
    expect(
      attempt({
        success: [
          { type: "put", request: { key: b("x"), value: b("1") } },
          { type: "put", request: { key: b("y"), value: b("1"), lease: 99n } },
        ],
      }),
    ).toThrow("etcdserver: requested lease not found");
    expect(
      attempt({
        success: [
          { type: "put", request: { key: b("x"), value: b("1") } },
          { type: "put", request: { key: b("b"), ignoreValue: true } },
        ],
      }),
    ).toThrow("etcdserver: key not found");
    expect(attempt({ success: [{ type: "range", request: { key: b("a"), revision: 99 } }] })).toThrow(ErrFutureRev);
    expect(attempt({ success: [{ type: "put", request: { key: new Uint8Array(0), value: b("1") } }] })).toThrow(StoreError);
    // an invalid op on the branch not taken does not matter
    const ok = s.txn({
      compare: [{ key: b("a"), result: "EQUAL", target: "VERSION", version: 2 }],
      failure: [{ type: "put", request: { key: b("y"), value: b("1"), lease: 99n } }],
    });
    expect(ok.response.succeeded).toBe(true);
    expect(s.snapshot()).toEqual(before);
  });

  it("an op failing during execution rolls back the writes before it", () => {
    const s = seeded();
    const before = s.snapshot();
    // "a" exists before the txn (so the pre-check passes) but the txn deletes it first.
    expect(() =>
      s.txn({
        success: [
          { type: "put", request: { key: b("new"), value: b("1"), lease: 7n } },
          { type: "put", request: { key: b("a"), value: b("x") } },
          { type: "deleteRange", request: { key: b("a") } },
          { type: "put", request: { key: b("a"), ignoreValue: true } },
        ],
      }),
    ).toThrow("etcdserver: key not found");
    expect(s.currentRevision).toBe(4);
    expect(s.snapshot()).toEqual(before);
    expect(s.lease(7n)?.keys.map((k) => new TextDecoder().decode(k))).toEqual(["a"]);
    expect(s.range({ key: b("new") }).count).toBe(0);
    expect(s.changesSince(5)).toEqual([]);
    // and the store keeps working
    expect(s.put({ key: b("new"), value: b("2") }).revision).toBe(5);
  });

  it("a range below the compact revision fails the whole txn", () => {
    const s = seeded();
    s.compact(3);
    expect(() => s.txn({ success: [{ type: "put", request: { key: b("q"), value: b("1") } }, { type: "range", request: { key: b("a"), revision: 2 } }] })).toThrow(
      ErrCompacted,
    );
    expect(s.range({ key: b("q") }).count).toBe(0);
  });
});

describe("put flags", () => {
  it("ignoreValue keeps the value, ignoreLease keeps the lease; both need an existing key", () => {
    const s = seeded();
    s.put({ key: b("a"), ignoreValue: true, lease: 0n });
    expect(kvs(s.range({ key: b("a") }).kvs)).toEqual(["a=v2@2/5/v3"]);
    s.put({ key: b("a"), value: b("v4"), lease: 7n });
    s.put({ key: b("a"), value: b("v5"), ignoreLease: true });
    expect(kvs(s.range({ key: b("a") }).kvs)).toEqual(["a=v5@2/7/v5/l7"]);
    expect(() => s.put({ key: b("b"), ignoreValue: true })).toThrow("etcdserver: key not found");
    expect(() => s.put({ key: b("a"), value: b("x"), ignoreValue: true })).toThrow("etcdserver: value is provided");
    expect(() => s.put({ key: b("a"), lease: 7n, ignoreLease: true })).toThrow("etcdserver: lease is provided");
  });
});
