/**
 * CSIStorageCapacity (storage/v1) over HTTPS in the kubernetes profile: served
 * namespaced with the platform's table columns, protobuf; storageClassName must be a
 * DNS subdomain, capacity and maximumVolumeSize may not be negative, nodeTopology and
 * storageClassName are immutable, capacity may change. VolumeAttributesClass (storage/v1,
 * cluster-scoped, GA in 1.34) on the same replica: table columns, protobuf, the
 * platform's create checks and Forbidden updates of driverName and parameters.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

let api: TestApiserver;
let base = "";
beforeAll(async () => {
  api = await startTestApiserver({ profileId: "kubernetes" });
  base = `/apis/${api.profile.group("storage")}/v1/namespaces/default/csistoragecapacities`;
});
afterAll(async () => {
  await api?.close();
});

type Obj = Record<string, unknown>;
const capacity = (name: string, fields: Obj): Obj => ({ apiVersion: api.profile.apiVersion("storage", "v1"), kind: "CSIStorageCapacity", metadata: { name }, storageClassName: "fast", ...fields });

describe("CSIStorageCapacity", () => {
  it("is created, listed as a table with StorageClassName and Capacity, and updated in capacity only", async () => {
    const created = await api.admin.post(`${base}?fieldValidation=Strict`, capacity("a", { nodeTopology: { matchLabels: { zone: "a" } }, capacity: "100Gi", maximumVolumeSize: "1Ti" }));
    expect(created.status, created.text).toBe(201);
    expect((await api.admin.post(base, capacity("b", {}))).status).toBe(201);
    const table = await api.admin.get(base, { accept: `application/json;as=Table;v=v1;g=${api.profile.group("meta")}` });
    const t = table.json<{ columnDefinitions: Array<{ name: string }>; rows: Array<{ cells: unknown[] }> }>();
    expect(t.columnDefinitions.map((c) => c.name)).toEqual(["Name", "StorageClassName", "Capacity"]);
    expect(t.rows.map((r) => r.cells)).toEqual([
      ["a", "fast", "100Gi"],
      ["b", "fast", "<unset>"],
    ]);
    const cur = created.json<Obj>();
    const grown = await api.admin.put(`${base}/a`, { ...cur, capacity: "200Gi" });
    expect(grown.status, grown.text).toBe(200);
    const moved = await api.admin.put(`${base}/a`, { ...grown.json<Obj>(), storageClassName: "slow", nodeTopology: { matchLabels: { zone: "b" } } });
    expect(moved.status).toBe(422);
    expect(moved.json<{ message: string }>().message).toContain('storageClassName: Invalid value: "slow": field is immutable');
    expect(moved.json<{ message: string }>().message).toContain("nodeTopology: Invalid value");
    const pb = await api.admin.get(`${base}/a`, { accept: api.profile.protobufMediaType });
    expect(pb.headers["content-type"]).toContain(api.profile.protobufMediaType);
  });

  it("refuses a class name that is not a DNS subdomain and negative sizes", async () => {
    const res = await api.admin.post(base, capacity("bad", { storageClassName: "Fast_SSD", capacity: "-1Gi", maximumVolumeSize: "-5" }));
    expect(res.status).toBe(422);
    const msg = res.json<{ message: string }>().message;
    expect(msg).toContain('storageClassName: Invalid value: "Fast_SSD": a lowercase RFC 1123 subdomain');
    expect(msg).toContain('capacity: Invalid value: "-1Gi": must be greater than or equal to 0');
    expect(msg).toContain('maximumVolumeSize: Invalid value: "-5": must be greater than or equal to 0');
  });
});

describe("VolumeAttributesClass", () => {
  const vacs = () => `/apis/${api.profile.group("storage")}/v1/volumeattributesclasses`;
  const vac = (name: string, fields: Obj): Obj => ({ apiVersion: api.profile.apiVersion("storage", "v1"), kind: "VolumeAttributesClass", metadata: { name }, ...fields });

  it("is served cluster-scoped: created strictly, listed as a table with DriverName, read as protobuf, short name vac in discovery", async () => {
    const created = await api.admin.post(`${vacs()}?fieldValidation=Strict`, vac("gold", { driverName: "pd.csi.example.com", parameters: { iops: "3000" } }));
    expect(created.status, created.text).toBe(201);
    const table = await api.admin.get(vacs(), { accept: `application/json;as=Table;v=v1;g=${api.profile.group("meta")}` });
    const t = table.json<{ columnDefinitions: Array<{ name: string }>; rows: Array<{ cells: unknown[] }> }>();
    expect(t.columnDefinitions.map((c) => c.name)).toEqual(["Name", "DriverName", "Age"]);
    expect(t.rows.map((r) => r.cells.slice(0, 2))).toEqual([["gold", "pd.csi.example.com"]]);
    const pb = await api.admin.get(`${vacs()}/gold`, { accept: api.profile.protobufMediaType });
    expect(pb.headers["content-type"]).toContain(api.profile.protobufMediaType);
    const resources = (await api.admin.get(`/apis/${api.profile.group("storage")}/v1`)).json<{ resources: Array<{ name: string; namespaced: boolean; shortNames?: string[] }> }>().resources;
    expect(resources.find((r) => r.name === "volumeattributesclasses")).toMatchObject({ namespaced: false, shortNames: ["vac"] });
  });

  it("refuses a missing or bad driverName and empty parameters, and forbids changing driverName or parameters", async () => {
    const missing = await api.admin.post(vacs(), vac("none", {}));
    expect(missing.status).toBe(422);
    expect(missing.json<{ message: string }>().message).toContain("driverName: Required value");
    expect(missing.json<{ message: string }>().message).toContain("parameters: Required value: must contain at least one key/value pair");
    const bad = await api.admin.post(vacs(), vac("bad", { driverName: "not a driver!", parameters: { a: "1" } }));
    expect(bad.status).toBe(422);
    expect(bad.json<{ message: string }>().message).toContain('driverName: Invalid value: "not a driver!": name part must consist of alphanumeric characters');
    const cur = (await api.admin.get(`${vacs()}/gold`)).json<Obj>();
    const changed = await api.admin.put(`${vacs()}/gold`, { ...cur, driverName: "other.csi.example.com", parameters: { iops: "6000" } });
    expect(changed.status).toBe(422);
    const msg = changed.json<{ message: string }>().message;
    expect(msg).toContain("driverName: Forbidden: updates to driverName are forbidden.");
    expect(msg).toContain("parameters: Forbidden: updates to parameters are forbidden.");
    const labelled = await api.admin.put(`${vacs()}/gold`, { ...cur, metadata: { ...(cur.metadata as Obj), labels: { tier: "gold" } } });
    expect(labelled.status, labelled.text).toBe(200);
  });
});
