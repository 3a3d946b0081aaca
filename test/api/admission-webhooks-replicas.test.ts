/**
 * Webhook configurations apply on every replica: two replicas over one store,
 * a configuration created through one is enforced by the other within a second
 * (its watch cache feeds the webhook plugins), and its removal likewise.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinKinds } from "../../shared/api/groups/index.ts";
import { startReplica, type Replica } from "../../services/apiserver/server/replica.ts";
import { HttpsClient } from "../support/https-client.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { startWebhookServer, type WebhookServer } from "../../services/apiserver/admission/testing/webhook-server.ts";
import { ensurePki } from "../../services/apiserver/server/certs.ts";

let a: TestApiserver;
let b: Replica;
let bClient: HttpsClient;
let wh: WebhookServer;

beforeAll(async () => {
  a = await startTestApiserver();
  const pki = await ensurePki(a.dir, { profile: a.profile });
  b = await startReplica({ profile: a.profile, kinds: builtinKinds(a.profile), kv: a.kv, feed: a.kv.feed, tls: { key: pki.serving.keyPem, cert: pki.serving.certPem, clientCa: pki.ca.certPem }, compactIntervalMs: 0 });
  bClient = new HttpsClient(b.url, { ca: pki.ca.certPem, cert: pki.admin.certPem, key: pki.admin.keyPem });
  wh = await startWebhookServer();
  wh.on("/deny", () => ({ response: { allowed: false, status: { code: 403, message: "denied everywhere" } } }));
});

afterAll(async () => {
  bClient?.close();
  await b?.close();
  await wh?.close();
  await a?.close();
});

async function within(ms: number, check: () => Promise<boolean>): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await check()) return Date.now() - start;
    if (Date.now() - start > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("webhook configurations across replicas", () => {
  it("a configuration written through one replica is enforced by another within a second, and so is its removal", async () => {
    const ar = a.profile.group("admissionregistration");
    const cm = (name: string) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, labels: { guarded: "yes" } } });
    expect((await bClient.post("/api/v1/namespaces/default/configmaps", cm("before"))).status).toBe(201);
    const created = await a.admin.post(`/apis/${ar}/v1/validatingwebhookconfigurations`, {
      apiVersion: `${ar}/v1`,
      kind: "ValidatingWebhookConfiguration",
      metadata: { name: "everywhere" },
      webhooks: [
        {
          name: "everywhere.example.com",
          clientConfig: { url: `${wh.url}/deny`, caBundle: wh.caBundle },
          rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
          objectSelector: { matchLabels: { guarded: "yes" } },
          sideEffects: "None",
          admissionReviewVersions: ["v1"],
        },
      ],
    });
    expect(created.status).toBe(201);
    let i = 0;
    await within(1000, async () => (await bClient.post("/api/v1/namespaces/default/configmaps?dryRun=All", cm(`probe-${i++}`))).status === 403);
    const denied = await bClient.post("/api/v1/namespaces/default/configmaps", cm("after"));
    expect(denied.json<{ message: string }>().message).toBe('admission webhook "everywhere.example.com" denied the request: denied everywhere');
    expect((await a.admin.delete(`/apis/${ar}/v1/validatingwebhookconfigurations/everywhere`)).status).toBe(200);
    await within(1000, async () => (await bClient.post("/api/v1/namespaces/default/configmaps?dryRun=All", cm(`probe-${i++}`))).status === 201);
  });
});
