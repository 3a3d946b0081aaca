import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

let api: TestApiserver;
let tableAccept: string;
beforeAll(async () => {
  api = await startTestApiserver();
  tableAccept = `application/json;as=Table;g=${api.profile.metaGroup};v=v1, application/json`;
});
afterAll(async () => {
  await api?.close();
});

type Table = { kind: string; apiVersion: string; columnDefinitions: Array<{ name: string; type: string; priority: number }>; rows: Array<{ cells: unknown[]; object: { kind?: string; metadata: { name: string } } }> };

describe("Table responses", () => {
  it("render default columns for kinds without their own", async () => {
    await api.admin.post("/api/v1/namespaces/default/serviceaccounts", { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "t-sa" } });
    await api.admin.post("/apis/coordination/v1/namespaces/default/leases".replace("coordination", api.profile.group("coordination")), { apiVersion: api.profile.apiVersion("coordination", "v1"), kind: "Lease", metadata: { name: "t-lease" }, spec: {} });
    const res = await api.admin.get(`/apis/${api.profile.group("coordination")}/v1/namespaces/default/leases`, { accept: tableAccept });
    expect(res.status, res.text).toBe(200);
    const t = res.json<Table>();
    expect(t.kind).toBe("Table");
    expect(t.apiVersion).toBe(`${api.profile.metaGroup}/v1`);
    expect(t.columnDefinitions[0]).toMatchObject({ name: "Name", type: "string" });
    expect(t.rows[0].cells[0]).toBe("t-lease");
    expect(t.rows[0].object.kind).toBe("PartialObjectMetadata");
  });

  it("render the platform's columns for pods and deployments, with includeObject", async () => {
    await api.admin.post("/apis/apps/v1/namespaces/default/deployments", {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "t-dep" },
      spec: { selector: { matchLabels: { a: "b" } }, template: { metadata: { labels: { a: "b" } }, spec: { containers: [{ name: "c", image: "nginx" }] } } },
    });
    const res = await api.admin.get("/apis/apps/v1/namespaces/default/deployments/t-dep?includeObject=Object", { accept: tableAccept });
    const t = res.json<Table>();
    expect(t.columnDefinitions.filter((c) => c.priority === 0).map((c) => c.name)).toEqual(["Name", "Ready", "Up-to-date", "Available", "Age"]);
    expect(t.rows[0].cells.slice(0, 4)).toEqual(["t-dep", "0/1", 0, 0]);
    expect(t.rows[0].object.kind).toBe("Deployment");
    const none = (await api.admin.get("/apis/apps/v1/namespaces/default/deployments?includeObject=None", { accept: tableAccept })).json<Table>();
    expect(none.rows[0].object ?? null).toBeNull();
    await api.admin.post("/api/v1/namespaces/default/pods", { apiVersion: "v1", kind: "Pod", metadata: { name: "t-pod" }, spec: { containers: [{ name: "c", image: "nginx" }] } });
    const pods = (await api.admin.get("/api/v1/namespaces/default/pods", { accept: tableAccept })).json<Table>();
    expect(pods.columnDefinitions.filter((c) => c.priority === 0).map((c) => c.name)).toEqual(["Name", "Ready", "Status", "Restarts", "Age"]);
    expect(pods.rows[0].cells.slice(0, 3)).toEqual(["t-pod", "0/1", "Pending"]);
  });

  it("fall back to JSON when the Accept list allows it, and 406 when nothing fits", async () => {
    const scale = await api.admin.get("/apis/apps/v1/namespaces/default/deployments/t-dep/scale", { accept: tableAccept });
    expect(scale.status).toBe(200);
    expect(scale.json<{ kind: string }>().kind).toBe("Scale");
    const nothing = await api.admin.get("/api/v1/namespaces/default/serviceaccounts", { accept: "application/xml" });
    expect(nothing.status).toBe(406);
    expect(nothing.json<{ reason: string }>().reason).toBe("NotAcceptable");
  });

  it("stream watch events as one-row tables", async () => {
    const res = await api.admin.request("GET", "/api/v1/namespaces/default/serviceaccounts?watch=1&timeoutSeconds=1", { headers: { accept: tableAccept } });
    const first = JSON.parse(res.text.split("\n")[0]) as { type: string; object: Table };
    expect(first.type).toBe("ADDED");
    expect(first.object.kind).toBe("Table");
    expect(first.object.rows).toHaveLength(1);
    expect(first.object.columnDefinitions.length).toBeGreaterThan(0);
  });
});
