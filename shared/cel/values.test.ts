import { describe, expect, it } from "vitest";
import { Optional } from "@marcbachmann/cel-js";
import { Duration, UnsignedInt } from "@marcbachmann/cel-js/evaluator";
import { fromCel, toCel } from "./values.ts";

describe("toCel: JSON → CEL", () => {
  const cases: [string, unknown, unknown][] = [
    ["an integer becomes BigInt", 42, 42n],
    ["a negative integer becomes BigInt", -7, -7n],
    ["1.0 (integral in JSON) becomes BigInt", 1.0, 1n],
    ["a fraction stays a double", 1.5, 1.5],
    ["an integer past int64 stays a double", 1e20, 1e20],
    ["a BigInt is kept exactly", 9007199254740993n, 9007199254740993n],
    ["strings, booleans and null are unchanged", ["s", true, null], ["s", true, null]],
    ["nested arrays and objects are converted", { a: 1, b: [2, 1.5, { c: 3 }] }, { a: 1n, b: [2n, 1.5, { c: 3n }] }],
    ["an empty object stays empty", {}, {}],
  ];
  it.each(cases)("%s", (_name, input, want) => {
    expect(toCel(input)).toEqual(want);
  });

  it("keeps a `__proto__` key as data and leaves the prototype alone", () => {
    const out = toCel(JSON.parse('{"__proto__": {"x": 1}}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(["__proto__"]);
    expect(Object.getOwnPropertyDescriptor(out, "__proto__")?.value).toEqual({ x: 1n });
  });
});

describe("fromCel: CEL → JSON", () => {
  const cases: [string, unknown, unknown][] = [
    ["a safe BigInt becomes a number", 5n, 5],
    ["an unsafe BigInt stays BigInt (exact)", 9007199254740993n, 9007199254740993n],
    ["an unsigned int becomes a number", new UnsignedInt(7n), 7],
    ["a double stays a double", 2.5, 2.5],
    ["bytes become base64", new Uint8Array([104, 105]), "aGk="],
    ["a timestamp becomes RFC 3339 text", new Date(Date.UTC(2024, 0, 2, 3, 4, 5)), "2024-01-02T03:04:05.000Z"],
    ["a duration becomes its text", new Duration(90n, 0), "90s"],
    ["a present optional becomes its value", Optional.of(3n), 3],
    ["an empty optional becomes null", Optional.none(), null],
    ["a Map becomes an object", new Map<string, unknown>([["k", 1n]]), { k: 1 }],
    ["a Set becomes an array", new Set([1n, 2n]), [1, 2]],
    ["nested values are converted", { a: [1n, { b: 2n }] }, { a: [1, { b: 2 }] }],
  ];
  it.each(cases)("%s", (_name, input, want) => {
    expect(fromCel(input)).toEqual(want);
  });

  it("round-trips JSON documents", () => {
    const doc = { spec: { replicas: 3, ratio: 0.5, labels: { app: "web" }, ports: [80, 443], paused: false, note: null } };
    expect(fromCel(toCel(doc))).toEqual(doc);
  });
});
