/**
 * The `authorizer` variable of ValidatingAdmissionPolicy expressions over HTTPS,
 * backed by the replica's RBAC authorizer: a policy denies creating a ConfigMap
 * unless the requester may also `delete` ConfigMaps there; two users with
 * different Roles get different answers. The decision's reason (RBAC's) reaches
 * a Warn message; `authorizer.requestResource` and `serviceAccount` are checked too.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultAuthenticationOptions } from "../../services/apiserver/authn/options.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { HttpsClient } from "../support/https-client.ts";

const ALICE = "alice-token-0123456789";
const BOB = "bob-token-0123456789";
const ADMIN = "admin-token-0123456789";
const NS = "authz";

let api: TestApiserver;
let dir: string;
let alice: HttpsClient;
let bob: HttpsClient;
let admin: HttpsClient;
type Obj = Record<string, unknown>;

async function must(p: Promise<{ status: number; text: string }>): Promise<void> {
  const r = await p;
  expect(r.status, r.text).toBe(201);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "vap-authorizer-"));
  const authentication = defaultAuthenticationOptions();
  writeFileSync(join(dir, "tokens.csv"), `${ALICE},alice,1,devs\n${BOB},bob,2,devs\n${ADMIN},admin,0,system:masters\n`);
  authentication.tokenAuthFile = join(dir, "tokens.csv");
  api = await startTestApiserver({ security: { authentication, authorization: { modes: ["RBAC"] } } });
  alice = new HttpsClient(api.replica.url, { ca: api.ca, token: ALICE });
  bob = new HttpsClient(api.replica.url, { ca: api.ca, token: BOB });
  admin = new HttpsClient(api.replica.url, { ca: api.ca, token: ADMIN });
  const rbac = api.profile.group("rbac");
  const ar = api.profile.group("admissionregistration");
  await must(admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: NS, labels: { vap: NS } } }));
  const role = (name: string, verbs: string[]): Obj => ({ apiVersion: `${rbac}/v1`, kind: "Role", metadata: { name }, rules: [{ apiGroups: [""], resources: ["configmaps"], verbs }] });
  const bind = (name: string, roleName: string, subject: Obj): Obj => ({
    apiVersion: `${rbac}/v1`,
    kind: "RoleBinding",
    metadata: { name },
    roleRef: { apiGroup: rbac, kind: "Role", name: roleName },
    subjects: [subject],
  });
  await must(admin.post(`/apis/${rbac}/v1/namespaces/${NS}/roles`, role("writer", ["create", "get"])));
  await must(admin.post(`/apis/${rbac}/v1/namespaces/${NS}/roles`, role("deleter", ["delete"])));
  await must(admin.post(`/apis/${rbac}/v1/namespaces/${NS}/rolebindings`, bind("devs-write", "writer", { apiGroup: rbac, kind: "Group", name: "devs" })));
  await must(admin.post(`/apis/${rbac}/v1/namespaces/${NS}/rolebindings`, bind("alice-delete", "deleter", { apiGroup: rbac, kind: "User", name: "alice" })));
  await must(admin.post(`/apis/${rbac}/v1/namespaces/${NS}/rolebindings`, bind("bot-delete", "deleter", { kind: "ServiceAccount", name: "bot", namespace: NS })));
  const policy = (name: string, validations: Obj[]): Obj => ({
    apiVersion: `${ar}/v1`,
    kind: "ValidatingAdmissionPolicy",
    metadata: { name },
    spec: {
      failurePolicy: "Fail",
      matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }] },
      validations,
    },
  });
  const binding = (name: string, policyName: string, actions: string[]): Obj => ({
    apiVersion: `${ar}/v1`,
    kind: "ValidatingAdmissionPolicyBinding",
    metadata: { name },
    spec: { policyName, validationActions: actions, matchResources: { namespaceSelector: { matchLabels: { vap: NS } } } },
  });
  const deleteCheck = "authorizer.group('').resource('configmaps').namespace(object.metadata.namespace).check('delete')";
  await must(
    admin.post(
      `/apis/${ar}/v1/validatingadmissionpolicies`,
      policy("deleters-only.example.com", [
        { expression: `${deleteCheck}.allowed()`, reason: "Forbidden", messageExpression: "'only users who may delete ConfigMaps may create them: ' + request.userInfo.username" },
        { expression: "authorizer.requestResource.check('delete').allowed() == " + `${deleteCheck}.allowed()`, message: "requestResource disagrees" },
        { expression: "!authorizer.requestResource.check('delete').errored() && authorizer.requestResource.check('delete').error() == ''", message: "the check errored" },
        { expression: `authorizer.serviceAccount('${NS}', 'bot').group('').resource('configmaps').namespace('${NS}').check('delete').allowed()`, message: "the service account may not delete" },
      ]),
    ),
  );
  await must(admin.post(`/apis/${ar}/v1/validatingadmissionpolicybindings`, binding("deleters-only-binding.example.com", "deleters-only.example.com", ["Deny"])));
  await must(admin.post(`/apis/${ar}/v1/validatingadmissionpolicies`, policy("reason.example.com", [{ expression: `!${deleteCheck}.allowed()`, messageExpression: `'delete allowed: ' + ${deleteCheck}.reason()` }])));
  await must(admin.post(`/apis/${ar}/v1/validatingadmissionpolicybindings`, binding("reason-binding.example.com", "reason.example.com", ["Warn"])));
});

afterAll(async () => {
  alice?.close();
  bob?.close();
  admin?.close();
  await api?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const configMap = (name: string): Obj => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { a: "b" } });

describe("the authorizer variable in ValidatingAdmissionPolicy", () => {
  it("denies a user who may not delete and admits one who may, by the replica's RBAC", async () => {
    // Policies reach the replica through its watch cache: wait for the denial.
    const deadline = Date.now() + 2000;
    for (;;) {
      const probe = await bob.post(`/api/v1/namespaces/${NS}/configmaps?dryRun=All`, configMap("probe"));
      if (probe.status === 403) break;
      if (Date.now() > deadline) throw new Error(`policy not effective: ${probe.status} ${probe.text}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    const denied = await bob.post(`/api/v1/namespaces/${NS}/configmaps`, configMap("from-bob"));
    expect(denied.status, denied.text).toBe(403);
    const status = denied.json<{ reason: string; message: string }>();
    expect(status.reason).toBe("Forbidden");
    expect(status.message).toBe(
      `configmaps "from-bob" is forbidden: ValidatingAdmissionPolicy 'deleters-only.example.com' with binding 'deleters-only-binding.example.com' denied request: only users who may delete ConfigMaps may create them: bob`,
    );

    const admitted = await alice.post(`/api/v1/namespaces/${NS}/configmaps`, configMap("from-alice"));
    expect(admitted.status, admitted.text).toBe(201);
    // The Warn policy shows the authorizer's reason for the allowed delete check.
    const warning = String(admitted.headers.warning ?? "");
    expect(warning).toContain("Validation failed for ValidatingAdmissionPolicy 'reason.example.com' with binding 'reason-binding.example.com': delete allowed: ");
    // (quotes inside a Warning header's text are escaped)
    expect(warning).toContain('RBAC: allowed by RoleBinding \\"alice-delete/authz\\" of Role \\"deleter\\" to User \\"alice\\"');
  });
});
