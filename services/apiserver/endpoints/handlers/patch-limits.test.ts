/**
 * PATCH under hostile input, through HTTPS against a real replica: the amplifying
 * JSON patch, too many operations, identity changes, and malformed strategic merge
 * patches whose errors must not echo the object's values.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../../../../test/support/apiserver.ts";
import { HttpsClient } from "../../../../test/support/https-client.ts";

let api: TestApiserver;
const logged: string[] = [];
beforeAll(async () => {
  api = await startTestApiserver({ log: (level, msg, fields) => logged.push(`${level} ${msg} ${JSON.stringify(fields)}`) });
});
afterAll(async () => {
  await api?.close();
});

const cms = "/api/v1/namespaces/default/configmaps";
const JSON_PATCH = "application/json-patch+json";

async function createConfigMap(name: string, data: Record<string, string> = { a: "1" }) {
  const res = await api.admin.post(cms, { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data });
  expect(res.status, res.text).toBe(201);
  return res.json<{ metadata: { uid: string; resourceVersion: string; managedFields?: unknown[] } }>();
}

/** One `add` of a 1 KiB map, then 40 `copy` operations of the map into itself: 2^40 KiB if unbounded. */
function amplifyingPatch(): unknown[] {
  const seed: Record<string, string> = {};
  for (let i = 0; i < 16; i++) seed[`k${i}`] = "x".repeat(60);
  const ops: unknown[] = [{ op: "add", path: "/metadata/annotations", value: seed }];
  for (let i = 0; i < 40; i++) ops.push({ op: "copy", from: "/metadata/annotations", path: `/metadata/annotations/c${i}` });
  return ops;
}

describe("JSON patch bounds", () => {
  it("refuses the amplifying copy patch with 422 while another client's /livez is answered", async () => {
    await createConfigMap("amplify");
    const body = JSON.stringify(amplifyingPatch());
    expect(body.length).toBeLessThan(5000);
    const bystander = new HttpsClient(api.admin.baseUrl, { ca: api.ca });
    try {
      const patching = api.admin.patch(`${cms}/amplify`, body, JSON_PATCH);
      const livez = await bystander.get("/livez");
      expect(livez.status).toBe(200);
      const res = await patching;
      expect(res.status, res.text).toBe(422);
      expect(res.json()).toMatchObject({ kind: "Status", code: 422, reason: "Invalid" });
      expect(res.json<{ message: string }>().message).toMatch(/the accumulated size increase of copy is \d+, exceeding the limit 3145728/);
      const after = await api.admin.get(`${cms}/amplify`);
      expect(after.json<{ metadata: { annotations?: unknown } }>().metadata.annotations).toBeUndefined();
    } finally {
      bystander.close();
    }
  });

  it("accepts copies within the budget", async () => {
    await createConfigMap("copies", { a: "v" });
    const res = await api.admin.patch(
      `${cms}/copies`,
      [
        { op: "copy", from: "/data/a", path: "/data/b" },
        { op: "copy", from: "/data", path: "/metadata/labels" },
      ],
      JSON_PATCH,
    );
    expect(res.status, res.text).toBe(200);
    expect(res.json()).toMatchObject({ data: { a: "v", b: "v" }, metadata: { labels: { a: "v", b: "v" } } });
  });

  it("answers more than 10,000 operations with 413 and accepts exactly 10,000", async () => {
    await createConfigMap("many");
    const ops = (n: number) => Array.from({ length: n }, (_, i) => ({ op: "test", path: "/metadata/name", value: "many", i }));
    const tooMany = await api.admin.patch(`${cms}/many`, ops(10_001), JSON_PATCH);
    expect(tooMany.status, tooMany.text).toBe(413);
    expect(tooMany.json()).toMatchObject({
      kind: "Status",
      code: 413,
      reason: "RequestEntityTooLarge",
      message: "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001",
    });
    const limit = await api.admin.patch(`${cms}/many`, ops(10_000), JSON_PATCH);
    expect(limit.status, limit.text).toBe(200);
  });

  it("answers a failing operation with 422 and a missing path never as 500", async () => {
    await createConfigMap("failing");
    const res = await api.admin.patch(`${cms}/failing`, [{ op: "remove", path: "/data/missing" }], JSON_PATCH);
    expect(res.status, res.text).toBe(422);
    expect(res.json()).toMatchObject({ kind: "Status", reason: "Invalid" });
    const bad = await api.admin.patch(`${cms}/failing`, { op: "add" }, JSON_PATCH);
    expect(bad.status, bad.text).toBe(400);
    const proto = await api.admin.patch(`${cms}/failing`, [{ op: "add", path: "/data/__proto__", value: "x" }], JSON_PATCH);
    expect(proto.status, proto.text).toBe(200);
    expect(proto.json<{ data: Record<string, string> }>().data).toEqual({ a: "1", ["__proto__"]: "x" });
    const merged = await api.admin.patch(`${cms}/failing`, '{"data":{"__proto__":"y","b":"2"}}', "application/merge-patch+json");
    expect(merged.status, merged.text).toBe(200);
    expect(merged.json<{ data: Record<string, string> }>().data).toEqual({ a: "1", ["__proto__"]: "y", b: "2" });
  });
});

