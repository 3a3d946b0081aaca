/**
 * Writes that create an absent object are authorized for `create` too, over HTTPS with
 * RBAC: a server-side apply of a new object needs `patch` and `create`; a PUT that
 * creates (a kind that allows create on update, Events) needs `update` and `create`.
 * The refusal is 403 Forbidden `<resource> "<name>" is forbidden: <reason>` and nothing
 * is stored; the same user may still apply to or replace an existing object. As on the
 * platform the check comes after mutating admission and validation, before validating
 * admission: an invalid object that would be created is 422 even for a user who may not create.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, eventually, profile, startAuthzServer, type AuthzServer } from "../../services/apiserver/authz/testing/harness.ts";
import type { KeyPairPem } from "../../services/apiserver/server/certs.ts";

const rbac = profile.group("rbac");
const NS = "ssa-team";
const cms = `/api/v1/namespaces/${NS}/configmaps`;
const events = `/api/v1/namespaces/${NS}/events`;
let s: AuthzServer;
let admin: KeyPairPem;

const apply = (who: KeyPairPem, name: string, value: string) =>
  call(s.url, s.ca.certPem, {
    method: "PATCH",
    path: `${cms}/${name}?fieldManager=tester`,
    client: who,
    contentType: "application/apply-patch+yaml",
    body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { k: value } },
  });
const event = (name: string, message: string, resourceVersion?: string) => ({
  apiVersion: "v1",
  kind: "Event",
  metadata: { name, namespace: NS, ...(resourceVersion ? { resourceVersion } : {}) },
  involvedObject: { kind: "Pod", name: "p", namespace: NS },
  reason: "Tested",
  message,
  type: "Normal",
});

async function grant(user: string, rules: Array<{ resources: string[]; verbs: string[] }>): Promise<void> {
  const role = await s.call(admin, "POST", `/apis/${rbac}/v1/namespaces/${NS}/roles`, {
    apiVersion: `${rbac}/v1`,
    kind: "Role",
    metadata: { name: user },
    rules: rules.map((r) => ({ apiGroups: [""], ...r })),
  });
  expect(role.status, role.text).toBe(201);
  const binding = await s.call(admin, "POST", `/apis/${rbac}/v1/namespaces/${NS}/rolebindings`, {
    apiVersion: `${rbac}/v1`,
    kind: "RoleBinding",
    metadata: { name: user },
    roleRef: { apiGroup: rbac, kind: "Role", name: user },
    subjects: [{ apiGroup: rbac, kind: "User", name: user }],
  });
  expect(binding.status, binding.text).toBe(201);
}

beforeAll(async () => {
  s = await startAuthzServer({ modes: ["RBAC"] });
  admin = await s.as("admin", ["system:masters"]);
  expect((await s.call(admin, "POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } })).status).toBe(201);
  await grant("patcher", [
    { resources: ["configmaps"], verbs: ["get", "patch"] },
    { resources: ["events"], verbs: ["get", "update"] },
  ]);
  await grant("maker", [
    { resources: ["configmaps"], verbs: ["get", "patch", "create"] },
    { resources: ["events"], verbs: ["get", "update", "create"] },
  ]);
});
afterAll(async () => {
  await s?.close();
});

describe("create on update needs create permission", () => {
  it("server-side apply of a new object: patch alone is 403, patch and create is 201", async () => {
    const patcher = await s.as("patcher");
    const maker = await s.as("maker");
    await eventually(async () => (await s.call(maker, "GET", cms)).status === 403 && (await s.call(maker, "GET", `${cms}/none`)).status === 404);

    const refused = await apply(patcher, "by-patcher", "one");
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body).toMatchObject({ kind: "Status", status: "Failure", reason: "Forbidden", code: 403, details: { name: "by-patcher", kind: "configmaps" } });
    expect(refused.body.message).toBe('configmaps "by-patcher" is forbidden: ');
    expect((await s.call(admin, "GET", `${cms}/by-patcher`)).status).toBe(404);

    const created = await apply(maker, "by-maker", "one");
    expect(created.status, created.text).toBe(201);

    // an apply that updates an existing object needs patch only
    const updated = await apply(patcher, "by-maker", "two");
    expect(updated.status, updated.text).toBe(200);
    expect((updated.body as { data?: { k?: string } }).data?.k).toBe("two");
  });

  it("a PUT that creates (Events allow it): update alone is 403, update and create is 201", async () => {
    const patcher = await s.as("patcher");
    const maker = await s.as("maker");

    const refused = await s.call(patcher, "PUT", `${events}/put-by-patcher`, event("put-by-patcher", "first"));
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body).toMatchObject({ reason: "Forbidden", code: 403, details: { name: "put-by-patcher", kind: "events" } });
    expect(refused.body.message).toBe('events "put-by-patcher" is forbidden: ');
    expect((await s.call(admin, "GET", `${events}/put-by-patcher`)).status).toBe(404);

    const created = await s.call(maker, "PUT", `${events}/put-by-maker`, event("put-by-maker", "first"));
    expect(created.status, created.text).toBe(201);
    const rv = (created.body as { metadata: { resourceVersion: string } }).metadata.resourceVersion;

    const replaced = await s.call(patcher, "PUT", `${events}/put-by-maker`, event("put-by-maker", "second", rv));
    expect(replaced.status, replaced.text).toBe(200);
  });

  it("the create check comes after validation: an invalid object that would be created is 422, not 403", async () => {
    const patcher = await s.as("patcher");
    const invalidApply = await call(s.url, s.ca.certPem, {
      method: "PATCH",
      path: `${cms}/invalid-by-patcher?fieldManager=tester`,
      client: patcher,
      contentType: "application/apply-patch+yaml",
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "invalid-by-patcher" }, data: { "bad key!": "v" } },
    });
    expect(invalidApply.status, invalidApply.text).toBe(422);
    expect(invalidApply.body).toMatchObject({ reason: "Invalid", details: { causes: [expect.objectContaining({ field: "data[bad key!]" })] } });
    expect((await s.call(admin, "GET", `${cms}/invalid-by-patcher`)).status).toBe(404);
  });
});
