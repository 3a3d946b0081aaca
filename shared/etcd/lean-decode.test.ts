/**
 * The lean response decoding against proto-loader's deserializer: for every message it
 * decodes, the same object (keys, key order, strings for 64-bit fields, Buffers, filled
 * defaults, oneof names); for the rest (malformed, unusual) it declines and the
 * deserializer decides.
 */
import { describe, expect, it } from "vitest";
import { leanDecode } from "./lean-decode.ts";
import { methodDefinition } from "./proto.ts";

const txn = methodDefinition("KV", "Txn");
const range = methodDefinition("KV", "Range");

const kv = (key: string, value: string, rev: number | string) => ({ key: Buffer.from(key), create_revision: 3, mod_revision: rev, version: 2, value: Buffer.from(value), lease: 0 });
const hdr = { cluster_id: "18446744073709551615", member_id: "14841639068965178418", revision: 123456, raft_term: 7 };

const txnCases: Array<[string, object]> = [
  ["a guarded update that succeeded", { header: hdr, succeeded: true, responses: [{ response_put: { header: { revision: 123456 } } }] }],
  ["a guarded update that failed, with the current object", { header: hdr, succeeded: false, responses: [{ response_range: { header: hdr, kvs: [kv("/registry/leases/n/a", '{"kind":"Lease"}', 99)], count: 1 } }] }],
  ["a put with its previous value", { header: hdr, succeeded: true, responses: [{ response_put: { header: hdr, prev_kv: kv("/k", "v", 5) } }] }],
  ["a delete with previous values", { header: hdr, succeeded: true, responses: [{ response_delete_range: { header: hdr, deleted: 2, prev_kvs: [kv("/a", "1", 4), kv("/b", "", 6)] } }] }],
  ["a nested txn and an empty op", { header: hdr, succeeded: true, responses: [{ response_txn: { header: hdr, succeeded: false, responses: [{ response_range: { more: true } }] } }, {}] }],
  ["large and negative 64-bit values", { header: { revision: "9007199254740993", raft_term: "18446744073709551615" }, responses: [{ response_range: { count: "-5", kvs: [{ key: Buffer.from("k"), create_revision: "-1", mod_revision: "562949953421312", version: "9223372036854775807", lease: "-9223372036854775808" }] } }] }],
  ["nothing at all", {}],
  ["defaults only", { header: {}, responses: [{ response_put: {} }, { response_delete_range: {} }, { response_range: {} }] }],
];

const rangeCases: Array<[string, object]> = [
  ["one object", { header: hdr, kvs: [kv("/registry/nodes/a", "{}", 10)], count: 1 }],
  ["a page with more", { header: hdr, kvs: [kv("/a", "1", 1), kv("/b", "2", 2), kv("/c", "3", 3)], more: true, count: 10 }],
  ["count only", { header: hdr, count: 5000 }],
  ["empty", {}],
];

