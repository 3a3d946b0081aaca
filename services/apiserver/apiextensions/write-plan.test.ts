import { describe, expect, it } from "vitest";
import { customGroupKey, getProfile } from "../../../shared/platform/index.ts";
import { applyDefaults, findUnknownFields } from "../../../shared/schema/index.ts";
import { deepEqual } from "../../../shared/schema/values.ts";
import type { ObjectStorage } from "../storage/interface.ts";
import type { JsonObject } from "../storage/object.ts";
import { convertRootSchema } from "./schema.ts";
import { crontabCrd } from "./testing/crontab-crd.ts";
import { servedResources } from "./served.ts";
import { hasUnknownFields, needsDefaults, withDefaults } from "./write-plan.ts";

const profile = getProfile("plat");
const x = profile.ext;

const openAPIV3Schema = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      properties: {
        image: { type: "string", default: "busybox" },
        replicas: { type: "integer", default: 1 },
        maybe: { type: "string", nullable: true, default: "d" },
        nested: { type: "object", properties: { deep: { type: "object", properties: { v: { type: "integer", default: 7 } } } } },
        ports: { type: "array", items: { type: "object", properties: { name: { type: "string" }, protocol: { type: "string", default: "TCP" } } } },
        byName: { type: "object", additionalProperties: { type: "object", properties: { weight: { type: "integer", default: 1 } } } },
        mixed: { type: "object", properties: { fixed: { type: "object", properties: { a: { type: "string" } } } }, additionalProperties: { type: "object", properties: { b: { type: "integer", default: 2 } } } },
        keep: { type: "object", [x.preserveUnknownFields]: true },
        embedded: { type: "object", [x.embeddedResource]: true, properties: { spec: { type: "object", properties: { a: { type: "string" } } } } },
        tags: { type: "array", items: { type: "string" } },
      },
    },
    status: { type: "object", properties: { phase: { type: "string" } } },
  },
};
const schema = convertRootSchema(openAPIV3Schema, x);
const full = { image: "i", replicas: 2, maybe: "m" };
const obj = (spec: JsonObject, extra: JsonObject = {}): JsonObject => ({ apiVersion: "stable.example.com/v1", kind: "CronTab", metadata: { name: "a", labels: { k: "v" } }, spec, ...extra });

// value, whether prune would drop something, whether applyDefaults would set something
const cases: Array<[string, JsonObject, boolean, boolean]> = [
  ["complete", obj(full), false, false],
  ["a top-level default missing", obj({ image: "i", maybe: "m" }), false, true],
  ["a null non-nullable field with a default", obj({ ...full, replicas: null }), false, true],
  ["a null nullable field with a default", obj({ ...full, maybe: null }), false, false],
  ["empty spec (its fields are defaulted)", obj({}), false, true],
  ["nested parent absent", obj({ ...full, nested: {} }), false, false],
  ["nested default missing", obj({ ...full, nested: { deep: {} } }), false, true],
  ["nested default set", obj({ ...full, nested: { deep: { v: 1 } } }), false, false],
  ["list item missing a default", obj({ ...full, ports: [{ name: "a", protocol: "UDP" }, { name: "b" }] }), false, true],
  ["list items complete", obj({ ...full, ports: [{ name: "a", protocol: "UDP" }] }), false, false],
  ["map value missing a default", obj({ ...full, byName: { a: { weight: 3 }, b: {} } }), false, true],
  ["declared property beside map values", obj({ ...full, mixed: { fixed: {}, other: { b: 1 } } }), false, false],
  ["map value beside a declared property", obj({ ...full, mixed: { fixed: {}, other: {} } }), false, true],
  ["unknown field in spec", obj({ ...full, unknown: 1 }), true, false],
  ["unknown top-level field", obj(full, { extra: true }), true, false],
  ["unknown field in a list item", obj({ ...full, ports: [{ name: "a", protocol: "TCP", x: 1 }] }), true, false],
  ["unknown metadata field", { ...obj(full), metadata: { name: "a", bogus: 1 } }, true, false],
  ["preserved unknown fields", obj({ ...full, keep: { anything: { at: ["all"] } } }), false, false],
  ["embedded resource's own fields", obj({ ...full, embedded: { apiVersion: "v1", kind: "K", metadata: { name: "n" }, spec: { a: "b" } } }), false, false],
  ["embedded resource's unknown field", obj({ ...full, embedded: { spec: { z: 1 } } }), true, false],
  ["wrong type is not descended", obj({ ...full, ports: "text", tags: [1, 2] }), false, false],
];

