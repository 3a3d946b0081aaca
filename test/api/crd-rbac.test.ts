/**
 * RBAC on custom resources over HTTPS, exactly as on built-in ones: a Role naming
 * the CRD's group and plural grants verbs in one namespace; anything else is 403
 * with the platform's message.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, profile, startAuthzServer, type AuthzServer } from "../../services/apiserver/authz/testing/harness.ts";
import { CRD_GROUP, crdPath, cronTabCrd } from "../support/crd-fixtures.ts";

const rbac = profile.group("rbac");
let s: AuthzServer;

beforeAll(async () => {
  s = await startAuthzServer({ modes: ["RBAC"] });
  const admin = await s.as("admin", ["system:masters"]);
  const must = async (p: Promise<{ status: number; text: string }>) => {
    const r = await p;
    if (r.status !== 201) throw new Error(`unexpected ${r.status}: ${r.text}`);
  };
  await must(s.call(admin, "POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "team" } }));
  await must(s.call(admin, "POST", crdPath(profile), cronTabCrd(profile)));
  await eventually(async () => (await s.call(admin, "GET", `/apis/${CRD_GROUP}/v1/crontabs`)).status === 200);
  await must(
    s.call(admin, "POST", `/apis/${rbac}/v1/namespaces/team/roles`, {
      apiVersion: `${rbac}/v1`,
      kind: "Role",
      metadata: { name: "tabs" },
      rules: [{ apiGroups: [CRD_GROUP], resources: ["crontabs"], verbs: ["get", "list", "create"] }],
    }),
  );
  await must(
    s.call(admin, "POST", `/apis/${rbac}/v1/namespaces/team/rolebindings`, {
      apiVersion: `${rbac}/v1`,
      kind: "RoleBinding",
      metadata: { name: "dev-tabs" },
      roleRef: { apiGroup: rbac, kind: "Role", name: "tabs" },
      subjects: [{ apiGroup: rbac, kind: "User", name: "dev" }],
    }),
  );
});
afterAll(async () => {
  await s?.close();
});

describe("RBAC on custom resources", () => {
  it("grants the verbs of a Role naming the group and resource, in its namespace only", async () => {
    const dev = await s.as("dev");
    const base = `/apis/${CRD_GROUP}/v1/namespaces/team/crontabs`;
    await eventually(async () => (await s.call(dev, "GET", base)).status === 200);
    const created = await s.call(dev, "POST", base, { apiVersion: `${CRD_GROUP}/v1`, kind: "CronTab", metadata: { name: "mine" }, spec: {} });
    expect(created.status, created.text).toBe(201);
    const del = await s.call(dev, "DELETE", `${base}/mine`);
    expect(del.status).toBe(403);
    expect(del.body.message).toBe(`crontabs.${CRD_GROUP} "mine" is forbidden: User "dev" cannot delete resource "crontabs" in API group "${CRD_GROUP}" in the namespace "team"`);
    const status = await s.call(dev, "GET", `${base}/mine/status`);
    expect(status.status).toBe(403);
    const elsewhere = await s.call(dev, "GET", `/apis/${CRD_GROUP}/v1/namespaces/default/crontabs`);
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body.message).toBe(`crontabs.${CRD_GROUP} is forbidden: User "dev" cannot list resource "crontabs" in API group "${CRD_GROUP}" in the namespace "default"`);
  });
});
