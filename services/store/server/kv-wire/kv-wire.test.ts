// The hand-written KV codecs against the generic (proto-loader) codec of
// rpc.proto: each side decodes what the other encodes, to the same message; with
// no zero field, both write the same bytes.
import { describe, expect, it } from "vitest";
import { ProtobufError } from "../../../../shared/codec/protobuf/wire.ts";
import { methodDefinition } from "../../../../shared/etcd/proto.ts";
import type { PbHeader, PbKeyValue } from "../../../../shared/etcd/wire.ts";
import { decodeDeleteRangeRequest, decodePutRequest, decodeRangeRequest, decodeTxnRequest } from "./kv-requests.ts";
import { encodeDeleteRangeResponse, encodePutResponse, encodeRangeResponse, encodeTxnResponse } from "./kv-responses.ts";

type Method = "Range" | "Put" | "DeleteRange" | "Txn";
const generic = (m: Method) => methodDefinition("KV", m);

const ENUM_DEFAULTS: Record<string, string> = { sort_order: "NONE", sort_target: "KEY", result: "EQUAL", target: "VERSION" };

/** A message in one canonical form: bytes as hex, 64-bit values as decimal strings, zero values and oneof names left out. */
function canonical(v: unknown): unknown {
  if (v instanceof Uint8Array) return Buffer.from(v).toString("hex");
  if (typeof v === "number" || typeof v === "bigint") return String(v);
  if (Array.isArray(v)) return v.map((x) => canonical(x));
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (k === "request" || k === "target_union" || k === "response") continue;
      const c = canonical(x);
      if (c === "" || c === "0" || c === false || c === undefined || c === null || ENUM_DEFAULTS[k] === c) continue;
      out[k] = c;
    }
    return out;
  }
  return v;
}

const b = (s: string): Buffer => Buffer.from(s);
function uvarint(n: number): Buffer {
  const out: number[] = [];
  for (; n >= 0x80; n = Math.floor(n / 0x80)) out.push((n % 0x80) | 0x80);
  out.push(n);
  return Buffer.from(out);
}
const header: PbHeader = { cluster_id: "14841639068965178418", member_id: "10276657743932975437", revision: 123456, raft_term: 7 };
const kv = (key: string, value: Buffer | string, extra: Partial<PbKeyValue> = {}): PbKeyValue => ({
  key: b(key),
  value: typeof value === "string" ? b(value) : value,
  create_revision: 5,
  mod_revision: 2 ** 40,
  version: 3,
  lease: "0",
  ...extra,
});

const responses: Array<[string, Method, object]> = [
  ["Range: empty", "Range", { header, kvs: [], more: false, count: 0 }],
  ["Range: one 1 KiB value", "Range", { header, kvs: [kv("/registry/core/configmaps/ns/a", Buffer.alloc(1024, "v"))], more: false, count: 1 }],
  [
    "Range: several, more, a lease of 64 bits, an empty value, a large value",
    "Range",
    { header, kvs: [kv("a", "1", { lease: "7587883283484475393" }), kv("b", ""), kv("c", Buffer.alloc(70_000, 1))], more: true, count: "9007199254740993" },
  ],
  ["Range: a negative lease (int64)", "Range", { header, kvs: [kv("a", "1", { lease: "-2" })], more: false, count: 1 }],
  ["Range: no header", "Range", { kvs: [kv("a", "1")], more: false, count: 1 }],
  ["Put: no previous value", "Put", { header }],
  ["Put: with the previous value", "Put", { header, prev_kv: kv("k", "old") }],
  ["DeleteRange: two deleted with previous values", "DeleteRange", { header, deleted: 2, prev_kvs: [kv("a", "1"), kv("b", "2")] }],
  ["DeleteRange: none", "DeleteRange", { header, deleted: 0, prev_kvs: [] }],
  [
    "Txn: succeeded, a put and a range",
    "Txn",
    { header, succeeded: true, responses: [{ response_put: { header, prev_kv: kv("k", "p") } }, { response_range: { header, kvs: [kv("k", "v")], more: false, count: 1 } }] },
  ],
  ["Txn: failed, the current object", "Txn", { header, succeeded: false, responses: [{ response_range: { header, kvs: [kv("k", Buffer.alloc(3000, 2))], more: false, count: 1 } }] }],
  [
    "Txn: nested txn and a delete",
    "Txn",
    { header, succeeded: true, responses: [{ response_txn: { header, succeeded: true, responses: [{ response_delete_range: { header, deleted: 1, prev_kvs: [] } }] } }] },
  ],
];