describe("lean response decoding", () => {
  it.each(txnCases)("Txn %s: proto-loader's object", (_name, msg) => {
    const body = Buffer.from(txn.responseSerialize(msg));
    const lean = leanDecode("Txn", body);
    expect(lean).toBeDefined();
    const reference = txn.responseDeserialize(body);
    expect(lean).toStrictEqual(reference);
    expect(JSON.stringify(lean)).toBe(JSON.stringify(reference));
  });

  it.each(rangeCases)("Range %s: proto-loader's object", (_name, msg) => {
    const body = Buffer.from(range.responseSerialize(msg));
    const lean = leanDecode("Range", body);
    expect(lean).toStrictEqual(range.responseDeserialize(body));
    expect(JSON.stringify(lean)).toBe(JSON.stringify(range.responseDeserialize(body)));
  });

  it("wide ids it remembers stay exact: many distinct ids of one width, each decoded again later", () => {
    // 20 ids of 64 bits (more than it remembers), all ten-byte varints, decoded twice in turn
    const ids = Array.from({ length: 20 }, (_, i) => (18446744073709551615n - BigInt(i) * 1000003n).toString());
    for (const round of [0, 1]) {
      for (const [i, id] of ids.entries()) {
        const body = Buffer.from(range.responseSerialize({ header: { cluster_id: id, member_id: ids[(i + round) % ids.length], revision: 5 } }));
        expect(leanDecode("Range", body)).toStrictEqual(range.responseDeserialize(body));
      }
    }
  });

  it("bytes fields are Buffers, empty when absent", () => {
    const body = Buffer.from(range.responseSerialize({ kvs: [{ key: Buffer.from("k") }] }));
    const [only] = leanDecode("Range", body)!.kvs;
    expect(Buffer.isBuffer(only.key) && Buffer.isBuffer(only.value)).toBe(true);
    expect(only.value.length).toBe(0);
  });

  it("skips unknown fields of every wire type as the deserializer does", () => {
    const known = Buffer.from(txn.responseSerialize({ header: hdr, succeeded: true }));
    // field 9 varint 300, field 10 fixed64, field 11 length-delimited "abc", field 12 fixed32
    const unknown = Buffer.from([0x48, 0xac, 0x02, 0x51, 1, 2, 3, 4, 5, 6, 7, 8, 0x5a, 3, 0x61, 0x62, 0x63, 0x65, 1, 2, 3, 4]);
    const body = Buffer.concat([unknown, known]);
    expect(leanDecode("Txn", body)).toStrictEqual(txn.responseDeserialize(body));
  });

  it("declines what it does not decode itself: other methods, wrong wire types, groups, two oneof members, truncation", () => {
    const ok = Buffer.from(txn.responseSerialize({ header: hdr, succeeded: true, responses: [{ response_put: {} }] }));
    expect(leanDecode("Put", Buffer.alloc(0))).toBeUndefined();
    expect(leanDecode("Txn", Buffer.from([0x10 | 2, 0]))).toBeUndefined(); // succeeded as length-delimited
    expect(leanDecode("Txn", Buffer.from([0x4b, 0x4c]))).toBeUndefined(); // a group (field 9)
    expect(leanDecode("Txn", Buffer.from([0x1a, 4, 0x0a, 0, 0x12, 0]))).toBeUndefined(); // range and put in one op
    for (let cut = 1; cut < ok.length; cut++) {
      const part = ok.subarray(0, cut);
      const lean = leanDecode("Txn", part);
      let reference: unknown;
      try {
        reference = txn.responseDeserialize(part);
      } catch {
        reference = undefined;
      }
      // A cut at a field boundary is a shorter valid message: both decode it alike.
      if (lean !== undefined) expect(lean).toStrictEqual(reference);
    }
  });

  it("random messages and random corruptions: the same object, or it declines", () => {
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
    const randomKv = () => kv(`/k/${rnd(1000)}`, "v".repeat(rnd(40)), rnd(2) ? rnd(1 << 30) * 4096 : rnd(1000));
    for (let i = 0; i < 300; i++) {
      const msg = {
        header: rnd(4) ? { revision: rnd(1 << 30), raft_term: rnd(9) } : undefined,
        succeeded: rnd(2) === 1,
        responses: Array.from({ length: rnd(3) }, () => (rnd(2) ? { response_range: { kvs: Array.from({ length: rnd(3) }, randomKv), count: rnd(5) } } : { response_put: { prev_kv: rnd(2) ? randomKv() : undefined } })),
      };
      const body = Buffer.from(txn.responseSerialize(msg));
      expect(leanDecode("Txn", body)).toStrictEqual(txn.responseDeserialize(body));
      const bad = Buffer.from(body);
      if (bad.length > 0) bad[rnd(bad.length)] = rnd(256);
      const lean = leanDecode("Txn", bad);
      if (lean === undefined) continue;
      expect(lean).toStrictEqual(txn.responseDeserialize(bad));
    }
  });
});
