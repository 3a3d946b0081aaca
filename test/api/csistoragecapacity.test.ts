/**
 * CSIStorageCapacity (storage/v1) over HTTPS in the kubernetes profile: served
 * namespaced with the platform's table columns, protobuf; storageClassName must be a
 * DNS subdomain, capacity and maximumVolumeSize may not be negative, nodeTopology and
 * storageClassName are immutable, capacity may change.
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
