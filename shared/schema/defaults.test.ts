import { describe, expect, it } from "vitest";
import { anyValue, bool, int32, list, mapOf, obj, str, withOpts } from "./build.ts";
import { applyDefaults } from "./defaults.ts";
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
