import { describe, expect, it } from "vitest";
import { createEnvironment } from "./index.ts";

const env = createEnvironment({ variables: { object: "dyn", oldObject: "dyn", params: "dyn", request: "map", variables: "dyn" }, optionalTypes: true });

describe("variables an expression names", () => {
  const rows: Array<[string, string[]]> = [
    ["object.spec.replicas > 1", ["object"]],
    ["'constant' == 'constant'", []],
    ["request.operation == 'CREATE' && object.metadata.name != ''", ["object", "request"]],
    ["has(oldObject.spec)", ["oldObject"]],
    ["object.items.all(i, i.size() < params.max)", ["object", "params"]],
    ["[1, 2].exists(x, x == size(object.data))", ["object"]],
    ["cel.bind(n, object.metadata.name, n.size() < 10)", ["object"]],
    ["variables.limit > 0 ? object.x : oldObject.x", ["object", "oldObject", "variables"]],
    ["{'a': params.a}['a'] == 1", ["params"]],
    ["object.?spec.?replicas.orValue(0) == 0", ["object"]],
    // A macro variable that shadows a declared one still counts (never too few).
    ["[object].all(object, object != null)", ["object"]],
  ];
  it.each(rows)("%s", (source, want) => {
    expect([...env.compile(source).references].sort()).toEqual(want);
  });

  it("evaluates with only the named variables present", () => {
    expect(env.compile("object.a == 1").evaluate({ object: { a: 1 } }).value).toBe(true);
  });
});
