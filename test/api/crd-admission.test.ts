/**
 * Admission webhooks on custom resources over HTTPS, as on built-in kinds: a
 * mutating webhook registered for the CRD's group patches the object (the patch is
 * then pruned and validated by the CRD's schema), a validating webhook denies, and
 * the reviews name the custom group, version, resource and kind.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonPatch, startWebhookServer, type WebhookServer } from "../../services/apiserver/admission/testing/webhook-server.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { CRD_GROUP, crdPath, cronTabCrd, waitServed } from "../support/crd-fixtures.ts";

let api: TestApiserver;
let wh: WebhookServer;
const base = `/apis/${CRD_GROUP}/v1/namespaces/default/crontabs`;

beforeAll(async () => {
  api = await startTestApiserver();
  wh = await startWebhookServer();
  expect((await api.admin.post(crdPath(api.profile), cronTabCrd(api.profile))).status).toBe(201);
  await waitServed(api.admin, base);
  const ar = api.profile.group("admissionregistration");
  const hook = (id: string) => ({
    name: `${id}.example.com`,
    clientConfig: { url: `${wh.url}/${id}`, caBundle: wh.caBundle },
    rules: [{ operations: ["CREATE"], apiGroups: [CRD_GROUP], apiVersions: ["v1"], resources: ["crontabs"] }],
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
  });
  wh.on("/mutate", () => ({ response: { allowed: true, ...jsonPatch([{ op: "add", path: "/spec/image", value: "mutated" }, { op: "add", path: "/spec/notInSchema", value: 1 }]) } }));
  wh.on("/validate", (rv) => {
    const name = (rv.request.object?.metadata as { name?: string } | undefined)?.name ?? "";
    return name.startsWith("deny") ? { response: { allowed: false, status: { code: 403, reason: "Forbidden", message: "not this one" } } } : { response: { allowed: true } };
  });
  for (const [kind, id] of [["Mutating", "mutate"], ["Validating", "validate"]] as const) {
    const plural = kind === "Mutating" ? "mutatingwebhookconfigurations" : "validatingwebhookconfigurations";
    const r = await api.admin.post(`/apis/${ar}/v1/${plural}`, { apiVersion: `${ar}/v1`, kind: `${kind}WebhookConfiguration`, metadata: { name: id }, webhooks: [hook(id)] });
    expect(r.status, r.text).toBe(201);
  }
});
afterAll(async () => {
  await wh?.close();
  await api?.close();
});

const tab = (name: string) => ({ apiVersion: `${CRD_GROUP}/v1`, kind: "CronTab", metadata: { name }, spec: { cronSpec: "* * * * *" } });

describe("admission webhooks on custom resources", () => {
  it("mutate (pruned by the schema) and validate creates, with the custom group in the review", async () => {
    let created: Awaited<ReturnType<typeof api.admin.post>> | undefined;
    for (let i = 0; i < 100; i++) {
      created = await api.admin.post(base, tab(`ok-${i}`));
      if (created.json<{ spec: { image?: string } }>().spec?.image === "mutated") break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(created?.status, created?.text).toBe(201);
    const spec = created?.json<{ spec: Record<string, unknown> }>().spec;
    expect(spec?.image).toBe("mutated");
    expect(spec?.notInSchema).toBeUndefined();
    const review = wh.reviews.filter((r) => r.path === "/validate").at(-1)?.review;
    expect(review?.request.resource).toEqual({ group: CRD_GROUP, version: "v1", resource: "crontabs" });
    expect(review?.request.kind).toEqual({ group: CRD_GROUP, version: "v1", kind: "CronTab" });
    const denied = await api.admin.post(base, tab("deny-1"));
    expect(denied.status).toBe(403);
    expect(denied.json<{ message: string }>().message).toBe('admission webhook "validate.example.com" denied the request: not this one');
    expect((await api.admin.get(`${base}/deny-1`)).status).toBe(404);
  });
});
