import { describe, expect, it } from "vitest";
import { anyValue, bool, int32, list, mapOf, obj, str, withOpts } from "./build.ts";
import { applyDefaults, applyDefaultsInPlace } from "./defaults.ts";
import type { Schema } from "./types.ts";

const probe = obj({ periodSeconds: int32({ default: 10 }), failureThreshold: int32({ default: 3 }) });
const container = obj({
  name: str(),
  imagePullPolicy: str({ default: "IfNotPresent" }),
  ports: list(obj({ containerPort: int32(), protocol: str({ default: "TCP" }) }), { listType: "map", mapKeys: ["containerPort", "protocol"] }),
  livenessProbe: probe,
});
const schema: Schema = obj({
  spec: obj({
    replicas: int32({ default: 1 }),
    paused: bool({ default: false }),
    strategy: withOpts(obj({ type: str({ default: "RollingUpdate" }), rollingUpdate: obj({ maxSurge: str({ default: "25%" }) }) }), { default: {} }),
    containers: list(container),
    named: mapOf(obj({ weight: int32({ default: 100 }) })),
    optional: obj({ inner: str({ default: "x" }) }),
    nullableWithDefault: str({ default: "d", nullable: true }),
    labels: withOpts(mapOf(str()), { default: { app: "default" } }),
    raw: anyValue(),
  }),
});

describe("applyDefaults", () => {
  it.each<[string, unknown, unknown]>([
    ["fills scalars and defaulted objects (and their own defaults)", { spec: {} }, { spec: { replicas: 1, paused: false, strategy: { type: "RollingUpdate" }, labels: { app: "default" }, nullableWithDefault: "d" } }],
    ["keeps set values, including falsy ones", { spec: { replicas: 0, paused: true, labels: {} } }, { spec: { replicas: 0, paused: true, strategy: { type: "RollingUpdate" }, labels: {}, nullableWithDefault: "d" } }],
    ["null counts as absent when not nullable", { spec: { replicas: null, nullableWithDefault: null } }, expect.objectContaining({ spec: expect.objectContaining({ replicas: 1, nullableWithDefault: null }) })],
    ["nested defaults apply only when the parent is present", { spec: { optional: {} } }, expect.objectContaining({ spec: expect.objectContaining({ optional: { inner: "x" } }) })],
    ["absent nested object stays absent", { spec: {} }, expect.objectContaining({ spec: expect.not.objectContaining({ optional: expect.anything() }) })],
    [
      "list items and nested items",
      { spec: { containers: [{ name: "a", ports: [{ containerPort: 80 }] }, { name: "b", imagePullPolicy: "Always", livenessProbe: { periodSeconds: 5 } }] } },
      expect.objectContaining({
        spec: expect.objectContaining({
          containers: [
            { name: "a", imagePullPolicy: "IfNotPresent", ports: [{ containerPort: 80, protocol: "TCP" }] },
            { name: "b", imagePullPolicy: "Always", livenessProbe: { periodSeconds: 5, failureThreshold: 3 } },
          ],
        }),
      }),
    ],
    ["map values", { spec: { named: { a: {}, b: { weight: 5 } } } }, expect.objectContaining({ spec: expect.objectContaining({ named: { a: { weight: 100 }, b: { weight: 5 } } }) })],
    ["any values are left alone", { spec: { raw: { replicas: null } } }, expect.objectContaining({ spec: expect.objectContaining({ raw: { replicas: null } }) })],
    ["wrong shapes pass through", { spec: "oops" }, { spec: "oops" }],
  ])("%s", (_name, input, expected) => {
    expect(applyDefaults(schema, input)).toEqual(expected);
  });

  it("is idempotent", () => {
    const inputs: unknown[] = [{ spec: {} }, { spec: { containers: [{ ports: [{}] }], named: { x: {} }, strategy: { rollingUpdate: {} } } }, {}, null, "x"];
    for (const input of inputs) {
      const once = applyDefaults(schema, input);
      expect(applyDefaults(schema, once)).toEqual(once);
    }
  });

  it("never changes its input and never shares default values", () => {
    const input = { spec: { containers: [{ name: "a" }] } };
    const frozen = structuredClone(input);
    const a = applyDefaults(schema, input) as { spec: { labels: Record<string, string> } };
    expect(input).toEqual(frozen);
    a.spec.labels.app = "changed";
    const b = applyDefaults(schema, input) as { spec: { labels: Record<string, string> } };
    expect(b.spec.labels.app).toBe("default");
    expect(schema.properties?.spec.properties?.labels.default).toEqual({ app: "default" });
  });

  it("defaults an absent root", () => {
    expect(applyDefaults(str({ default: "x" }), undefined)).toBe("x");
  });
});

function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === "object") {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

describe("applyDefaultsInPlace", () => {
  const inputs = (): unknown[] => [
    { spec: {} },
    { spec: { containers: [{ name: "a", ports: [{ containerPort: 80 }] }], named: { a: {}, b: { weight: 5 } }, strategy: { rollingUpdate: {} }, replicas: null } },
    { spec: { optional: {}, raw: { replicas: null } } },
    {},
    null,
    "x",
  ];

  it("gives what applyDefaults gives, on the value itself", () => {
    const copies = inputs();
    inputs().forEach((input, i) => {
      const expected = applyDefaults(schema, input);
      const out = applyDefaultsInPlace(schema, copies[i]);
      expect(out).toEqual(expected);
      if (input !== null && typeof input === "object") expect(out).toBe(copies[i]);
    });
  });

  it("never shares default values", () => {
    const a = applyDefaultsInPlace(schema, { spec: {} }) as { spec: { labels: Record<string, string> } };
    a.spec.labels.app = "changed";
    expect((applyDefaultsInPlace(schema, { spec: {} }) as typeof a).spec.labels.app).toBe("default");
    expect(schema.properties?.spec.properties?.labels.default).toEqual({ app: "default" });
  });

  it("writes nothing into a value that needs no default (a frozen one is accepted)", () => {
    const complete = deepFreeze(applyDefaults(schema, { spec: { containers: [{ name: "a", ports: [{ containerPort: 80 }] }], named: { a: {} } } }));
    expect(applyDefaultsInPlace(schema, complete)).toBe(complete);
  });

  it("follows a recursive schema to its defaults", () => {
    const tree: Schema = obj({ name: str({ default: "leaf" }) });
    tree.properties!.children = list(tree);
    tree.properties!.byName = mapOf(tree);
    const value = { children: [{ children: [{}] }], byName: { x: { name: "x", children: [{}] } } };
    const expected = applyDefaults(tree, value);
    expect(applyDefaultsInPlace(tree, value)).toBe(value);
    expect(value).toEqual(expected);
    expect(value).toEqual({ name: "leaf", children: [{ name: "leaf", children: [{ name: "leaf" }] }], byName: { x: { name: "x", children: [{ name: "leaf" }] } } });
  });

  it("defaults an absent root with a copy of the default", () => {
    const s = withOpts(obj({ a: str({ default: "x" }) }), { default: {} });
    const out = applyDefaultsInPlace(s, undefined);
    expect(out).toEqual({ a: "x" });
    expect(s.default).toEqual({});
  });
});
