import { describe, expect, it } from "vitest";
import { anyValue, bool, enumOf, format, int32, int64, intOrString, list, mapOf, num, obj, quantity, str, time } from "./build.ts";
import type { Schema } from "./types.ts";
import { formatFieldError, validate } from "./validate.ts";

const port = obj({ name: str(), containerPort: int32({ minimum: 1, maximum: 65535 }), protocol: enumOf(["TCP", "UDP", "SCTP"]) }, { required: ["containerPort"] });
const container = obj(
  {
    name: format("dns1123-label"),
    image: str({ minLength: 1 }),
    ports: list(port, { listType: "map", mapKeys: ["containerPort", "protocol"] }),
    args: list(str(), { listType: "atomic", maxItems: 3 }),
    resources: obj({ limits: mapOf(quantity()) }),
  },
  { required: ["name"] },
);
const deployment: Schema = obj({
  apiVersion: str(),
  kind: str(),
  spec: obj({
    replicas: int32({ minimum: 0 }),
    paused: bool(),
    ratio: num(),
    strategy: enumOf(["Recreate", "RollingUpdate"]),
    maxSurge: intOrString(),
    selector: obj({ matchLabels: mapOf(str({ maxLength: 5 })) }),
    template: obj({ spec: obj({ containers: list(container, { listType: "map", mapKeys: ["name"] }) }) }),
    finalizers: list(str(), { listType: "set" }),
    raw: anyValue(),
    json: anyValue({ type: "object" }),
    code: str({ pattern: "^[A-Z]{3}$" }),
    startedAt: time(),
    count: int64(),
    nullableThing: obj({ a: str() }, { nullable: true }),
    embedded: obj({ apiVersion: str(), kind: str() }, { embeddedResource: true, preserveUnknownFields: true }),
    tags: mapOf(str(), { maxProperties: 2 }),
  }),
});

/** Runs validation and prints each error in the platform's one-line form. */
function lines(value: unknown, schema: Schema = deployment, base = ""): string[] {
  return validate(schema, value, base).map(formatFieldError);
}

const spec = (s: Record<string, unknown>) => ({ apiVersion: "apps/v1", kind: "Deployment", spec: s });
const containers = (...cs: unknown[]) => spec({ template: { spec: { containers: cs } } });

