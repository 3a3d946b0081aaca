import { describe, expect, it } from "vitest";
import { list, mapOf, obj, str, withOpts } from "./build.ts";
import { formatFieldError } from "./field-errors.ts";
import { validateImmutable } from "./immutable.ts";
import type { Schema } from "./types.ts";

const schema: Schema = obj({
  roleRef: withOpts(obj({ kind: str(), name: str() }), { immutable: true }),
  spec: obj({
    selector: withOpts(mapOf(str()), { immutable: true }),
    mutable: str(),
    volumes: list(obj({ name: str(), source: withOpts(str(), { immutable: true }) }), { listType: "map", mapKeys: ["name"] }),
    steps: list(obj({ image: withOpts(str(), { immutable: true }) })),
    byKey: mapOf(obj({ id: withOpts(str(), { immutable: true }) })),
  }),
});

function lines(oldV: unknown, newV: unknown): string[] {
  return validateImmutable(schema, oldV, newV).map(formatFieldError);
}

describe("validateImmutable", () => {
  it.each<[string, unknown, unknown, string[]]>([
    ["unchanged", { roleRef: { kind: "Role", name: "a" } }, { roleRef: { kind: "Role", name: "a" } }, []],
    ["set for the first time", {}, { roleRef: { kind: "Role", name: "a" } }, []],
    ["changed", { roleRef: { kind: "Role", name: "a" } }, { roleRef: { kind: "Role", name: "b" } }, ['roleRef: Invalid value: {"kind":"Role","name":"b"}: field is immutable']],
    ["removed", { roleRef: { kind: "Role", name: "a" } }, {}, ["roleRef: Invalid value: null: field is immutable"]],
    ["a parent removed", { spec: { selector: { a: "b" } } }, {}, ["spec.selector: Invalid value: null: field is immutable"]],
    ["mutable siblings change freely", { spec: { mutable: "a", selector: { a: "b" } } }, { spec: { mutable: "b", selector: { a: "b" } } }, []],
    [
      "map-list items pair by key",
      { spec: { volumes: [{ name: "a", source: "x" }, { name: "b", source: "y" }] } },
      { spec: { volumes: [{ name: "b", source: "z" }, { name: "a", source: "x" }] } },
      ['spec.volumes[0].source: Invalid value: "z": field is immutable'],
    ],
    ["removing a map-list item is allowed", { spec: { volumes: [{ name: "a", source: "x" }] } }, { spec: { volumes: [] } }, []],
    ["atomic lists pair by index", { spec: { steps: [{ image: "a" }] } }, { spec: { steps: [{ image: "b" }, { image: "c" }] } }, ['spec.steps[0].image: Invalid value: "b": field is immutable']],
    ["map values pair by key", { spec: { byKey: { k: { id: "1" } } } }, { spec: { byKey: { k: { id: "2" } } } }, ['spec.byKey[k].id: Invalid value: "2": field is immutable']],
  ])("%s", (_name, oldV, newV, expected) => {
    expect(lines(oldV, newV)).toEqual(expected);
  });
});

describe("validateImmutable: what it walks", () => {
  it("does not read a subtree whose schema has no immutable field", () => {
    const s: Schema = obj({ free: obj({ a: str(), b: obj({ c: str() }) }), fixed: withOpts(str(), { immutable: true }) });
    const unread = {};
    Object.defineProperty(unread, "c", { enumerable: true, get: () => expect.unreachable("a subtree without immutable fields was read") });
    const old = { free: { a: "x", b: unread }, fixed: "f" };
    expect(validateImmutable(s, old, { free: { a: "y" }, fixed: "f" })).toEqual([]);
    expect(validateImmutable(s, old, { free: {}, fixed: "g" }).map(formatFieldError)).toEqual(['fixed: Invalid value: "g": field is immutable']);
  });

  it("finds an immutable field through a recursive schema", () => {
    const node: Schema = obj({ id: withOpts(str(), { immutable: true }) });
    node.properties!.child = node;
    const s: Schema = obj({ root: node, other: obj({ loop: node }) });
    const old = { root: { id: "a", child: { id: "b", child: { id: "c" } } } };
    expect(validateImmutable(s, old, { root: { id: "a", child: { id: "b", child: { id: "d" } } } }).map(formatFieldError)).toEqual(['root.child.child.id: Invalid value: "d": field is immutable']);
    expect(validateImmutable(s, { other: { loop: { id: "a" } } }, { other: { loop: { id: "b" } } }).map(formatFieldError)).toEqual(['other.loop.id: Invalid value: "b": field is immutable']);
  });
});