const requests: Array<[string, Method, object]> = [
  ["Range: one key", "Range", { key: b("/registry/core/configmaps/ns/a") }],
  [
    "Range: every field",
    "Range",
    {
      key: b("a"),
      range_end: b("b"),
      limit: 500,
      revision: "9007199254740993",
      sort_order: "DESCEND",
      sort_target: "MOD",
      serializable: true,
      keys_only: true,
      count_only: true,
      min_mod_revision: 1,
      max_mod_revision: 2 ** 40,
      min_create_revision: 3,
      max_create_revision: 4,
    },
  ],
  ["Range: a negative limit", "Range", { key: b("a"), limit: -1 }],
  ["Range: an enum value the .proto does not know", "Range", { key: b("a"), sort_order: 7 }],
  ["Put: 1 KiB value", "Put", { key: b("k"), value: Buffer.alloc(1024, "v") }],
  ["Put: lease and flags", "Put", { key: b("k"), lease: "7587883283484475393", prev_kv: true, ignore_value: true, ignore_lease: true }],
  ["DeleteRange: prefix with previous values", "DeleteRange", { key: b("p/"), range_end: b("p0"), prev_kv: true }],
  [
    "Txn: the apiserver's guarded update",
    "Txn",
    {
      compare: [{ key: b("/registry/x"), target: "MOD", result: "EQUAL", mod_revision: 42 }],
      success: [{ request_put: { key: b("/registry/x"), value: Buffer.alloc(2000, 3), lease: 0 } }],
      failure: [{ request_range: { key: b("/registry/x") } }],
    },
  ],
  [
    "Txn: every compare target, nested txn, delete",
    "Txn",
    {
      compare: [
        { key: b("a"), target: "VERSION", result: "GREATER", version: 3 },
        { key: b("a"), target: "CREATE", result: "LESS", create_revision: 4, range_end: b("b") },
        { key: b("a"), target: "VALUE", result: "NOT_EQUAL", value: b("v") },
        { key: b("a"), target: "LEASE", result: "EQUAL", lease: "-5" },
      ],
      success: [{ request_txn: { compare: [], success: [{ request_delete_range: { key: b("a"), prev_kv: true } }], failure: [] } }],
      failure: [],
    },
  ],
];

const encoders: Record<Method, (m: never) => Buffer> = { Range: encodeRangeResponse, Put: encodePutResponse, DeleteRange: encodeDeleteRangeResponse, Txn: encodeTxnResponse };
const decoders: Record<Method, (b: Buffer) => unknown> = { Range: decodeRangeRequest, Put: decodePutRequest, DeleteRange: decodeDeleteRangeRequest, Txn: decodeTxnRequest };

