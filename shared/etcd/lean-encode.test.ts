/**
 * The lean request encoding against proto-loader's serializer: each request decodes
 * (with proto-loader's own deserializer) to the message the serializer's bytes decode
 * to; requests only `fromObject` can convert are left to the serializer.
 */
import { describe, expect, it } from "vitest";
import { leanEncode } from "./lean-encode.ts";
import { methodDefinition } from "./proto.ts";
import type { PbCompare, PbRangeRequest, PbTxnRequest } from "./wire.ts";

const key = Buffer.from("/registry/leases/ns/a");
const value = Buffer.from('{"kind":"Lease"}');

/** A replica's guarded update: compare mod_revision, put, read on failure. */
const guardedUpdateRequest = (): PbTxnRequest => ({
  compare: [{ key, result: "EQUAL", target: "MOD", target_union: "mod_revision", mod_revision: 12345 }],
  success: [{ request: "request_put", request_put: { key, value, lease: 0, prev_kv: false, ignore_value: false, ignore_lease: false } }],
  failure: [{ request: "request_range", request_range: { key, limit: 0, revision: 0, count_only: false, keys_only: false, serializable: false } }],
});
const guardedUpdate = guardedUpdateRequest();

const txnCases: Array<[string, PbTxnRequest]> = [
  ["guarded update", guardedUpdate],
  ["create (mod_revision 0) with a lease as a string", { compare: [{ key, result: "EQUAL", target: "MOD", mod_revision: 0 }], success: [{ request_put: { key, value, lease: "281474976710655" } }], failure: [] }],
  ["every compare result and target", {
    compare: [
      { key, result: "NOT_EQUAL", target: "VERSION", version: 3 },
      { key, result: "GREATER", target: "CREATE", create_revision: "9007199254740993" },
      { key, result: "LESS", target: "VALUE", value },
      { key, result: "EQUAL", target: "LEASE", lease: 0 },
      { key, result: 2, target: 1, create_revision: 5, range_end: Buffer.from([0]) },
    ],
    success: [{ request_delete_range: { key, range_end: Buffer.from([0]), prev_kv: true } }],
    failure: [{ request_range: { key, range_end: Buffer.from("z"), limit: 10, revision: 7, sort_order: 1, sort_target: 3, keys_only: true } }],
  }],
  ["empty", {}],
];

const rangeCases: Array<[string, PbRangeRequest]> = [
  ["one key, linearizable", { key, limit: 0, revision: 0, count_only: false, keys_only: false, serializable: false }],
  ["count only over everything", { key: Buffer.from([0]), range_end: Buffer.from([0]), count_only: true, limit: 1 }],
  ["at a revision, serializable, with int64 strings", { key, range_end: Buffer.from("z"), limit: "500", revision: "9007199254740993", serializable: true, min_mod_revision: 3 }],
];

function decodeTxn(bytes: Uint8Array): unknown {
  return methodDefinition("KV", "Txn").requestDeserialize(Buffer.from(bytes));
}

