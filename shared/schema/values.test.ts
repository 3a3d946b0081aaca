import { describe, expect, it } from "vitest";
import { cloneValue, setOwn } from "./values.ts";

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