describe("KV wire codecs", () => {
  it.each(responses)("%s: the generic codec reads ours as it reads its own", (_name, method, message) => {
    const def = generic(method);
    const ours = encoders[method](message as never);
    const theirs = def.responseSerialize(message);
    expect(canonical(def.responseDeserialize(ours))).toEqual(canonical(def.responseDeserialize(theirs)));
    expect(canonical(def.responseDeserialize(ours))).toEqual(canonical(message));
  });

  it.each(requests)("%s: ours reads the generic codec's bytes as it does", (_name, method, message) => {
    const def = generic(method);
    const bytes = def.requestSerialize(message);
    expect(canonical(decoders[method](bytes))).toEqual(canonical(def.requestDeserialize(bytes)));
  });

  it("writes the same bytes as the generic codec when no field is zero", () => {
    const full = { header, kvs: [kv("a", "1", { lease: "7587883283484475393" }), kv("b", Buffer.alloc(300, 2), { lease: 9 })], more: true, count: 2 };
    expect(encodeRangeResponse(full).toString("hex")).toBe(generic("Range").responseSerialize(full).toString("hex"));
    const put = { header, prev_kv: kv("k", "old", { lease: 1 }) };
    expect(encodePutResponse(put).toString("hex")).toBe(generic("Put").responseSerialize(put).toString("hex"));
  });

  it("leaves zero values out (proto3)", () => {
    expect(encodePutResponse({}).length).toBe(0);
    expect(encodeRangeResponse({ kvs: [], more: false, count: 0 }).length).toBe(0);
    // header with revision only: tag, length, tag, one-byte varint
    expect(encodePutResponse({ header: { cluster_id: "0", member_id: "0", revision: 5, raft_term: 0 } }).toString("hex")).toBe("0a021805");
  });

  it("reads 64-bit fields as numbers when safe, else decimal strings; byte fields as views of the input", () => {
    const bytes = generic("Range").requestSerialize({ key: b("key"), limit: "18446744073709551615", revision: "9223372036854775807" });
    const r = decodeRangeRequest(bytes);
    expect(r.limit).toBe(-1);
    expect(r.revision).toBe("9223372036854775807");
    expect(r.key?.buffer).toBe(bytes.buffer);
  });

  it("skips unknown fields of every wire type", () => {
    // field 20 varint, field 21 fixed64, field 22 bytes, field 23 fixed32, then key "a"
    const unknown = Buffer.from([0xa0, 0x01, 0x05, 0xa9, 0x01, 1, 2, 3, 4, 5, 6, 7, 8, 0xb2, 0x01, 2, 0x61, 0x62, 0xbd, 0x01, 1, 2, 3, 4]);
    const r = decodeRangeRequest(Buffer.concat([unknown, generic("Range").requestSerialize({ key: b("a") })]));
    expect(Buffer.from(r.key ?? []).toString()).toBe("a");
  });

  it.each([
    ["a truncated varint", "Range", [0x18, 0x80]],
    ["a length past the end", "Put", [0x0a, 5, 1]],
    ["key with the varint wire type", "Range", [0x08, 1]],
    ["limit with the bytes wire type", "Range", [0x1a, 1, 0]],
    ["a group wire type", "Put", [0x0b]],
    ["field number 0", "DeleteRange", [0x00, 1]],
    ["a varint of 11 bytes", "Put", [0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]],
    ["a txn op with a truncated put", "Txn", [0x12, 0x03, 0x12, 0x05, 0x0a]],
  ] as Array<[string, Method, number[]]>)("refuses %s with a ProtobufError", (_name, method, bytes) => {
    expect(() => decoders[method](Buffer.from(bytes))).toThrow(ProtobufError);
  });

  it("refuses txns nested deeper than the wire allows", () => {
    // The generic codec refuses to write it, so it is built here: TxnRequest.success (2) holding RequestOp.request_txn (4).
    const wrap = (field: number, body: Buffer): Buffer => Buffer.concat([Buffer.from([(field << 3) | 2]), uvarint(body.length), body]);
    let txn: Buffer = Buffer.alloc(0);
    for (let i = 0; i < 70; i++) txn = wrap(2, wrap(4, txn));
    expect(() => decodeTxnRequest(txn)).toThrow(ProtobufError);
    let shallow: Buffer = Buffer.alloc(0);
    for (let i = 0; i < 40; i++) shallow = wrap(2, wrap(4, shallow));
    expect(canonical(decodeTxnRequest(shallow))).toEqual(canonical(generic("Txn").requestDeserialize(shallow)));
  });
});
