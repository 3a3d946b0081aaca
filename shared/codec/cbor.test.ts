import { Decoder } from "cbor-x";
import { describe, expect, it } from "vitest";
import { kinds as coreKinds } from "../api/groups/core-v1.ts";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SAMPLES_DIR, defaultObject } from "../api/testing/sample-harness.ts";
import { decodeYamlStrict } from "../schema/index.ts";
import { CborError, CborSeqReader, decodeCbor, decodeCborSeq, encodeCbor, encodeCborSeqItem } from "./cbor.ts";

const hex = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ""), "hex"));

function errorOf(f: () => unknown): CborError {
  try {
    f();
  } catch (e) {
    if (e instanceof CborError) return e;
    throw new Error(`expected a CborError, got ${String(e)}`, { cause: e });
  }
  throw new Error("expected an error");
}

const podDef = coreKinds.find((k) => k.kind === "Pod");
const firstDoc = (dir: string, file: string): Record<string, unknown> =>
  decodeYamlStrict(readFileSync(join(SAMPLES_DIR, dir, file), "utf8").split(/^---\s*$/m)[0]).value as Record<string, unknown>;
const pod = podDef ? defaultObject(podDef, firstDoc("core-v1", "pod.yaml")) : {};

describe("CBOR encoding", () => {
  it("starts with the self-described tag 55799 and writes plain maps (no records, no tag 259)", () => {
    const b = encodeCbor({ a: 1 });
    expect(Buffer.from(b).toString("hex")).toBe("d9d9f7a1616101");
  });

  it("round-trips objects, including integers beyond 2^53, floats, booleans, null and unicode", () => {
    const v = { kind: "Pod", n: 9007199254740993n, neg: -9007199254740993n, small: -5, f: 1.5, t: true, z: null, s: "héllo ✓", list: [1, "two", { three: 3 }], empty: {}, none: [] };
    expect(decodeCbor(encodeCbor(v))).toEqual(v);
    expect(decodeCbor(encodeCbor(pod))).toEqual(pod);
  });

  it("agrees with cbor-x on what cbor-x encodes", () => {
    const dec = new Decoder({ useRecords: false, mapsAsObjects: true });
    const b = encodeCbor(pod);
    expect(decodeCbor(b)).toEqual(dec.decode(b.subarray(3)));
  });
});

describe("CBOR decoding", () => {
  it("accepts indefinite lengths, half floats, byte strings as strings and byte-string keys", () => {
    // {_ "a": [_ 1, 2], "b": (_ "x", "y")} with a half float and a byte-string key
    expect(decodeCbor(hex("bf 6161 9f 01 02 ff 6162 7f 6178 6179 ff ff"))).toEqual({ a: [1, 2], b: "xy" });
    expect(decodeCbor(hex("f9 3e00"))).toBe(1.5);
    expect(decodeCbor(hex("a1 4161 4568656c6c6f"))).toEqual({ a: "hello" });
    // tag 22 (expected base64) on a byte string, tag 55799 inside
    expect(decodeCbor(hex("a1 6164 d6 43 010203"))).toEqual({ d: "AQID" });
    expect(decodeCbor(hex("82 d9d9f7 01 d9d9f7 02"))).toEqual([1, 2]);
  });

  it("rejects duplicate map keys, with the key and path", () => {
    const e = errorOf(() => decodeCbor(hex("a1 6473706563 a2 6161 01 6161 02")));
    expect(e.code).toBe("DuplicateKey");
    expect(e.message).toContain('duplicate map key "a" at spec');
    // A duplicate made of a text key and the same byte-string key.
    expect(errorOf(() => decodeCbor(hex("a2 6161 01 4161 02"))).code).toBe("DuplicateKey");
    // Indefinite-length maps too.
    expect(errorOf(() => decodeCbor(hex("bf 6161 01 6161 02 ff"))).code).toBe("DuplicateKey");
  });

  it("bounds nesting depth", () => {
    const deep = (n: number) => Uint8Array.from([...new Array<number>(n).fill(0x81), 0x01]);
    expect(decodeCbor(deep(64))).toBeDefined();
    expect(errorOf(() => decodeCbor(deep(65))).code).toBe("TooDeep");
    expect(errorOf(() => decodeCbor(deep(100_000))).code).toBe("TooDeep");
    expect(errorOf(() => decodeCbor(deep(3), { maxDepth: 2 })).code).toBe("TooDeep");
  });

  it("rejects invalid CBOR with clear errors", () => {
    const cases: Array<[string, string]> = [
      ["", "Truncated"],
      ["a1 6161", "Truncated"],
      ["9b ffffffffffffffff", "Truncated"],
      ["62 c328", "Malformed"], // invalid UTF-8 in a text string
      ["1c", "Malformed"], // reserved additional information
      ["ff", "Malformed"],
      ["a1 01 02", "Unsupported"], // integer key
      ["f7", "Unsupported"], // undefined
      ["fb 7ff8000000000000", "Unsupported"], // NaN
      ["f9 7c00", "Unsupported"], // infinity
      ["c1 01", "Unsupported"], // epoch time tag
      ["1b 8000000000000000", "Unsupported"], // beyond int64
      ["01 02", "TrailingData"],
      ["7f 01 ff", "Malformed"], // bad chunk
    ];
    for (const [h, code] of cases) expect(errorOf(() => decodeCbor(hex(h))).code, h).toBe(code);
  });

  it("never throws anything but CborError on garbage", () => {
    let seed = 42;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed;
    };
    const good = encodeCbor(pod);
    for (let i = 0; i < 1500; i++) {
      const b = i % 2 === 0 ? good.slice(0, rnd() % good.length) : Uint8Array.from({ length: 1 + (rnd() % 40) }, () => rnd() & 0xff);
      if (i % 4 === 0) for (let j = 0; j < 3 && b.length > 0; j++) b[rnd() % b.length] = rnd() & 0xff;
      try {
        decodeCbor(b);
      } catch (e) {
        expect(e).toBeInstanceOf(CborError);
      }
    }
  });
});

describe("application/cbor-seq watch frames", () => {
  const events = [
    { type: "ADDED", object: { kind: "ConfigMap", metadata: { name: "a", resourceVersion: "1" } } },
    { type: "MODIFIED", object: { kind: "ConfigMap", metadata: { name: "a", resourceVersion: "2" }, data: { k: "v" } } },
    { type: "BOOKMARK", object: { kind: "ConfigMap", metadata: { resourceVersion: "3" } } },
  ];
  const stream = Buffer.concat(events.map((e) => encodeCborSeqItem(e)));

  it("are concatenated data items", () => {
    expect(decodeCborSeq(stream)).toEqual(events);
    expect(decodeCborSeq(new Uint8Array(0))).toEqual([]);
  });

  it("split across any chunk boundaries", () => {
    for (const size of [1, 2, 5, 17, 1000]) {
      const r = new CborSeqReader();
      const got: unknown[] = [];
      for (let i = 0; i < stream.length; i += size) got.push(...r.push(stream.subarray(i, i + size)));
      r.finish();
      expect(got).toEqual(events);
    }
  });

  it("report a stream cut inside an item, and invalid items", () => {
    expect(errorOf(() => decodeCborSeq(stream.subarray(0, stream.length - 1))).code).toBe("Truncated");
    expect(errorOf(() => decodeCborSeq(Buffer.concat([stream, hex("a2 6161 01 6161 02")]))).code).toBe("DuplicateKey");
  });
});
