import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { CRD_GROUP, crdPath, cronTabCrd, waitServed } from "../support/crd-fixtures.ts";

let api: TestApiserver;
const base = `/apis/${CRD_GROUP}/v1`;
const ns = `${base}/namespaces/default/crontabs`;

beforeAll(async () => {
  api = await startTestApiserver();
  const res = await api.admin.post(crdPath(api.profile), cronTabCrd(api.profile));
  expect(res.status, res.text).toBe(201);
  await waitServed(api.admin, ns);
});
afterAll(async () => {
  await api?.close();
});

const tab = (name: string, spec: Record<string, unknown> = {}, labels: Record<string, string> = {}) => ({
  apiVersion: `${CRD_GROUP}/v1`,
  kind: "CronTab",
  metadata: { name, labels },
  spec: { cronSpec: "* * * * */5", ...spec },
});

describe("custom resource definitions", () => {
  it("gets NamesAccepted and Established conditions, accepted names and stored versions", async () => {
    const res = await api.admin.get(crdPath(api.profile, `crontabs.${CRD_GROUP}`));
    expect(res.status).toBe(200);
    const crd = res.json<{ status: { conditions: Array<Record<string, string>>; acceptedNames: Record<string, unknown>; storedVersions: string[] } }>();
    expect(crd.status.storedVersions).toEqual(["v1"]);
    expect(crd.status.acceptedNames).toMatchObject({ plural: "crontabs", singular: "crontab", kind: "CronTab", listKind: "CronTabList", shortNames: ["crx"], categories: ["all"] });
    const byType = Object.fromEntries(crd.status.conditions.map((c) => [c.type, c]));
    expect(byType.NamesAccepted).toMatchObject({ status: "True", reason: "NoConflicts", message: "no conflicts found" });
    expect(byType.Established).toMatchObject({ status: "True", reason: "InitialNamesAccepted", message: "the initial names have been accepted" });
  });

  it("refuses a CRD whose kind is already used in the group: NamesAccepted False, not served", async () => {
    const dup = cronTabCrd(api.profile, { plural: "othertabs", singular: "othertab" });
    const res = await api.admin.post(crdPath(api.profile), dup);
    expect(res.status, res.text).toBe(201);
    let conds: Array<Record<string, string>> = [];
    for (let i = 0; i < 100 && conds.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      const got = await api.admin.get(crdPath(api.profile, `othertabs.${CRD_GROUP}`));
      conds = got.json<{ status?: { conditions?: Array<Record<string, string>> } }>().status?.conditions ?? [];
    }
    const byType = Object.fromEntries(conds.map((c) => [c.type, c]));
    expect(byType.NamesAccepted).toMatchObject({ status: "False", reason: "KindConflict", message: '"CronTab" is already in use' });
    expect(byType.Established).toMatchObject({ status: "False", reason: "NotAccepted" });
    expect((await api.admin.get(`${base}/namespaces/default/othertabs`)).status).toBe(404);
  });

  it("refuses invalid CRDs with 422 and the platform's messages", async () => {
    const crd = cronTabCrd(api.profile, { plural: "badtabs", kind: "BadTab" }) as { spec: Record<string, unknown> };
    const noScope = structuredClone(crd);
    delete noScope.spec.scope;
    const r1 = await api.admin.post(crdPath(api.profile), noScope);
    expect(r1.status).toBe(422);
    expect(r1.json<{ message: string }>().message).toContain("spec.scope: Required value");
    const preserve = structuredClone(crd);
    preserve.spec.preserveUnknownFields = true;
    const r2 = await api.admin.post(crdPath(api.profile), preserve);
    expect(r2.status).toBe(422);
    expect(r2.json<{ message: string }>().message).toContain("spec.preserveUnknownFields: Invalid value: true: cannot set to true");
    const twoStorage = structuredClone(crd) as { spec: { versions: Array<Record<string, unknown>> } };
    twoStorage.spec.versions.push({ ...twoStorage.spec.versions[0], name: "v2" });
    const r3 = await api.admin.post(crdPath(api.profile), twoStorage);
    expect(r3.status).toBe(422);
    expect(r3.json<{ message: string }>().message).toContain("must have exactly one version marked as storage version");
    const nonStructural = structuredClone(crd) as { spec: { versions: Array<{ schema: { openAPIV3Schema: Record<string, unknown> } }> } };
    nonStructural.spec.versions[0].schema.openAPIV3Schema = { type: "object", properties: { spec: { properties: { a: { type: "string" } } } } };
    const r4 = await api.admin.post(crdPath(api.profile), nonStructural);
    expect(r4.status).toBe(422);
    expect(r4.json<{ message: string }>().message).toContain("spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value");
    const badRule = structuredClone(crd) as { spec: { versions: Array<{ schema: { openAPIV3Schema: { properties: { spec: Record<string, unknown> } } } }> } };
    badRule.spec.versions[0].schema.openAPIV3Schema.properties.spec[api.profile.ext.validations] = [{ rule: "self.replicas <" }];
    const r5 = await api.admin.post(crdPath(api.profile), badRule);
    expect(r5.status).toBe(422);
    expect(r5.json<{ message: string }>().message).toContain(`spec.versions[0].schema.openAPIV3Schema.properties[spec].${api.profile.ext.validations}[0].rule: Invalid value`);
    const badColumn = structuredClone(crd) as { spec: { versions: Array<{ additionalPrinterColumns: Array<Record<string, unknown>> }> } };
    badColumn.spec.versions[0].additionalPrinterColumns[0].jsonPath = "spec.cronSpec";
    const r6 = await api.admin.post(crdPath(api.profile), badColumn);
    expect(r6.status).toBe(422);
    expect(r6.json<{ message: string }>().message).toContain("additionalPrinterColumns[0].jsonPath: Invalid value: \"spec.cronSpec\": must be a simple json path starting with .");
    expect((await api.admin.get(crdPath(api.profile, `badtabs.${CRD_GROUP}`))).status).toBe(404);
  });
});