describe("write plan: the same answers as prune and applyDefaults", () => {
  it.each(cases)("%s", (_name, value, unknown, defaults) => {
    const before = structuredClone(value);
    expect(findUnknownFields(schema, value).length > 0).toBe(unknown);
    expect(!deepEqual(applyDefaults(schema, value), value)).toBe(defaults);
    expect(hasUnknownFields(schema, value)).toBe(unknown);
    expect(needsDefaults(schema, value)).toBe(defaults);
    const out = withDefaults(schema, value);
    expect(JSON.stringify(out)).toBe(JSON.stringify(applyDefaults(schema, value)));
    expect(out === value).toBe(!defaults);
    expect(value).toEqual(before);
  });

  it("copies on write: only the objects and lists along the paths to a default are new", () => {
    const value = obj({ image: "i", maybe: "m", ports: [{ name: "a", protocol: "UDP" }, { name: "b" }], tags: ["t"], keep: { a: 1 } });
    const out = withDefaults(schema, value) as JsonObject;
    const spec = out.spec as JsonObject;
    const ports = spec.ports as JsonObject[];
    const inSpec = value.spec as JsonObject;
    expect(out).not.toBe(value);
    expect(out.metadata).toBe(value.metadata);
    expect(spec).not.toBe(inSpec);
    expect(spec.replicas).toBe(1);
    expect(ports).not.toBe(inSpec.ports);
    expect(ports[0]).toBe((inSpec.ports as JsonObject[])[0]);
    expect(ports[1]).toEqual({ name: "b", protocol: "TCP" });
    expect(spec.tags).toBe(inSpec.tags);
    expect(spec.keep).toBe(inSpec.keep);
  });

  it("a default is itself defaulted below, and a set default is a copy", () => {
    const s = convertRootSchema({ type: "object", properties: { spec: { type: "object", default: {}, properties: { a: { type: "integer", default: 3 }, l: { type: "array", default: [{}], items: { type: "object", properties: { b: { type: "string", default: "x" } } } } } } } }, x);
    const out = withDefaults(s, {}) as JsonObject;
    expect(out).toEqual({ spec: { a: 3, l: [{ b: "x" }] } });
    expect(JSON.stringify(out)).toBe(JSON.stringify(applyDefaults(s, {})));
    (out.spec as JsonObject).a = 4;
    expect(withDefaults(s, {})).toEqual({ spec: { a: 3, l: [{ b: "x" }] } });
  });

  it("a schema without defaults never needs them", () => {
    const bare = convertRootSchema({ type: "object", properties: { spec: { type: "object", properties: { a: { type: "string" } } } } }, x);
    expect(needsDefaults(bare, { spec: {} })).toBe(false);
    expect(needsDefaults(bare, {})).toBe(false);
  });
});

const crd = crontabCrd(profile, openAPIV3Schema);
const [served] = servedResources(crd, profile, {} as ObjectStorage, {});
const apiVersion = profile.apiVersion(customGroupKey("stable.example.com"), "v1");

describe("custom resource writes and reads copy only what changes", () => {
  const strategy = served.registry.strategy;

  it("applyDefaults hands on an object with nothing to prune or default", () => {
    const o = { ...obj(full), apiVersion };
    expect(strategy.applyDefaults(o)).toBe(o);
  });

  it("applyDefaults prunes and defaults otherwise, leaving its input as it was", () => {
    const o = { ...obj({ image: "i", unknown: 1 }), apiVersion };
    const before = structuredClone(o);
    const out = strategy.applyDefaults(o);
    expect(out).not.toBe(o);
    expect(out.spec).toEqual({ image: "i", replicas: 1, maybe: "d" });
    expect(o).toEqual(before);
  });

  it("applyDefaults copies only the path to a default", () => {
    const o: JsonObject = { ...obj({ image: "i", maybe: "m" }), apiVersion };
    const out = strategy.applyDefaults(o);
    expect(out.spec).toEqual({ image: "i", maybe: "m", replicas: 1 });
    expect(out.metadata).toBe(o.metadata);
    expect(o.spec).toEqual({ image: "i", maybe: "m" });
  });

  it("reading a stored object that has every default gives the object itself", () => {
    const view = served.registry.conversion?.view;
    const stored = { ...obj(full), apiVersion };
    expect(view?.fromStorage(stored)).toBe(stored);
  });

  it("reading a stored object without a default gives a defaulted copy", () => {
    const view = served.registry.conversion?.view;
    const stored: JsonObject = { ...obj({ image: "i", maybe: "m" }), apiVersion };
    const out = view?.fromStorage(stored);
    expect(out).not.toBe(stored);
    expect(out?.spec).toEqual({ image: "i", maybe: "m", replicas: 1 });
    expect(stored.spec).toEqual({ image: "i", maybe: "m" });
  });
});