describe("identity of the patched object", () => {
  it("refuses a JSON patch that removes /metadata and keeps the object", async () => {
    const created = await createConfigMap("nometa");
    const res = await api.admin.patch(`${cms}/nometa`, [{ op: "remove", path: "/metadata" }], JSON_PATCH);
    expect(res.status, res.text).toBe(400);
    expect(res.json()).toMatchObject({ kind: "Status", code: 400, reason: "BadRequest", message: "the name of the object () does not match the name on the URL (nometa)" });
    const after = await api.admin.get(`${cms}/nometa`);
    expect(after.json<{ metadata: { resourceVersion: string; managedFields: unknown[] } }>().metadata).toMatchObject({
      resourceVersion: created.metadata.resourceVersion,
      managedFields: created.metadata.managedFields,
    });
  });

  it("answers a merge patch of metadata.uid with the uid precondition conflict", async () => {
    const created = await createConfigMap("uid");
    const res = await api.admin.patch(`${cms}/uid`, { metadata: { uid: "00000000-0000-0000-0000-000000000001" } }, "application/merge-patch+json");
    expect(res.status, res.text).toBe(409);
    expect(res.json()).toMatchObject({
      kind: "Status",
      code: 409,
      reason: "Conflict",
      message: `Operation cannot be fulfilled on configmaps "uid": Precondition failed: UID in precondition: 00000000-0000-0000-0000-000000000001, UID in object meta: ${created.metadata.uid}`,
    });
    const same = await api.admin.patch(`${cms}/uid`, { metadata: { uid: created.metadata.uid, labels: { ok: "1" } } }, "application/merge-patch+json");
    expect(same.status, same.text).toBe(200);
  });
});

describe("malformed strategic merge patches", () => {
  it("answers `$patch: explode` with 400 and neither the answer nor the log carries the Secret's values", async () => {
    const secrets = "/api/v1/namespaces/default/secrets";
    const created = await api.admin.post(secrets, { apiVersion: "v1", kind: "Secret", metadata: { name: "s" }, stringData: { password: "hunter2-very-secret" } });
    expect(created.status, created.text).toBe(201);
    const before = logged.length;
    const res = await api.admin.patch(`${secrets}/s`, { data: { $patch: "explode", password: "aHVudGVyMy1wYXRjaC12YWx1ZQ==" } }, "application/strategic-merge-patch+json");
    expect(res.status, res.text).toBe(400);
    expect(res.json()).toMatchObject({ kind: "Status", code: 400, reason: "BadRequest" });
    const news = logged.slice(before).join("\n") + res.text;
    for (const secret of ["hunter2", "aHVudGVy", "explode"]) expect(news).not.toContain(secret);
  });
});
