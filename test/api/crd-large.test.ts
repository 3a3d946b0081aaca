/**
 * A CRD shaped like the large ones of operators (generated: thousands of schema
 * lines, deep nesting, int-or-string, embedded resources, list-map keys, dozens of
 * CEL rules) is accepted and serves objects; selectableFields work in field
 * selectors; YAML and (behind the CBORServingAndStorage gate) CBOR bodies.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeCbor, encodeCbor } from "../../shared/codec/cbor.ts";
import type { ExtensionNames } from "../../shared/platform/index.ts";
import { FeatureGates } from "../../services/apiserver/server/feature-gates.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { CRD_GROUP, crdPath, waitServed } from "../support/crd-fixtures.ts";

let api: TestApiserver;
const base = `/apis/${CRD_GROUP}/v1/namespaces/default/clusters`;
type Obj = Record<string, unknown>;

/** A nested object schema `depth` levels deep with `width` fields per level and a CEL rule on each level. */
function nested(x: ExtensionNames, depth: number, width: number, rules: { n: number }): Obj {
  const properties: Obj = {};
  for (let i = 0; i < width; i++) {
    properties[`field${i}`] = { type: "string", maxLength: 64, description: `Field ${i} at depth ${depth}.` };
    properties[`count${i}`] = { type: "integer", minimum: 0, format: "int32" };
    properties[`size${i}`] = { [x.intOrString]: true, pattern: "^[0-9]+(Mi|Gi)?$" };
  }
  properties.items = {
    type: "array",
    [x.listType]: "map",
    [x.listMapKeys]: ["name", "zone"],
    items: { type: "object", required: ["name", "zone"], properties: { name: { type: "string" }, zone: { type: "string", default: "a" }, weight: { type: "integer" } } },
  };
  properties.podTemplate = { type: "object", [x.embeddedResource]: true, [x.preserveUnknownFields]: true };
  if (depth > 0) properties.child = nested(x, depth - 1, width, rules);
  rules.n++;
  return { type: "object", properties, [x.validations]: [{ rule: "!has(self.count0) || self.count0 < 1000", message: `count0 too large at depth ${depth}` }] };
}

function largeCrd(): Obj {
  const x = api.profile.ext;
  const rules = { n: 0 };
  const spec = nested(x, 12, 12, rules);
  return {
    apiVersion: api.profile.apiVersion("apiextensions", "v1"),
    kind: "CustomResourceDefinition",
    metadata: { name: `clusters.${CRD_GROUP}` },
    spec: {
      group: CRD_GROUP,
      scope: "Namespaced",
      names: { plural: "clusters", singular: "cluster", kind: "Cluster" },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          selectableFields: [{ jsonPath: ".spec.field0" }],
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: "object", properties: { spec, status: { type: "object", [x.preserveUnknownFields]: true } } } },
        },
      ],
    },
  };
}

beforeAll(async () => {
  const gates = new FeatureGates();
  gates.set(["CBORServingAndStorage=true"]);
  api = await startTestApiserver({ gates });
});
afterAll(async () => {
  await api?.close();
});

describe("a large CRD", () => {
  it("is accepted (schema of thousands of lines, dozens of CEL rules) and serves objects", async () => {
    const crd = largeCrd();
    expect(JSON.stringify(crd, null, 2).split("\n").length).toBeGreaterThan(2000);
    const res = await api.admin.post(crdPath(api.profile), crd);
    expect(res.status, res.text.slice(0, 500)).toBe(201);
    await waitServed(api.admin, base);
    let deep: Obj = { field0: "leaf", count0: 1, items: [{ name: "n" }] };
    for (let d = 0; d < 12; d++) deep = { field0: `d${d}`, size0: d % 2 === 0 ? 5 : "5Gi", child: deep };
    const created = await api.admin.post(base, { apiVersion: `${CRD_GROUP}/v1`, kind: "Cluster", metadata: { name: "big" }, spec: deep });
    expect(created.status, created.text).toBe(201);
    let leaf = created.json<{ spec: Obj }>().spec;
    for (let d = 0; d < 12; d++) leaf = leaf.child as Obj;
    expect(leaf.items).toEqual([{ name: "n", zone: "a" }]);
    let bad: Obj = { count0: 5000 };
    for (let d = 0; d < 6; d++) bad = { child: bad };
    const refused = await api.admin.post(base, { apiVersion: `${CRD_GROUP}/v1`, kind: "Cluster", metadata: { name: "bad" }, spec: bad });
    expect(refused.status).toBe(422);
    expect(refused.json<{ message: string }>().message).toContain("spec.child.child.child.child.child.child: Invalid value: \"object\": count0 too large at depth 6");
  });

  it("filters by a selectable field and refuses other fields", async () => {
    await api.admin.post(base, { apiVersion: `${CRD_GROUP}/v1`, kind: "Cluster", metadata: { name: "sel" }, spec: { field0: "pick-me" } });
    const list = await api.admin.get(`${base}?fieldSelector=spec.field0%3Dpick-me`);
    expect(list.status, list.text).toBe(200);
    expect(list.json<{ items: Array<{ metadata: { name: string } }> }>().items.map((i) => i.metadata.name)).toEqual(["sel"]);
    const other = await api.admin.get(`${base}?fieldSelector=spec.field1%3Dx`);
    expect(other.status).toBe(400);
    expect(other.json<{ message: string }>().message).toContain('field label not supported: spec.field1');
  });

  it("reads and writes YAML and CBOR", async () => {
    const yaml = `apiVersion: ${CRD_GROUP}/v1\nkind: Cluster\nmetadata:\n  name: yml\nspec:\n  field0: from-yaml\n`;
    const y = await api.admin.request("POST", base, { raw: yaml, headers: { "content-type": "application/yaml", accept: "application/yaml" } });
    expect(y.status, y.text).toBe(201);
    expect(y.text).toContain("field0: from-yaml");
    const c = await api.admin.request("POST", base, {
      raw: Buffer.from(encodeCbor({ apiVersion: `${CRD_GROUP}/v1`, kind: "Cluster", metadata: { name: "cbor" }, spec: { field0: "from-cbor" } })),
      headers: { "content-type": "application/cbor", accept: "application/cbor" },
    });
    expect(c.status, c.text).toBe(201);
    expect(c.headers["content-type"]).toBe("application/cbor");
    expect(decodeCbor(c.body)).toMatchObject({ kind: "Cluster", spec: { field0: "from-cbor" } });
  });
});
