import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

let api: TestApiserver;
beforeAll(async () => {
  api = await startTestApiserver();
});
afterAll(async () => {
  await api?.close();
});

const path = "/api/v1/namespaces/default/configmaps";
const apply = (name: string, body: unknown, manager: string | undefined, extra = "") =>
  api.admin.request("PATCH", `${path}/${name}?${manager ? `fieldManager=${manager}` : ""}${extra}`, { raw: JSON.stringify(body), headers: { "content-type": "application/apply-patch+yaml" } });
type CM = { data?: Record<string, string>; metadata: { managedFields?: Array<{ manager: string; operation: string; fieldsType: string; fieldsV1: Record<string, unknown> }> } };

describe("server-side apply over HTTPS", () => {
  it("creates on first apply and records the applier's fields", async () => {
    const res = await apply("ssa", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "ssa" }, data: { a: "1", b: "2" } }, "alice");
    expect(res.status, res.text).toBe(201);
    const cm = res.json<CM>();
    expect(cm.metadata.managedFields).toHaveLength(1);
    expect(cm.metadata.managedFields?.[0]).toMatchObject({ manager: "alice", operation: "Apply", fieldsType: "FieldsV1", fieldsV1: { "f:data": { "f:a": {}, "f:b": {} } } });
  });

  it("conflicts with another manager's value unless forced, and shares ownership of equal values", async () => {
    const conflict = await apply("ssa", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "ssa" }, data: { a: "changed" } }, "bob");
    expect(conflict.status).toBe(409);
    const status = conflict.json<{ reason: string; message: string; details: { causes: Array<{ field: string }> } }>();
    expect(status.reason).toBe("Conflict");
    expect(status.message).toContain('conflict with "alice"');
    expect(status.details.causes.map((c) => c.field)).toEqual([".data.a"]);
    const shared = await apply("ssa", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "ssa" }, data: { b: "2" } }, "bob");
    expect(shared.status, shared.text).toBe(200);
    const forced = await apply("ssa", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "ssa" }, data: { a: "forced", b: "2" } }, "bob", "&force=true");
    expect(forced.status, forced.text).toBe(200);
    expect(forced.json<CM>().data?.a).toBe("forced");
  });

  it("removes fields a manager drops when nobody else owns them", async () => {
    const res = await apply("ssa", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "ssa" }, data: {} }, "bob");
    expect(res.status, res.text).toBe(200);
    // alice no longer owns a (forced away), b is still hers: a goes, b stays.
    expect(res.json<CM>().data).toEqual({ b: "2" });
  });

  it("transfers ownership on update and resets managedFields with one empty entry", async () => {
    const upd = await api.admin.patch(`${path}/ssa?fieldManager=editor`, { data: { b: "3" } }, "application/merge-patch+json");
    expect(upd.status).toBe(200);
    const managers = upd.json<CM>().metadata.managedFields?.map((m) => `${m.manager}/${m.operation}`) ?? [];
    expect(managers).toContain("editor/Update");
    const reset = await api.admin.patch(`${path}/ssa`, { metadata: { managedFields: [{}] } }, "application/merge-patch+json");
    expect(reset.status).toBe(200);
    expect(reset.json<CM>().metadata.managedFields ?? []).toHaveLength(0);
  });

  it("reads the older managedFields form with key fields and writes it back as FieldsV1", async () => {
    expect((await api.admin.post(path, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "legacy" }, data: { a: "1" } })).status).toBe(201);
    const older = { manager: "old-tool", operation: "Update", apiVersion: "v1", time: "2019-06-01T00:00:00Z", fields: { "f:data": { "f:a": {} } } };
    const upd = await api.admin.patch(`${path}/legacy?fieldManager=editor`, { metadata: { managedFields: [older] }, data: { b: "2" } }, "application/merge-patch+json");
    expect(upd.status, upd.text).toBe(200);
    const entries = upd.json<CM>().metadata.managedFields ?? [];
    const old = entries.find((m) => m.manager === "old-tool") as Record<string, unknown> | undefined;
    expect(old).toMatchObject({ operation: "Update", apiVersion: "v1", fieldsType: "FieldsV1", fieldsV1: { "f:data": { "f:a": {} } } });
    expect(old).not.toHaveProperty("fields");
    // The ownership it carries is real: an applier changing data.a conflicts with old-tool.
    const conflict = await apply("legacy", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "legacy" }, data: { a: "9" } }, "applier");
    expect(conflict.status, conflict.text).toBe(409);
    expect(conflict.json<{ message: string }>().message).toBe('Apply failed with 1 conflict: conflict with "old-tool" using v1: .data.a');
  });

  it("requires fieldManager and rejects managedFields in the body and non-object bodies", async () => {
    expect((await apply("ssa", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "ssa" } }, undefined)).status).toBe(422);
    const withMf = await apply("ssa", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "ssa", managedFields: [{ manager: "x" }] } }, "alice");
    expect(withMf.status).toBe(400);
    const notObject = await api.admin.request("PATCH", `${path}/ssa?fieldManager=a`, { raw: "- 1\n- 2\n", headers: { "content-type": "application/apply-patch+yaml" } });
    expect(notObject.status).toBe(400);
  });

  it("infers the update manager from the User-Agent", async () => {
    const res = await api.admin.request("POST", path, { raw: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "ua" }, data: { x: "y" } }), headers: { "content-type": "application/json", "user-agent": "mytool/1.0 (linux)" } });
    expect(res.json<CM>().metadata.managedFields?.[0]).toMatchObject({ manager: "mytool", operation: "Update" });
  });
});
