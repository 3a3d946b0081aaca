/**
 * The lean request encoding against proto-loader's serializer: each request decodes
 * (with proto-loader's own deserializer) to the message the serializer's bytes decode
 * to; requests only `fromObject` can convert are left to the serializer.
 */
import { describe, expect, it } from "vitest";
import { leanEncode } from "./lean-encode.ts";
import { methodDefinition } from "./proto.ts";
import type { PbRangeRequest, PbTxnRequest } from "./wire.ts";

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
});
