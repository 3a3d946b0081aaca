import { describe, expect, it } from "vitest";
import { getProfile } from "../../../shared/platform/index.ts";
import { applyDefaults, findUnknownFields, validate } from "../../../shared/schema/index.ts";
import { parseSimplePath, readPath } from "./json-path.ts";
import { convertRootSchema } from "./schema.ts";
import { desiredStatus, setCondition } from "./status.ts";

const x = getProfile("plat").ext;

describe("simple JSON paths", () => {
  it.each([
    [".spec.replicas", ["spec", "replicas"]],
    [".spec.ports[0].name", ["spec", "ports", 0, "name"]],
    [".metadata.labels['app.example/name']", ["metadata", "labels", "app.example/name"]],
    ['.a["b"]', ["a", "b"]],
    [".a\\.b", ["a.b"]],
    ["{.spec.x}", ["spec", "x"]],
  ])("%s", (path, steps) => {
    expect(parseSimplePath(path)).toEqual(steps);
  });
  it.each(["", "spec", ".a[", ".a[x]", ".."])("refuses %j", (path) => {
    expect(parseSimplePath(path)).toBeUndefined();
  });
  it("reads values and misses safely", () => {
    const obj = { spec: { ports: [{ name: "http" }] } };
    expect(readPath(obj, ["spec", "ports", 0, "name"])).toBe("http");
    expect(readPath(obj, ["spec", "ports", 3, "name"])).toBeUndefined();
    expect(readPath(obj, ["spec", "constructor"])).toBeUndefined();
  });
});

describe("openAPIV3Schema conversion", () => {
  const schema = convertRootSchema(
    {
      type: "object",
      properties: {
        spec: {
          type: "object",
          required: ["a"],
          properties: {
            a: { type: "string", default: "x", enum: ["x", "y"] },
            n: { type: "integer", format: "int32", maximum: 3 },
            ios: { [x.intOrString]: true },
            keep: { type: "object", [x.preserveUnknownFields]: true },
            list: { type: "array", items: { type: "string" } },
            m: { type: "array", [x.listType]: "map", [x.listMapKeys]: ["k"], items: { type: "object", properties: { k: { type: "string" } } } },
            map: { type: "object", additionalProperties: { type: "integer" } },
          },
        },
      },
    },
    x,
  );
  it("gives ObjectMeta, string apiVersion/kind and atomic lists without markers", () => {
    expect(schema.properties?.metadata?.definition?.name).toBe("ObjectMeta");
    expect(schema.properties?.apiVersion).toEqual({ type: "string" });
    const spec = schema.properties?.spec;
    expect(spec?.properties?.list?.listType).toBe("atomic");
    expect(spec?.properties?.m).toMatchObject({ listType: "map", listMapKeys: ["k"] });
    expect(spec?.properties?.ios).toEqual({ intOrString: true });
    expect(spec?.properties?.n).toMatchObject({ type: "integer", format: "int32", maximum: 3 });
  });
  it("drives the engine: unknown fields, defaults, validation", () => {
    const obj = { apiVersion: "g/v1", kind: "K", metadata: { name: "a" }, spec: { n: 5, keep: { z: 1 }, zz: 1, map: { a: "b" } } };
    expect(findUnknownFields(schema, obj)).toEqual(["spec.zz"]);
    expect((applyDefaults(schema, obj) as { spec: { a: string } }).spec.a).toBe("x");
    const messages = validate(schema, obj).map((e) => `${e.field}: ${e.message}`);
    expect(messages).toContain("spec.a: Required value");
    expect(messages).toContain("spec.n: Invalid value: 5: spec.n in body should be less than or equal to 3");
    expect(messages).toContain('spec.map[a]: Invalid value: "string": spec.map[a] in body must be of type integer: "string"');
  });
});

describe("CRD status", () => {
  const crd = (name: string, names: Record<string, unknown>, status?: Record<string, unknown>) => ({
    metadata: { name },
    spec: { group: "g.example.com", names },
    ...(status ? { status } : {}),
  });
  const accepted = (names: Record<string, unknown>) => ({ acceptedNames: names, conditions: [] });
  it("accepts free names with defaults and establishes", () => {
    const s = desiredStatus(crd("as.g.example.com", { plural: "as", kind: "A" }), [], "T") as { acceptedNames: unknown; conditions: Array<{ type: string; status: string; reason: string }> };
    expect(s.acceptedNames).toEqual({ plural: "as", kind: "A", singular: "a", listKind: "AList" });
    expect(s.conditions.map((c) => [c.type, c.status, c.reason])).toEqual([
      ["NamesAccepted", "True", "NoConflicts"],
      ["Established", "True", "InitialNamesAccepted"],
    ]);
  });
  it.each([
    [{ plural: "bs", kind: "B", singular: "as" }, "SingularConflict", '"as" is already in use'],
    [{ plural: "bs", kind: "B", shortNames: ["a1"] }, "ShortNamesConflict", '"a1" is already in use'],
    [{ plural: "bs", singular: "b", kind: "A" }, "KindConflict", '"A" is already in use'],
    [{ plural: "bs", kind: "B", listKind: "AList" }, "ListKindConflict", '"AList" is already in use'],
  ])("refuses %j", (names, reason, message) => {
    const other = crd("as.g.example.com", {}, accepted({ plural: "as", singular: "a", kind: "A", listKind: "AList", shortNames: ["a1"] }));
    const s = desiredStatus(crd("bs.g.example.com", names), [other], "T") as { conditions: Array<{ type: string; status: string; reason: string; message: string }> };
    expect(s.conditions[0]).toMatchObject({ type: "NamesAccepted", status: "False", reason, message });
    expect(s.conditions[1]).toMatchObject({ type: "Established", status: "False", reason: "NotAccepted" });
  });
  it("is stable: the same status is not written twice, and transition times keep until the status changes", () => {
    const first = crd("as.g.example.com", { plural: "as", kind: "A" });
    const status = desiredStatus(first, [], "T1");
    expect(desiredStatus({ ...first, status }, [], "T2")).toBeUndefined();
    const conds = setCondition([{ type: "X", status: "True", reason: "r", message: "m", lastTransitionTime: "T1" }], { type: "X", status: "True", reason: "r2", message: "m" }, "T2");
    expect(conds[0].lastTransitionTime).toBe("T1");
    expect(setCondition(conds, { type: "X", status: "False", reason: "r", message: "m" }, "T3")[0].lastTransitionTime).toBe("T3");
  });
});
