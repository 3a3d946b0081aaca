import { setFlagsFromString } from "node:v8";
import { describe, expect, it } from "vitest";
import { cloneValue, setOwn, withOwn } from "./values.ts";

describe("setOwn", () => {
  it.each([
    ["name", "plain key"],
    ["constructor", "key that names a prototype member"],
    ["__proto__", "prototype accessor key"],
  ])("sets %s (%s) as an own enumerable data property without touching the prototype", (key) => {
    const o: Record<string, unknown> = {};
    setOwn(o, key, { v: 1 });
    expect(Object.getPrototypeOf(o)).toBe(Object.prototype);
    expect(Object.keys(o)).toEqual([key]);
    expect(Object.getOwnPropertyDescriptor(o, key)).toEqual({ value: { v: 1 }, writable: true, enumerable: true, configurable: true });
  });
});

describe("cloneValue", () => {
  it("copies a __proto__ key as data and never changes the copy's prototype", () => {
    const parsed = JSON.parse('{"metadata":{"labels":{"__proto__":{"polluted":true},"a":"1"}}}') as Record<string, unknown>;
    const copy = cloneValue(parsed);
    const labels = (copy.metadata as Record<string, Record<string, unknown>>).labels;
    expect(Object.getPrototypeOf(labels)).toBe(Object.prototype);
    expect(Object.keys(labels)).toEqual(["__proto__", "a"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(copy).not.toBe(parsed);
    expect(labels).not.toBe((parsed.metadata as Record<string, unknown>).labels);
  });
});

describe("withOwn", () => {
  const cases: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
    ["adds keys after the base's", { a: 1, b: "x" }, { c: true, d: null }],
    ["overrides a key in its place", { a: 1, b: "x", c: 3 }, { b: "y" }],
    ["keeps undefined values as keys", { a: undefined }, { b: undefined }],
    ["orders integer-like keys as spread does", { b: 1, 2: "two" }, { 1: "one", a: 0 }],
    ["copies an empty base", {}, { a: 1 }],
    ["copies with nothing to add", { a: 1 }, {}],
  ];
  it.each(cases)("%s, as spread does", (_name, base, extra) => {
    const got = withOwn(base, extra);
    const spread = { ...base, ...extra };
    expect(Object.keys(got)).toEqual(Object.keys(spread));
    expect(got).toEqual(spread);
    expect(got).not.toBe(base);
  });

  it("keeps a __proto__ key as data and the ordinary prototype", () => {
    const base = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
    const got = withOwn(base, { b: 2 }) as Record<string, unknown>;
    expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
    expect(Object.keys(got)).toEqual(["__proto__", "a", "b"]);
    expect(got.polluted).toBeUndefined();
  });

  it("gives objects made alike one hidden class (spread followed by a new key does not, on node 20)", () => {
    setFlagsFromString("--allow-natives-syntax");
    // Parsed after the flag is set, so the V8 intrinsic is allowed in this function only.
    const sameClass = new Function("a", "b", "return %HaveSameMap(a, b)") as (a: object, b: object) => boolean;
    const base = { name: "n", namespace: "ns", dryRun: false };
    const made = Array.from({ length: 4 }, (_, i) => withOwn(base, { resource: "leases", index: i }));
    for (const o of made.slice(1)) expect(sameClass(made[0], o)).toBe(true);
  });
});