describe("lean request encoding", () => {
  it.each(txnCases)("Txn %s: the same message as proto-loader's", (_name, req) => {
    const lean = leanEncode("Txn", req);
    expect(lean).toBeDefined();
    expect(decodeTxn(lean!)).toEqual(decodeTxn(methodDefinition("KV", "Txn").requestSerialize(req)));
  });

  it.each(rangeCases)("Range %s: the same message as proto-loader's", (_name, req) => {
    const def = methodDefinition("KV", "Range");
    const lean = leanEncode("Range", req);
    expect(lean).toBeDefined();
    expect(def.requestDeserialize(Buffer.from(lean!))).toEqual(def.requestDeserialize(def.requestSerialize(req)));
  });

  it("does not change the request (its compares keep their enum names)", () => {
    const req = guardedUpdateRequest();
    leanEncode("Txn", req);
    expect(req).toEqual(guardedUpdate);
  });

  it.each<[string, PbTxnRequest]>([
    ["a nested txn", { success: [{ request_txn: { compare: [] } }] }],
    ["a sort order by name", { success: [{ request_range: { key, sort_order: "DESCEND" } }] }],
    ["an unknown compare result", { compare: [{ key, result: "SOMETIMES", target: "MOD" }] }],
    ["a key as a base64 string", { compare: [{ key: "YQ==" as unknown as Uint8Array, result: "EQUAL", target: "MOD" }] }],
  ])("leaves %s to proto-loader's serializer", (_name, req) => {
    expect(leanEncode("Txn", req)).toBeUndefined();
  });

  it("leaves other methods to proto-loader's serializer", () => {
    expect(leanEncode("Put", { key, value })).toBeUndefined();
    expect(leanEncode("Range", { key, sort_target: "MOD" })).toBeUndefined();
  });

  it("random Txn requests (every field, int64 numbers and strings of any sign, oneof members at 0): the same message as proto-loader's", () => {
    let seed = 0x9e3779b9 | 0;
    const next = (n: number): number => {
      // xorshift32: every low bit varies (an LCG's low bits repeat with a short period)
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) % n;
    };
    const pick = <T>(xs: readonly T[]): T => xs[next(xs.length)];
    const maybe = <T>(v: () => T): T | undefined => (next(3) === 0 ? undefined : v());
    const int64 = (): number | string => pick<() => number | string>([() => 0, () => next(1000), () => 2 ** 40 + next(99), () => -1 - next(5), () => "9007199254740993", () => String(next(50)), () => "-7", () => "18446744073709551615".slice(0, 1 + next(19))])();
    const bytes = () => Buffer.from("k".repeat(next(3)) + String(next(200)).slice(0, next(2)));
    const range = (): PbRangeRequest => ({ key: maybe(bytes), range_end: maybe(bytes), limit: maybe(int64), revision: maybe(int64), sort_order: maybe(() => next(3)), sort_target: maybe(() => next(5)), serializable: maybe(() => next(2) === 0), keys_only: maybe(() => next(2) === 0), count_only: maybe(() => next(2) === 0), min_mod_revision: maybe(int64), max_create_revision: maybe(int64) });
    const op = (): PbTxnRequest["success"] extends Array<infer O> | undefined ? O : never =>
      pick([() => ({ request_range: range() }), () => ({ request_put: { key: maybe(bytes), value: maybe(bytes), lease: maybe(int64), prev_kv: maybe(() => next(2) === 0), ignore_value: maybe(() => next(2) === 0), ignore_lease: maybe(() => next(2) === 0) } }), () => ({ request_delete_range: { key: maybe(bytes), range_end: maybe(bytes), prev_kv: maybe(() => next(2) === 0) } })])();
    const target = () => pick<() => Partial<PbCompare>>([() => ({ version: int64() }), () => ({ create_revision: int64() }), () => ({ mod_revision: int64() }), () => ({ value: bytes() }), () => ({ lease: int64() }), () => ({})])();
    const compare = (): PbCompare => ({ key: maybe(bytes), result: pick(["EQUAL", "GREATER", "LESS", "NOT_EQUAL", 0, 1, 2, 3]), target: pick(["VERSION", "CREATE", "MOD", "VALUE", "LEASE", 0, 4]), range_end: maybe(bytes), ...target() });
    const list = <T>(f: () => T): T[] => Array.from({ length: next(3) }, f);
    for (let i = 0; i < 300; i++) {
      const req: PbTxnRequest = { compare: list(compare), success: list(op), failure: list(op) };
      const lean = leanEncode("Txn", req);
      expect(lean, JSON.stringify(req)).toBeDefined();
      expect(decodeTxn(lean!), JSON.stringify(req)).toEqual(decodeTxn(methodDefinition("KV", "Txn").requestSerialize(req)));
    }
  });
});
