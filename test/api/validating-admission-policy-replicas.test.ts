/**
 * ValidatingAdmissionPolicies apply on every replica: two replicas over one
 * store; a policy and binding written through one are enforced by the other
 * within a second, and so is the binding's removal.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinKinds } from "../../shared/api/groups/index.ts";
import { startReplica, type Replica } from "../../services/apiserver/server/replica.ts";
import { ensurePki } from "../../services/apiserver/server/certs.ts";
import { HttpsClient } from "../support/https-client.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";

let a: TestApiserver;
let b: Replica;
let bClient: HttpsClient;

beforeAll(async () => {
  a = await startTestApiserver();
  const pki = await ensurePki(a.dir, { profile: a.profile });
  b = await startReplica({ profile: a.profile, kinds: builtinKinds(a.profile), kv: a.kv, feed: a.kv.feed, tls: { key: pki.serving.keyPem, cert: pki.serving.certPem, clientCa: pki.ca.certPem }, compactIntervalMs: 0 });
  bClient = new HttpsClient(b.url, { ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem });
});

afterAll(async () => {
  bClient?.close();
  await b?.close();
  await a?.close();
});

async function within(ms: number, check: () => Promise<boolean>): Promise<void> {
  const start = Date.now();
  for (;;) {
    if (await check()) return;
    if (Date.now() - start > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("ValidatingAdmissionPolicy across replicas", () => {
  it("a policy written through one replica is enforced by the other within a second, and so is its binding's removal", async () => {
    const ar = a.profile.group("admissionregistration");
    const cm = (name: string, size: string) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { size } });
    const create = (name: string, size: string) => bClient.post("/api/v1/namespaces/default/configmaps", cm(name, size));
    const policy = await a.admin.post(`/apis/${ar}/v1/validatingadmissionpolicies`, {
      apiVersion: `${ar}/v1`,
      kind: "ValidatingAdmissionPolicy",
      metadata: { name: "small-configmaps.example.com" },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }] },
        validations: [{ expression: "!has(object.data) || !('size' in object.data) || object.data.size != 'huge'", reason: "Forbidden", message: "no huge configmaps" }],
      },
    });
    expect(policy.status, policy.text).toBe(201);
    const binding = await a.admin.post(`/apis/${ar}/v1/validatingadmissionpolicybindings`, {
      apiVersion: `${ar}/v1`,
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: { name: "small-configmaps-binding" },
      spec: { policyName: "small-configmaps.example.com", validationActions: ["Deny"] },
    });
    expect(binding.status, binding.text).toBe(201);
    await within(1000, async () => (await bClient.post("/api/v1/namespaces/default/configmaps?dryRun=All", cm("probe", "huge"))).status === 403);
    const denied = await create("huge", "huge");
    expect(denied.status).toBe(403);
    expect(JSON.parse(denied.text)).toMatchObject({
      reason: "Forbidden",
      message: `configmaps "huge" is forbidden: ValidatingAdmissionPolicy 'small-configmaps.example.com' with binding 'small-configmaps-binding' denied request: no huge configmaps`,
    });
    expect((await create("tiny", "tiny")).status).toBe(201);
    expect((await a.admin.delete(`/apis/${ar}/v1/validatingadmissionpolicybindings/small-configmaps-binding`)).status).toBe(200);
    await within(1000, async () => (await bClient.post("/api/v1/namespaces/default/configmaps?dryRun=All", cm("probe", "huge"))).status === 201);
    expect((await create("huge", "huge")).status).toBe(201);
  });
});