describe("custom resources", () => {
  it("creates with defaults and generation, gets, updates, lists by label and deletes", async () => {
    const created = await api.admin.post(ns, tab("one", { replicas: 2 }, { app: "a" }));
    expect(created.status, created.text).toBe(201);
    const obj = created.json<{ metadata: { generation: number; resourceVersion: string; uid: string }; spec: Record<string, unknown> }>();
    expect(obj.metadata.generation).toBe(1);
    expect(obj.spec).toMatchObject({ image: "busybox", replicas: 2, maxReplicas: 10 });
    expect((await api.admin.post(ns, tab("two", {}, { app: "b" }))).status).toBe(201);
    const updated = await api.admin.put(`${ns}/one`, { ...tab("one", { replicas: 3 }, { app: "a" }), metadata: { name: "one", labels: { app: "a" }, resourceVersion: obj.metadata.resourceVersion } });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.json<{ metadata: { generation: number } }>().metadata.generation).toBe(2);
    const list = await api.admin.get(`${ns}?labelSelector=app%3Da`);
    expect(list.status).toBe(200);
    const items = list.json<{ kind: string; apiVersion: string; items: Array<{ metadata: { name: string } }> }>();
    expect(items.kind).toBe("CronTabList");
    expect(items.apiVersion).toBe(`${CRD_GROUP}/v1`);
    expect(items.items.map((i) => i.metadata.name)).toEqual(["one"]);
    const byName = await api.admin.get(`${base}/crontabs?fieldSelector=metadata.name%3Dtwo`);
    expect(byName.json<{ items: Array<{ metadata: { name: string } }> }>().items.map((i) => i.metadata.name)).toEqual(["two"]);
    const del = await api.admin.delete(`${ns}/two`);
    expect(del.status).toBe(200);
    const gone = await api.admin.get(`${ns}/two`);
    expect(gone.status).toBe(404);
    expect(gone.json()).toMatchObject({ reason: "NotFound", message: `crontabs.${CRD_GROUP} "two" not found` });
  });

  it("prunes unknown fields (Warn warns, Strict refuses), keeps preserved ones and validates the schema and CEL rules", async () => {
    const withUnknown = tab("pruned", { unknownField: 1, extra: { anything: { goes: true } } });
    const res = await api.admin.post(ns, withUnknown);
    expect(res.status, res.text).toBe(201);
    expect(String(res.headers.warning)).toContain('299 - "unknown field \\"spec.unknownField\\""');
    const spec = res.json<{ spec: Record<string, unknown> }>().spec;
    expect(spec.unknownField).toBeUndefined();
    expect(spec.extra).toEqual({ anything: { goes: true } });
    const strict = await api.admin.post(`${ns}?fieldValidation=Strict`, tab("strict", { unknownField: 1 }));
    expect(strict.status).toBe(400);
    expect(strict.json<{ message: string }>().message).toBe('strict decoding error: unknown field "spec.unknownField"');
    const bad = await api.admin.post(ns, tab("bad", { replicas: 200, mode: "Medium", cronSpec: "nope", port: true }));
    expect(bad.status).toBe(422);
    const body = bad.json<{ message: string; reason: string; details: { kind: string; group: string } }>();
    expect(body.reason).toBe("Invalid");
    expect(body.details).toMatchObject({ kind: "CronTab", group: CRD_GROUP });
    expect(body.message).toContain('CronTab.stable.example.com "bad" is invalid');
    expect(body.message).toContain("spec.replicas: Invalid value: 200: spec.replicas in body should be less than or equal to 100");
    expect(body.message).toContain('spec.mode: Unsupported value: "Medium": supported values: "Fast", "Slow"');
    expect(body.message).toContain("spec.cronSpec: Invalid value: \"nope\": spec.cronSpec in body should match");
    const cel = await api.admin.post(ns, tab("cel", { replicas: 20, maxReplicas: 5 }));
    expect(cel.status).toBe(422);
    expect(cel.json<{ message: string }>().message).toContain('spec.replicas: Invalid value: "object": replicas must not exceed maxReplicas');
  });

  it("splits status into its subresource and serves scale", async () => {
    const created = await api.admin.post(ns, { ...tab("st", { replicas: 1 }), status: { replicas: 9 } });
    expect(created.status).toBe(201);
    expect(created.json<{ status?: unknown }>().status).toBeUndefined();
    const cur = created.json<{ metadata: Record<string, unknown> }>();
    const st = await api.admin.put(`${ns}/st/status`, { ...tab("st", { replicas: 1 }), metadata: cur.metadata, status: { replicas: 1, selector: "app=st" } });
    expect(st.status, st.text).toBe(200);
    expect(st.json<{ status: unknown; metadata: { generation: number } }>()).toMatchObject({ status: { replicas: 1 }, metadata: { generation: 1 } });
    const scale = await api.admin.get(`${ns}/st/scale`);
    expect(scale.status, scale.text).toBe(200);
    expect(scale.json()).toMatchObject({ kind: "Scale", spec: { replicas: 1 }, status: { replicas: 1, selector: "app=st" } });
    const patched = await api.admin.patch(`${ns}/st/scale`, { spec: { replicas: 4 } }, "application/merge-patch+json");
    expect(patched.status, patched.text).toBe(200);
    expect((await api.admin.get(`${ns}/st`)).json<{ spec: { replicas: number } }>().spec.replicas).toBe(4);
  });

  it("answers Table with the printer columns, refuses protobuf (406) and strategic merge patch (415)", async () => {
    await api.admin.post(ns, tab("tbl", { replicas: 5, maxReplicas: 5 }));
    const table = await api.admin.get(`${ns}/tbl`, { accept: `application/json;as=Table;v=v1;g=${api.profile.metaGroup}` });
    expect(table.status, table.text).toBe(200);
    const t = table.json<{ kind: string; columnDefinitions: Array<{ name: string; type: string }>; rows: Array<{ cells: unknown[] }> }>();
    expect(t.kind).toBe("Table");
    expect(t.columnDefinitions.map((c) => c.name)).toEqual(["Name", "Spec", "Replicas"]);
    expect(t.rows[0].cells).toEqual(["tbl", "* * * * */5", 5]);
    const proto = await api.admin.get(`${ns}/tbl`, { accept: api.profile.protobufMediaType });
    expect(proto.status).toBe(406);
    const smp = await api.admin.patch(`${ns}/tbl`, { spec: { replicas: 1 } }, "application/strategic-merge-patch+json");
    expect(smp.status).toBe(415);
    expect(smp.json<{ reason: string }>().reason).toBe("UnsupportedMediaType");
  });

  it("appears in discovery (plain and aggregated) and OpenAPI v2/v3", async () => {
    const list = await api.admin.get(base);
    expect(list.status).toBe(200);
    const resources = list.json<{ resources: Array<Record<string, unknown>> }>().resources;
    expect(resources.find((r) => r.name === "crontabs")).toMatchObject({ kind: "CronTab", namespaced: true, singularName: "crontab", shortNames: ["crx"], categories: ["all"] });
    expect(resources.map((r) => r.name)).toEqual(expect.arrayContaining(["crontabs/status", "crontabs/scale"]));
    const groups = await api.admin.get("/apis");
    expect(groups.json<{ groups: Array<{ name: string }> }>().groups.map((g) => g.name)).toContain(CRD_GROUP);
    expect((await api.admin.get(`/apis/${CRD_GROUP}`)).json()).toMatchObject({ kind: "APIGroup", name: CRD_GROUP, preferredVersion: { version: "v1" } });
    const agg = await api.admin.get("/apis", { accept: `application/json;g=${api.profile.group("apidiscovery")};v=v2;as=APIGroupDiscoveryList` });
    expect(agg.status).toBe(200);
    const group = agg.json<{ items: Array<{ metadata: { name: string }; versions: Array<{ resources: Array<Record<string, unknown>> }> }> }>().items.find((g) => g.metadata.name === CRD_GROUP);
    expect(group?.versions[0].resources[0]).toMatchObject({ resource: "crontabs", scope: "Namespaced", responseKind: { group: CRD_GROUP, version: "v1", kind: "CronTab" } });
    const v3index = await api.admin.get("/openapi/v3");
    expect(Object.keys(v3index.json<{ paths: Record<string, unknown> }>().paths)).toContain(`apis/${CRD_GROUP}/v1`);
    const v3 = await api.admin.get(`/openapi/v3/apis/${CRD_GROUP}/v1`);
    expect(v3.status).toBe(200);
    const schemas = v3.json<{ components: { schemas: Record<string, { properties?: Record<string, unknown> }> } }>().components.schemas;
    expect(schemas["com.example.stable.v1.CronTab"]?.properties).toHaveProperty("spec");
    const v2 = await api.admin.get("/openapi/v2");
    expect(Object.keys(v2.json<{ definitions: Record<string, unknown> }>().definitions)).toContain("com.example.stable.v1.CronTab");
  });

  it("lists in chunks and honours dry run", async () => {
    for (const n of ["c1", "c2", "c3"]) expect((await api.admin.post(ns, tab(`chunk-${n}`, {}, { chunk: "yes" }))).status).toBe(201);
    const first = await api.admin.get(`${ns}?labelSelector=chunk%3Dyes&limit=2`);
    const page = first.json<{ items: Array<{ metadata: { name: string } }>; metadata: { continue?: string } }>();
    expect(page.items.map((i) => i.metadata.name)).toEqual(["chunk-c1", "chunk-c2"]);
    expect(page.metadata.continue).toBeTruthy();
    const rest = await api.admin.get(`${ns}?labelSelector=chunk%3Dyes&limit=2&continue=${encodeURIComponent(page.metadata.continue ?? "")}`);
    expect(rest.json<{ items: Array<{ metadata: { name: string } }> }>().items.map((i) => i.metadata.name)).toEqual(["chunk-c3"]);
    const dry = await api.admin.post(`${ns}?dryRun=All`, tab("dry"));
    expect(dry.status, dry.text).toBe(201);
    expect(dry.json<{ spec: { image: string } }>().spec.image).toBe("busybox");
    expect((await api.admin.get(`${ns}/dry`)).status).toBe(404);
  });

  it("watches custom resources", async () => {
    const list = await api.admin.get(ns);
    const rv = list.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
    const w = api.admin.watch(`${ns}?watch=true&resourceVersion=${rv}`);
    try {
      await api.admin.post(ns, tab("watched"));
      const [ev] = await w.waitFor(1);
      expect(ev).toMatchObject({ type: "ADDED", object: { kind: "CronTab", metadata: { name: "watched" } } });
    } finally {
      w.stop();
    }
  });
});
