/**
 * The `authorizer` variable in admission webhooks' match conditions, over HTTPS
 * against a replica with RBAC and a real HTTPS webhook server: a webhook whose
 * condition asks whether the requester may delete ConfigMaps is called for a
 * user RBAC refuses (and denies him) and skipped for one RBAC allows;
 * `authorizer.requestResource` is the request's own resource; a condition that
 * calls an unknown authorizer method is refused when the configuration is written.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWebhookServer, type WebhookServer } from "../../services/apiserver/admission/testing/webhook-server.ts";
import { defaultAuthenticationOptions } from "../../services/apiserver/authn/options.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { HttpsClient } from "../support/https-client.ts";

const ALICE = "alice-token-0123456789";
const BOB = "bob-token-0123456789";
const ADMIN = "admin-token-0123456789";
const NS = "whauthz";

let api: TestApiserver;
let wh: WebhookServer;
let dir: string;
let alice: HttpsClient;
let bob: HttpsClient;
let admin: HttpsClient;
let ar: string;
type Obj = Record<string, unknown>;

async function must(p: Promise<{ status: number; text: string }>, code = 201): Promise<void> {
  const r = await p;
  expect(r.status, r.text).toBe(code);
}

function webhook(name: string, path: string, expression: string): Obj {
  return {
    name,
    clientConfig: { url: `${wh.url}${path}`, caBundle: wh.caBundle },
    rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
    namespaceSelector: { matchLabels: { whauthz: "on" } },
    matchConditions: [{ name: "authz", expression }],
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
  };
}

const deleteCheck = "authorizer.group('').resource('configmaps').namespace(object.metadata.namespace).check('delete')";

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "webhook-authorizer-"));
  const authentication = defaultAuthenticationOptions();
  writeFileSync(join(dir, "tokens.csv"), `${ALICE},alice,1,devs\n${BOB},bob,2,devs\n${ADMIN},admin,0,system:masters\n`);
  authentication.tokenAuthFile = join(dir, "tokens.csv");
  api = await startTestApiserver({ security: { authentication, authorization: { modes: ["RBAC"] } } });
  wh = await startWebhookServer();
  wh.on("/non-deleters", () => ({ response: { allowed: false, status: { code: 403, reason: "Forbidden", message: "only deleters may create ConfigMaps here" } } }));
  alice = new HttpsClient(api.replica.url, { ca: api.ca, token: ALICE });
  bob = new HttpsClient(api.replica.url, { ca: api.ca, token: BOB });
  admin = new HttpsClient(api.replica.url, { ca: api.ca, token: ADMIN });
  const rbac = api.profile.group("rbac");
  ar = api.profile.group("admissionregistration");
  await must(admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: NS, labels: { whauthz: "on" } } }));
  const role = (name: string, verbs: string[]): Obj => ({ apiVersion: `${rbac}/v1`, kind: "Role", metadata: { name }, rules: [{ apiGroups: [""], resources: ["configmaps"], verbs }] });
  const bind = (name: string, roleName: string, subject: Obj): Obj => ({ apiVersion: `${rbac}/v1`, kind: "RoleBinding", metadata: { name }, roleRef: { apiGroup: rbac, kind: "Role", name: roleName }, subjects: [subject] });
  await must(admin.post(`/apis/${rbac}/v1/namespaces/${NS}/roles`, role("writer", ["create", "get"])));
  await must(admin.post(`/apis/${rbac}/v1/namespaces/${NS}/roles`, role("deleter", ["delete"])));
  await must(admin.post(`/apis/${rbac}/v1/namespaces/${NS}/rolebindings`, bind("devs-write", "writer", { apiGroup: rbac, kind: "Group", name: "devs" })));
  await must(admin.post(`/apis/${rbac}/v1/namespaces/${NS}/rolebindings`, bind("alice-delete", "deleter", { apiGroup: rbac, kind: "User", name: "alice" })));
  await must(
    admin.post(`/apis/${ar}/v1/validatingwebhookconfigurations`, {
      apiVersion: `${ar}/v1`,
      kind: "ValidatingWebhookConfiguration",
      metadata: { name: "authz-conditions" },
      webhooks: [
        webhook("non-deleters.example.com", "/non-deleters", `!${deleteCheck}.allowed()`),
        webhook("request-resource.example.com", "/request-resource", "authorizer.requestResource.check('create').allowed() && authorizer.requestResource.check('delete').allowed()"),
      ],
    }),
  );
});

afterAll(async () => {
  alice?.close();
  bob?.close();
  admin?.close();
  await wh?.close();
  await api?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const configMap = (name: string): Obj => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { a: "b" } });
const calls = (path: string, user: string) => wh.reviews.filter((r) => r.path === path && r.review.request.userInfo.username === user).length;

describe("the authorizer variable in webhook matchConditions", () => {
  it("calls the webhook for a requester RBAC refuses the checked verb, and skips it for one it allows", async () => {
    // Configurations reach the replica through its watch cache: wait for the denial.
    const deadline = Date.now() + 2000;
    for (;;) {
      const probe = await bob.post(`/api/v1/namespaces/${NS}/configmaps?dryRun=All`, configMap("probe"));
      if (probe.status === 403) break;
      if (Date.now() > deadline) throw new Error(`webhook not effective: ${probe.status} ${probe.text}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    const denied = await bob.post(`/api/v1/namespaces/${NS}/configmaps`, configMap("from-bob"));
    expect(denied.status, denied.text).toBe(403);
    expect(denied.json<{ message: string }>().message).toBe('admission webhook "non-deleters.example.com" denied the request: only deleters may create ConfigMaps here');
    expect(calls("/non-deleters", "bob")).toBeGreaterThan(0);

    const admitted = await alice.post(`/api/v1/namespaces/${NS}/configmaps`, configMap("from-alice"));
    expect(admitted.status, admitted.text).toBe(201);
    expect(calls("/non-deleters", "alice")).toBe(0);
  });

  it("authorizer.requestResource checks the request's own resource", async () => {
    // alice may create and delete ConfigMaps in the namespace: the condition holds.
    expect(calls("/request-resource", "alice")).toBeGreaterThan(0);
    // bob may create but not delete: skipped, whatever else happened to his request.
    expect(calls("/request-resource", "bob")).toBe(0);
  });

  it("refuses a condition calling an unknown authorizer method at write time", async () => {
    const r = await admin.post(`/apis/${ar}/v1/validatingwebhookconfigurations`, {
      apiVersion: `${ar}/v1`,
      kind: "ValidatingWebhookConfiguration",
      metadata: { name: "authz-broken" },
      webhooks: [webhook("broken.example.com", "/broken", "authorizer.nosuch('x').allowed()")],
    });
    expect(r.status, r.text).toBe(422);
    expect(r.json<{ message: string }>().message).toContain("webhooks[0].matchConditions[0].expression: Invalid value");
  });
});
