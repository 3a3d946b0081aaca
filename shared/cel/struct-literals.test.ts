import { describe, expect, it } from "vitest";
import { createEnvironment } from "./index.ts";
import { rewriteStructLiterals } from "./struct-literals.ts";

describe("struct literal rewriting", () => {
  const rows: [string, string][] = [
    ["Object{spec: Object.spec{replicas: 3}}", "{'spec': {'replicas': 3}}"],
    ["JSONPatch{op: 'add', path: '/a', value: 1}", "{'op': 'add', 'path': '/a', 'value': 1}"],
    ["[JSONPatch{op: 'add', path: '/metadata/labels/' + jsonpatch.escapeKey('a/b'), value: 'x'}]", "[{'op': 'add', 'path': '/metadata/labels/' + jsonpatch.escapeKey('a/b'), 'value': 'x'}]"],
    ["Object{metadata: Object.metadata{labels: {'a': object.spec.x}}}", "{'metadata': {'labels': {'a': object.spec.x}}}"],
    ["{'Object{x: 1}': 1}", "{'Object{x: 1}': 1}"],
    ["object.Object{a: 1}", "object.Object{a: 1}"],
    ["Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: 'c', image: f(a, b)}]}", "{'containers': [{'name': 'c', 'image': f(a, b)}]}"],
    ["Other{a: 1}", "Other{a: 1}"],
  ];
  it.each(rows)("%s", (src, want) => {
    expect(rewriteStructLiterals(src)).toBe(want);
  });

  it("evaluates literals as maps in an environment that allows them", () => {
    const env = createEnvironment({ variables: { object: "dyn" }, structLiterals: true, mixedTypeLiterals: true });
    const value = env.compile("Object{spec: Object.spec{replicas: object.spec.replicas + 1, paused: true}}").evaluate({ object: { spec: { replicas: 2 } } }).value;
    expect(value).toEqual({ spec: { replicas: 3, paused: true } });
    const patch = env.compile("[JSONPatch{op: 'add', path: '/metadata/labels/' + jsonpatch.escapeKey('a/b~c'), value: 'x'}]").evaluate({ object: {} }).value;
    expect(patch).toEqual([{ op: "add", path: "/metadata/labels/a~1b~0c", value: "x" }]);
  });

  it("keeps literals a syntax error elsewhere", () => {
    const env = createEnvironment({ variables: { object: "dyn" } });
    expect(() => env.compile("Object{spec: 1}")).toThrow(/compilation failed/);
  });
});