describe("validate", () => {
  it.each<[string, unknown, string[]]>([
    ["a valid object", spec({ replicas: 3, paused: false, strategy: "Recreate", maxSurge: "25%", ratio: 1 }), []],
    [
      "a string where an integer belongs",
      spec({ replicas: "string" }),
      ['spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"'],
    ],
    ["a boolean where an integer belongs", spec({ replicas: true }), ['spec.replicas: Invalid value: "boolean": spec.replicas in body must be of type integer: "boolean"']],
    ["a fraction where an integer belongs", spec({ replicas: 1.5 }), ['spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"']],
    ["an integral float is an integer", spec({ replicas: 2.0 }), []],
    ["an integer is a number", spec({ ratio: 2 }), []],
    ["a string where an object belongs", spec({ selector: "x" }), ['spec.selector: Invalid value: "string": spec.selector in body must be of type object: "string"']],
    ["an array where an object belongs", spec({ selector: [] }), ['spec.selector: Invalid value: "array": spec.selector in body must be of type object: "array"']],
    ["an object where an array belongs", spec({ finalizers: {} }), ['spec.finalizers: Invalid value: "object": spec.finalizers in body must be of type array: "object"']],
    ["null where not nullable", spec({ selector: null }), ['spec.selector: Invalid value: "null": spec.selector in body must be of type object: "null"']],
    ["null where nullable", spec({ nullableThing: null }), []],
    ["null in an any value", spec({ raw: null }), []],
    ["minimum", spec({ replicas: -1 }), ["spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0"]],
    [
      "enum",
      spec({ strategy: "Blue" }),
      ['spec.strategy: Unsupported value: "Blue": supported values: "Recreate", "RollingUpdate"'],
    ],
    ["int-or-string accepts integers", spec({ maxSurge: 1 }), []],
    ["int-or-string rejects booleans", spec({ maxSurge: true }), ['spec.maxSurge: Invalid value: "boolean": spec.maxSurge in body must be of type integer,string: "boolean"']],
    ["pattern", spec({ code: "abc" }), [`spec.code: Invalid value: "abc": spec.code in body should match '^[A-Z]{3}$'`]],
    ["date-time format", spec({ startedAt: "yesterday" }), ['spec.startedAt: Invalid value: "yesterday": spec.startedAt in body must be of type date-time: "yesterday"']],
    ["int32 range", spec({ replicas: 2 ** 31 }), ["spec.replicas: Invalid value: 2147483648: must be between -2147483648 and 2147483647, inclusive"]],
    ["int64 as bigint", spec({ count: 2n ** 62n }), []],
    ["int64 out of range", spec({ count: 2n ** 63n }), ["spec.count: Invalid value: 9223372036854775808: must be between -9223372036854775808 and 9223372036854775807, inclusive"]],
    ["maxLength in a map value", spec({ selector: { matchLabels: { "app.x/y": "toolong" } } }), ["spec.selector.matchLabels[app.x/y]: Too long: may not be longer than 5"]],
    ["maxProperties", spec({ tags: { a: "", b: "", c: "" } }), ["spec.tags: Too many: 3: must have at most 2 items"]],
    ["set duplicates", spec({ finalizers: ["a", "b", "a", "a"] }), ['spec.finalizers[2]: Duplicate value: "a"', 'spec.finalizers[3]: Duplicate value: "a"']],
    ["any value holds anything", spec({ raw: { a: [1, { b: null }] }, json: { x: 1 } }), []],
    ["an object-typed any value is still typed", spec({ json: 3 }), ['spec.json: Invalid value: "integer": spec.json in body must be of type object: "integer"']],
    ["embedded resource needs apiVersion and kind", spec({ embedded: { metadata: {} } }), ["spec.embedded.apiVersion: Required value: must not be empty", "spec.embedded.kind: Required value: must not be empty"]],
    ["embedded resource ok", spec({ embedded: { apiVersion: "v1", kind: "Pod", spec: {} } }), []],
    ["unknown fields are not validation errors", spec({ foo: 1 }), []],
  ])("%s", (_name, value, expected) => {
    expect(lines(value)).toEqual(expected);
  });

  it("reports nested paths through list items", () => {
    const v = containers(
      { name: "web", image: "nginx", ports: [{ containerPort: 80 }, { containerPort: 0, protocol: "TCP" }] },
      { image: "", args: ["a", "b", "c", "d"], resources: { limits: { cpu: "500m", memory: "lots", gpu: 1 } } },
      { name: "Web_1", ports: [{ containerPort: 80 }, { containerPort: 80 }, { containerPort: 80, protocol: "UDP" }] },
      { name: "web" },
    );
    expect(lines(v)).toEqual([
      'spec.template.spec.containers[3]: Duplicate value: {"name":"web"}',
      "spec.template.spec.containers[0].ports[1].containerPort: Invalid value: 0: spec.template.spec.containers[0].ports[1].containerPort in body should be greater than or equal to 1",
      "spec.template.spec.containers[1].name: Required value",
      'spec.template.spec.containers[1].image: Invalid value: "": spec.template.spec.containers[1].image in body should be at least 1 chars long',
      "spec.template.spec.containers[1].args: Too many: 4: must have at most 3 items",
      "spec.template.spec.containers[1].resources.limits[memory]: Invalid value: \"lots\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
      expect.stringMatching(/^spec\.template\.spec\.containers\[2\]\.name: Invalid value: "Web_1": a lowercase RFC 1123 label must consist of/),
      'spec.template.spec.containers[2].ports[1]: Duplicate value: {"containerPort":80}',
    ]);
  });

  it("reports the root and the base path", () => {
    expect(lines("x", obj({}))).toEqual(['Invalid value: "string": . in body must be of type object: "string"']);
    expect(lines({ replicas: "1" }, deployment.properties?.spec, "spec")).toEqual([
      'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
    ]);
  });

  it("reports required fields and minItems", () => {
    const s = obj({ items: list(str(), { minItems: 1 }), name: str() }, { required: ["name", "items"] });
    expect(lines({ items: [] }, s)).toEqual(["name: Required value", "items: Invalid value: 0: items in body should have at least 1 items"]);
  });

  it("keeps structured error data", () => {
    const [e] = validate(deployment, spec({ strategy: "x" }));
    expect(e).toEqual({ type: "FieldValueNotSupported", field: "spec.strategy", value: "x", message: 'Unsupported value: "x": supported values: "Recreate", "RollingUpdate"' });
  });

  it("never throws on hostile shapes", () => {
    const weird = JSON.parse('{"__proto__": {"x": 1}, "spec": {"constructor": 1, "selector": {"matchLabels": {"__proto__": "v"}}}}') as unknown;
    expect(() => validate(deployment, weird)).not.toThrow();
  });
});

describe("null metav1.Time of built-in kinds", () => {
  const condition = obj({ type: str(), lastProbeTime: time(), reason: str() });
  const rows: Array<[string, Record<string, unknown>, boolean, number]> = [
    ["a null time of a built-in kind is the zero time", { type: "Ready", lastProbeTime: null }, true, 0],
    ["a custom resource follows nullable only", { type: "Ready", lastProbeTime: null }, false, 1],
    ["other fields keep refusing null", { type: "Ready", reason: null }, true, 1],
  ];
  for (const [name, value, nullTimes, errors] of rows) {
    it(name, () => {
      expect(validate(condition, value, "", { nullTimes })).toHaveLength(errors);
    });
  }
});
