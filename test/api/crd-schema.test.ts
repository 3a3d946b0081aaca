/**
 * The schema engine on custom resources over HTTPS: defaulting on write and on
 * read, nullable, int-or-string, embedded resources, RE2 patterns, CEL rules
 * (transition rules, optionalOldSelf, messageExpression, reason, fieldPath) and server-side apply
 * with list-map keys and atomic lists.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { CRD_GROUP, crdPath, waitServed } from "../support/crd-fixtures.ts";

let api: TestApiserver;
const base = `/apis/${CRD_GROUP}/v1/namespaces/default/gadgets`;
type Obj = Record<string, unknown>;

function gadgetCrd(extraSpec: Obj = {}): Obj {
  const x = api.profile.ext;
  return {
    apiVersion: api.profile.apiVersion("apiextensions", "v1"),
    kind: "CustomResourceDefinition",
    metadata: { name: `gadgets.${CRD_GROUP}` },
    spec: {
      group: CRD_GROUP,
      scope: "Namespaced",
      names: { plural: "gadgets", singular: "gadget", kind: "Gadget" },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: {
                spec: {
                  type: "object",
                  properties: {
                    size: { type: "string", [x.validations]: [{ rule: "self == oldSelf", message: "size is immutable" }] },
                    count: { type: "integer", [x.validations]: [{ rule: "self >= 0", messageExpression: "'count ' + string(self) + ' is negative'", reason: "FieldValueForbidden" }] },
                    port: { [x.intOrString]: true },
                    level: {
                      type: "integer",
                      [x.validations]: [{ rule: "!oldSelf.hasValue() ? self <= 10 : self >= oldSelf.value()", optionalOldSelf: true, message: "level starts at 10 at most and never goes down" }],
                    },
                    note: { type: "string", nullable: true },
                    code: { type: "string", pattern: "^(a+)+$" },
                    template: { type: "object", [x.embeddedResource]: true, [x.preserveUnknownFields]: true },
                    ports: {
                      type: "array",
                      [x.listType]: "map",
                      [x.listMapKeys]: ["name"],
                      items: { type: "object", required: ["name"], properties: { name: { type: "string" }, port: { type: "integer" } } },
                    },
                    tags: { type: "array", items: { type: "string" } },
                    timeout: { type: "string", format: "duration" },
                    ...extraSpec,
                  },
                },
              },
            },
          },
        },
      ],
    },
  };
}

beforeAll(async () => {
  api = await startTestApiserver();
  const res = await api.admin.post(crdPath(api.profile), gadgetCrd());
  expect(res.status, res.text).toBe(201);
  await waitServed(api.admin, base);
});
afterAll(async () => {
  await api?.close();
});

const gadget = (name: string, spec: Obj) => ({ apiVersion: `${CRD_GROUP}/v1`, kind: "Gadget", metadata: { name }, spec });

describe("schema engine on custom resources", () => {
  it("accepts int-or-string and null for nullable fields, refuses wrong types", async () => {
    expect((await api.admin.post(base, gadget("ios1", { port: 80, note: null }))).status).toBe(201);
    const named = await api.admin.post(base, gadget("ios2", { port: "http" }));
    expect(named.status).toBe(201);
    const bad = await api.admin.post(base, gadget("ios3", { port: true, count: "x" }));
    expect(bad.status).toBe(422);
    const msg = bad.json<{ message: string }>().message;
    expect(msg).toContain('spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"');
    expect(msg).toContain('spec.count: Invalid value: "string": spec.count in body must be of type integer: "string"');
  });

  it("checks format: duration as the OpenAPI validator does", async () => {
    for (const [i, timeout] of ["90s", "1h30m", "3 days"].entries()) {
      const ok = await api.admin.post(base, gadget(`dur${i}`, { timeout }));
      expect(ok.status, ok.text).toBe(201);
    }
    const bad = await api.admin.post(base, gadget("dur-bad", { timeout: "soon" }));
    expect(bad.status).toBe(422);
    expect(bad.json<{ message: string }>().message).toContain('spec.timeout: Invalid value: "soon": spec.timeout in body must be of type duration: "soon"');
  });

  it("matches patterns in linear time (RE2) and refuses a pattern that does not compile", async () => {
    const res = await api.admin.post(base, gadget("re", { code: `${"a".repeat(5000)}!` }));
    expect(res.status).toBe(422);
    expect(res.json<{ message: string }>().message).toContain("spec.code in body should match '^(a+)+$'");
    const crd = gadgetCrd() as { metadata: Obj; spec: { names: Obj; versions: Array<{ schema: { openAPIV3Schema: { properties: { spec: { properties: Obj } } } } }> } };
    crd.metadata.name = `badpatterns.${CRD_GROUP}`;
    crd.spec.names = { plural: "badpatterns", kind: "BadPattern" };
    crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.code = { type: "string", pattern: "(a" };
    const refused = await api.admin.post(crdPath(api.profile), crd);
    expect(refused.status).toBe(422);
    expect(refused.json<{ message: string }>().message).toContain('spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[code].pattern: Invalid value: "(a": must be a valid regular expression');
  });

  it("requires apiVersion and kind of embedded resources and keeps their metadata", async () => {
    const bad = await api.admin.post(base, gadget("emb1", { template: { metadata: { name: "x" } } }));
    expect(bad.status).toBe(422);
    expect(bad.json<{ message: string }>().message).toContain("spec.template.apiVersion: Required value");
    const ok = await api.admin.post(base, gadget("emb2", { template: { apiVersion: "v1", kind: "Pod", metadata: { name: "x" }, spec: { a: 1 } } }));
    expect(ok.status, ok.text).toBe(201);
    expect(ok.json<{ spec: { template: Obj } }>().spec.template).toEqual({ apiVersion: "v1", kind: "Pod", metadata: { name: "x" }, spec: { a: 1 } });
  });

  it("runs CEL rules: transition rules on update only, messageExpression and reason", async () => {
    const created = await api.admin.post(base, gadget("cel", { size: "S", count: 1 }));
    expect(created.status, created.text).toBe(201);
    const cur = created.json<{ metadata: Obj }>();
    const changed = await api.admin.put(`${base}/cel`, { ...gadget("cel", { size: "L", count: 1 }), metadata: cur.metadata });
    expect(changed.status).toBe(422);
    expect(changed.json<{ message: string }>().message).toContain('spec.size: Invalid value: "string": size is immutable');
    const negative = await api.admin.post(base, gadget("neg", { count: -3 }));
    expect(negative.status).toBe(422);
    expect(negative.json<{ message: string }>().message).toContain("spec.count: Forbidden: count -3 is negative");
  });

  it("runs optionalOldSelf transition rules on create and where the old value is absent, with oldSelf an optional", async () => {
    const msg = 'spec.level: Invalid value: "integer": level starts at 10 at most and never goes down';
    const high = await api.admin.post(base, gadget("lvl-high", { level: 20 }));
    expect(high.status).toBe(422);
    expect(high.json<{ message: string }>().message).toContain(msg);
    const created = await api.admin.post(base, gadget("lvl", { level: 5 }));
    expect(created.status, created.text).toBe(201);
    const rv = () => api.admin.get(`${base}/lvl`).then((r) => r.json<{ metadata: Obj }>().metadata);
    const down = await api.admin.put(`${base}/lvl`, { ...gadget("lvl", { level: 3 }), metadata: await rv() });
    expect(down.status).toBe(422);
    expect(down.json<{ message: string }>().message).toContain(msg);
    const up = await api.admin.put(`${base}/lvl`, { ...gadget("lvl", { level: 50 }), metadata: await rv() });
    expect(up.status, up.text).toBe(200);
    // An update that adds the field: no old value there, so the create branch applies.
    expect((await api.admin.post(base, gadget("lvl-late", {}))).status).toBe(201);
    const late = await api.admin.put(`${base}/lvl-late`, { ...gadget("lvl-late", { level: 11 }), metadata: (await api.admin.get(`${base}/lvl-late`)).json<{ metadata: Obj }>().metadata });
    expect(late.status).toBe(422);
    expect(late.json<{ message: string }>().message).toContain(msg);
  });

  it("refuses optionalOldSelf on a rule that does not use oldSelf", async () => {
    const x = api.profile.ext;
    const crd = gadgetCrd({ plain: { type: "integer", [x.validations]: [{ rule: "self > 0", optionalOldSelf: true }] } }) as { metadata: Obj; spec: { names: Obj } };
    crd.metadata.name = `plains.${CRD_GROUP}`;
    crd.spec.names = { plural: "plains", kind: "Plain" };
    const res = await api.admin.post(crdPath(api.profile), crd);
    expect(res.status).toBe(422);
    expect(res.json<{ message: string }>().message).toContain(`spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[plain].${x.validations}[0].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule`);
  });

  it("refuses, at CRD write time, a rule whose estimated cost exceeds the budget, and accepts it with bounds", async () => {
    const x = api.profile.ext;
    const costly = (bounds: Obj) => {
      const crd = gadgetCrd({ names: { type: "array", ...bounds, items: { type: "string", ...(bounds.maxItems ? { maxLength: 32 } : {}) }, [x.validations]: [{ rule: "self.all(a, self.exists_one(b, a == b))", message: "names are unique" }] } }) as { metadata: Obj; spec: { names: Obj } };
      crd.metadata.name = `costlies.${CRD_GROUP}`;
      crd.spec.names = { plural: "costlies", kind: "Costly" };
      return crd;
    };
    const refused = await api.admin.post(crdPath(api.profile), costly({}));
    expect(refused.status).toBe(422);
    const message = refused.json<{ message: string }>().message;
    const at = `spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[names].${x.validations}[0].rule`;
    expect(message).toContain(`${at}: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`);
    expect(message).toContain(`spec.versions[0].schema.openAPIV3Schema: Forbidden: ${x.validations} estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x`);
    expect((await api.admin.get(crdPath(api.profile, `costlies.${CRD_GROUP}`))).status).toBe(404);
    const accepted = await api.admin.post(crdPath(api.profile), costly({ maxItems: 20 }));
    expect(accepted.status, accepted.text).toBe(201);
  });

  it("defaults on read: a default added to the CRD shows on objects stored before", async () => {
    expect((await api.admin.post(base, gadget("old", { size: "M" }))).status).toBe(201);
    const crdUrl = crdPath(api.profile, `gadgets.${CRD_GROUP}`);
    const cur = (await api.admin.get(crdUrl)).json<{ metadata: Obj }>();
    const next = { ...gadgetCrd({ color: { type: "string", default: "blue" } }), metadata: cur.metadata };
    const upd = await api.admin.put(crdUrl, next);
    expect(upd.status, upd.text).toBe(200);
    let color: unknown;
    for (let i = 0; i < 100 && color === undefined; i++) {
      color = (await api.admin.get(`${base}/old`)).json<{ spec: Obj }>().spec.color;
      if (color === undefined) await new Promise((r) => setTimeout(r, 20));
    }
    expect(color).toBe("blue");
    const listed = await api.admin.get(base);
    const old = listed.json<{ items: Array<{ metadata: { name: string }; spec: Obj }> }>().items.find((i) => i.metadata.name === "old");
    expect(old?.spec.color).toBe("blue");
  });

  it("server-side apply merges list-map items by key and replaces atomic lists", async () => {
    const apply = (manager: string, body: Obj, force = false) =>
      api.admin.patch(`${base}/ssa?fieldManager=${manager}${force ? "&force=true" : ""}`, body, "application/apply-patch+yaml");
    const first = await apply("a", gadget("ssa", { ports: [{ name: "http", port: 80 }], tags: ["x"] }));
    expect(first.status, first.text).toBe(201);
    const second = await apply("b", gadget("ssa", { ports: [{ name: "https", port: 443 }], tags: ["y"] }));
    expect(second.status).toBe(409);
    expect(second.json<{ message: string }>().message).toContain(".spec.tags");
    const forced = await apply("b", gadget("ssa", { ports: [{ name: "https", port: 443 }], tags: ["y"] }), true);
    expect(forced.status, forced.text).toBe(200);
    const spec = forced.json<{ spec: { ports: Obj[]; tags: string[] } }>().spec;
    expect(spec.ports).toEqual([
      { name: "http", port: 80 },
      { name: "https", port: 443 },
    ]);
    expect(spec.tags).toEqual(["y"]);
    const managed = forced.json<{ metadata: { managedFields: Array<{ manager: string; fieldsV1: Obj }> } }>().metadata.managedFields;
    expect(managed.map((m) => m.manager).sort()).toEqual(["a", "b"]);
  });
});
