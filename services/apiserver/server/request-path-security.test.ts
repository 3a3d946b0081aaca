/**
 * Authentication, impersonation and authorization as separate filters of a replica
 * wired from the security flags (token file, RBAC): impersonation is checked with
 * the authorizer and the request then runs as the impersonated user.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApiserver, type TestApiserver } from "../../../test/support/apiserver.ts";
import { TempDir } from "../../../test/support/https-call.ts";
import type { HttpsClient } from "../../../test/support/https-client.ts";
import { defaultAuthenticationOptions } from "../authn/options.ts";

const ADMIN = "request-path-admin-token-0123456789";
const ALICE = "request-path-alice-token-0123456789";

describe("security filters over HTTPS", () => {
  const dir = new TempDir("request-path-security-");
  let api: TestApiserver;
  let admin: HttpsClient;
  let alice: HttpsClient;

  beforeAll(async () => {
    const authentication = defaultAuthenticationOptions();
    authentication.tokenAuthFile = dir.write("tokens.csv", `${ADMIN},admin,1,system:masters\n${ALICE},alice,2,tenants\n`);
    api = await startTestApiserver({ security: { authentication, authorization: { modes: ["RBAC"] } } });
    admin = api.admin.withIdentity({ token: ADMIN, cert: undefined, key: undefined });
    alice = api.admin.withIdentity({ token: ALICE, cert: undefined, key: undefined });
  });

  afterAll(async () => {
    admin?.close();
    alice?.close();
    await api?.close();
    dir.remove();
  });

  it("runs an allowed impersonation as the impersonated user", async () => {
    const asBob = await admin.request("GET", "/api/v1/namespaces/default/configmaps", { headers: { "Impersonate-User": "bob", "Impersonate-Group": "developers" } });
    expect(asBob.status).toBe(403);
    expect(asBob.json()).toMatchObject({ kind: "Status", code: 403, reason: "Forbidden", message: 'configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "default"' });
    expect(String(asBob.headers["audit-id"])).toMatch(/^[0-9a-f-]{36}$/);
    const group = api.profile.group("authentication");
    const self = await admin.post(`/apis/${group}/v1/selfsubjectreviews`, { apiVersion: `${group}/v1`, kind: "SelfSubjectReview" }, { "Impersonate-User": "bob", "Impersonate-Group": "developers" });
    expect(self.status, self.text).toBe(201);
    expect(self.json()).toMatchObject({ status: { userInfo: { username: "bob", groups: ["developers", "system:authenticated"] } } });
  });

  it("refuses an impersonation the authorizer does not allow, before the request is authorized", async () => {
    const r = await alice.request("GET", "/api/v1/namespaces/default/configmaps", { headers: { "Impersonate-User": "admin" } });
    expect(r.status).toBe(403);
    expect(r.json()).toMatchObject({ kind: "Status", reason: "Forbidden", message: 'users "admin" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope' });
  });

  it("answers an unauthenticated request with 401 and an Audit-ID", async () => {
    const r = await api.admin.withIdentity({ token: "wrong-token-0123456789", cert: undefined, key: undefined }).request("GET", "/api/v1/namespaces");
    expect(r.status).toBe(401);
    expect(r.json()).toMatchObject({ kind: "Status", code: 401, reason: "Unauthorized" });
    expect(r.headers["audit-id"]).toBeDefined();
  });
});
