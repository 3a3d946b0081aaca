import { describe, expect, it } from "vitest";
import { cloneValue } from "./values.ts";

/** Every object and array reachable from `v`. */
function containers(v: unknown, into = new Set<object>()): Set<object> {
  if (typeof v === "object" && v !== null) {
    into.add(v);
    for (const x of Object.values(v)) containers(x, into);
  }
  return into;
}

describe("cloneValue", () => {
  const values: Array<[string, unknown]> = [
    ["a decoded object", { apiVersion: "v1", kind: "Pod", metadata: { name: "p", labels: { a: "b" } }, spec: { containers: [{ name: "c", ports: [{ containerPort: 80 }] }] } }],
    ["scalars of every kind", { s: "x", n: -1.5, z: 0, big: 2n ** 70n, t: true, f: false, nul: null, undef: undefined, nested: [[1, [2]], {}] }],
    ["a top-level array", [1, "a", { b: [null] }]],
    ["binary and dates below plain objects", { data: new Uint8Array([1, 2, 3]), when: new Date(0), m: new Map([["k", 1]]) }],
    ["a null-prototype object", Object.assign(Object.create(null) as object, { a: 1, b: { c: 2 } })],
    ["a string", "text"],
    ["null", null],
  ];

  it.each(values)("%s: equal to structuredClone's copy, sharing nothing", (_name, v) => {
    const out = cloneValue(v);
    expect(out).toStrictEqual(structuredClone(v));
    const before = containers(v);
    for (const c of containers(out)) expect(before.has(c)).toBe(false);
  });

  it("keeps __proto__ as an own key and the key order", () => {
    const v = JSON.parse('{"b":1,"__proto__":{"polluted":true},"a":2}') as Record<string, unknown>;
    const out = cloneValue(v);
    expect(Object.keys(out)).toEqual(["b", "__proto__", "a"]);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect((out as { polluted?: boolean }).polluted).toBeUndefined();
    expect(Object.getOwnPropertyDescriptor(out, "__proto__")?.value).toEqual({ polluted: true });
  });
});
