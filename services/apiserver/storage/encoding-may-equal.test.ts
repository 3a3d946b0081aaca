import { describe, expect, it } from "vitest";
import { storageEncodingsMayBeEqual } from "./encoding-may-equal.ts";
import { encodeForStorage, encodeSharedForStorage, type JsonObject } from "./object.ts";

const lease = (renewTime: string, rv = "7"): JsonObject => ({
  apiVersion: "example.test/v1",
  kind: "Lease",
  metadata: { name: "n1", namespace: "node-lease", resourceVersion: rv, labels: { a: "b" } },
  spec: { holderIdentity: "n1", leaseDurationSeconds: 40, renewTime, list: [1, "x", null, true] },
});

function sameBytes(a: JsonObject, b: JsonObject): boolean {
  return Buffer.from(encodeSharedForStorage(a)).equals(Buffer.from(encodeForStorage(structuredClone(b))));
}

describe("storageEncodingsMayBeEqual", () => {
  const base = lease("2026-01-01T00:00:00.000000Z");
  const cases: Array<[string, JsonObject, boolean]> = [
    ["the same object", structuredClone(base), true],
    ["only the resourceVersion differs", lease("2026-01-01T00:00:00.000000Z", "8"), true],
    ["no resourceVersion on one side", (() => { const o = structuredClone(base); delete (o.metadata as JsonObject).resourceVersion; return o; })(), true],
    ["a spec field differs", lease("2026-01-01T00:00:10.000000Z"), false],
    ["a number differs", { ...structuredClone(base), spec: { ...(base.spec as JsonObject), leaseDurationSeconds: 41 } }, false],
    ["a field is added", { ...structuredClone(base), status: {} }, false],
    ["a label is removed", { ...structuredClone(base), metadata: { name: "n1", namespace: "node-lease", resourceVersion: "7" } }, false],
    ["an undefined field is absent, as in JSON", { ...structuredClone(base), status: undefined }, true],
    ["an array element differs", { ...structuredClone(base), spec: { ...(base.spec as JsonObject), list: [1, "x", null, false] } }, false],
    ["an array is longer", { ...structuredClone(base), spec: { ...(base.spec as JsonObject), list: [1, "x", null, true, 5] } }, false],
    ["a scalar became an object", { ...structuredClone(base), spec: { ...(base.spec as JsonObject), holderIdentity: { n: 1 } } }, false],
    ["null against an empty object", { ...structuredClone(base), spec: null }, false],
    ["key order differs (the bytes decide)", { spec: base.spec, metadata: base.metadata, kind: "Lease", apiVersion: "example.test/v1" }, true],
    ["a bigint is not judged", { ...structuredClone(base), spec: { ...(base.spec as JsonObject), leaseDurationSeconds: 40n } }, true],
  ];
  it.each(cases)("%s", (_name, other, expected) => {
    expect(storageEncodingsMayBeEqual(base, other)).toBe(expected);
    expect(storageEncodingsMayBeEqual(other, base)).toBe(expected);
  });

  it("is never false when the storage bytes are equal (seeded random edits)", () => {
    let seed = 42;
    const rand = (n: number) => {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      return (seed >>> 8) % n;
    };
    const values: unknown[] = [0, 1, -1, 1.5, "", "a", "b", true, false, null, undefined, [], [1], {}, { a: 1 }, { a: undefined }];
    let equalPairs = 0;
    let judgedDifferent = 0;
    for (let i = 0; i < 3000; i++) {
      const a = lease("t", String(rand(3))) as JsonObject;
      const b = lease("t", String(rand(3))) as JsonObject;
      for (const o of [a, b]) {
        const spec = o.spec as JsonObject;
        for (const k of ["x", "y"]) if (rand(2)) spec[k] = structuredClone(values[rand(values.length)]);
      }
      const bytesEqual = sameBytes(a, b);
      const mayBeEqual = storageEncodingsMayBeEqual(a, b);
      if (bytesEqual) {
        equalPairs++;
        expect(mayBeEqual).toBe(true);
      } else if (!mayBeEqual) judgedDifferent++;
    }
    // Both outcomes occur, so the check is neither always true nor untested on equal bytes.
    expect(equalPairs).toBeGreaterThan(100);
    expect(judgedDifferent).toBeGreaterThan(1000);
  });
});
