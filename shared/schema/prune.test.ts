import { describe, expect, it } from "vitest";
import { prune } from "./prune.ts";
import { findUnknownFields } from "./unknown-fields.ts";
import { kindSchema, UNKNOWN_CASES } from "./testing/unknown-fields.fixtures.ts";

describe("prune", () => {
  it.each(UNKNOWN_CASES)("%s: prunes exactly the unknown fields", (_name, value, expected) => {
    const input = structuredClone(value);
    const { value: out, pruned } = prune(kindSchema, value);
    expect(pruned).toEqual(expected);
    expect(findUnknownFields(kindSchema, out)).toEqual([]);
    expect(value).toEqual(input);
    expect(prune(kindSchema, out).value).toEqual(out);
  });

  it.each<[string, unknown, unknown]>([
    [
      "removes unknowns at every depth and keeps the rest",
      { apiVersion: "v1", foo: 1, metadata: { name: "a", bar: 2 }, spec: { replicas: 1, x: 2, template: { spec: { containers: [{ name: "c", junk: 1 }] } } } },
      { apiVersion: "v1", metadata: { name: "a" }, spec: { replicas: 1, template: { spec: { containers: [{ name: "c" }] } } } },
    ],
    ["keeps preserved and any values whole", { spec: { config: { a: { b: 1 } }, extensible: { known: "k", other: 1 } } }, { spec: { config: { a: { b: 1 } }, extensible: { known: "k", other: 1 } } }],
    ["empties a property-less object", { spec: { empty: { a: 1 } } }, { spec: { empty: {} } }],
  ])("%s", (_name, value, expected) => {
    expect(prune(kindSchema, value).value).toEqual(expected);
  });

  it("returns copies, never the input's objects", () => {
    const value = { spec: { config: { a: 1 } } };
    const out = prune(kindSchema, value).value as typeof value;
    out.spec.config.a = 2;
    expect(value.spec.config.a).toBe(1);
  });
});
