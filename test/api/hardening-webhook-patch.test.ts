/**
 * A mutating webhook's JSONPatch goes through the same bounded engine as a PATCH
 * request, through HTTPS against a real replica and a real HTTPS webhook server:
 * an amplifying patch (copies of a map into itself) and a patch with more than
 * 10,000 operations are refused with a 500 InternalError naming the webhook and
 * the limit, whatever the failurePolicy, nothing is stored, and a bystander's
 * GET /livez keeps being answered quickly meanwhile. A denial whose code cannot be
 * an HTTP status (found by fuzzing) is a 500 Status that keeps the webhook's message.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonPatch, startWebhookServer, type WebhookServer } from "../../services/apiserver/admission/testing/webhook-server.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { HttpsClient } from "../support/https-client.ts";

let api: TestApiserver;
let wh: WebhookServer;
const ns = "/api/v1/namespaces/default/configmaps";

beforeAll(async () => {
  api = await startTestApiserver();
  wh = await startWebhookServer();
  const ar = api.profile.group("admissionregistration");
  const hooks = ["amplify", "many", "oddcode"].map((id) => ({
    name: `${id}.example.com`,
    clientConfig: { url: `${wh.url}/${id}`, caBundle: wh.caBundle },
    rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
    objectSelector: { matchLabels: { hook: id } },
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
    // A patch that does not apply is refused even by a webhook that fails open.
    failurePolicy: "Ignore",
  }));
  const res = await api.admin.post(`/apis/${ar}/v1/mutatingwebhookconfigurations`, { apiVersion: `${ar}/v1`, kind: "MutatingWebhookConfiguration", metadata: { name: "patch-bounds" }, webhooks: hooks });
  expect(res.status, res.text).toBe(201);
});

afterAll(async () => {
  await wh?.close();
  await api?.close();
});

/** One `add` of a 1 KiB map, then 40 `copy` operations of the map into itself: 2^40 KiB if unbounded. */
function amplifyingPatch(): unknown[] {
  const seed: Record<string, string> = {};
  for (let i = 0; i < 16; i++) seed[`k${i}`] = "x".repeat(60);
  const ops: unknown[] = [{ op: "add", path: "/metadata/annotations", value: seed }];
  for (let i = 0; i < 40; i++) ops.push({ op: "copy", from: "/metadata/annotations", path: `/metadata/annotations/c${i}` });
  return ops;
}

function configMap(name: string, hook: string) {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, labels: { hook } }, data: { a: "b" } };
}

/** Waits until the replica's informer has the configuration: a dry-run create reaches the webhook. */
async function effective(hook: string): Promise<void> {
  const deadline = Date.now() + 5000;
  for (let i = 0; ; i++) {
    const before = wh.reviews.length;
    await api.admin.post(`${ns}?dryRun=All`, configMap(`probe-${hook}-${i}`, hook));
    if (wh.reviews.length > before) return;
    if (Date.now() > deadline) throw new Error(`webhook ${hook} not effective`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Runs `request` while a bystander polls /livez; returns the answer and the slowest /livez. */
async function withBystander<T>(request: () => Promise<T>): Promise<{ result: T; slowestLivezMs: number; livez: number }> {
  const bystander = new HttpsClient(api.admin.baseUrl, { ca: api.ca });
  let done = false;
  let slowest = 0;
  let answered = 0;
  const polling = (async () => {
    while (!done) {
      const t = performance.now();
      const r = await bystander.get("/livez");
      expect(r.status).toBe(200);
      slowest = Math.max(slowest, performance.now() - t);
      answered++;
    }
  })();
  try {
    const result = await request();
    done = true;
    await polling;
    return { result, slowestLivezMs: slowest, livez: answered };
  } finally {
    done = true;
    bystander.close();
  }
}

describe("webhook JSONPatch bounds", () => {
  it("refuses an amplifying copy patch with a 500 naming the webhook and the copy limit; /livez stays quick", async () => {
    wh.on("/amplify", () => ({ response: { allowed: true, ...jsonPatch(amplifyingPatch()) } }));
    await effective("amplify");
    const { result: res, slowestLivezMs, livez } = await withBystander(() => api.admin.post(ns, configMap("amplified", "amplify")));
    expect(res.status, res.text).toBe(500);
    expect(res.json()).toMatchObject({ kind: "Status", code: 500, reason: "InternalError" });
    const message = res.json<{ message: string }>().message;
    expect(message).toContain('failed calling webhook "amplify.example.com"');
    expect(message).toMatch(/the accumulated size increase of copy is \d+, exceeding the limit 3145728/);
    expect(livez).toBeGreaterThan(0);
    expect(slowestLivezMs).toBeLessThan(1000);
    expect((await api.admin.get(`${ns}/amplified`)).status).toBe(404);
  });

  it("refuses a patch of more than 10,000 operations with a 500 naming the operation limit", async () => {
    const ops = Array.from({ length: 10_001 }, () => ({ op: "test", path: "/kind", value: "ConfigMap" }));
    wh.on("/many", () => ({ response: { allowed: true, ...jsonPatch(ops) } }));
    await effective("many");
    const res = await api.admin.post(ns, configMap("many-ops", "many"));
    expect(res.status, res.text).toBe(500);
    expect(res.json<{ message: string }>().message).toContain("The allowed maximum operations in a JSON patch is 10000, got 10001");
    expect((await api.admin.get(`${ns}/many-ops`)).status).toBe(404);
    // Exactly 10,000 operations apply.
    wh.on("/many", () => ({ response: { allowed: true, ...jsonPatch([...ops.slice(2), { op: "add", path: "/data/patched", value: "yes" }]) } }));
    const ok = await api.admin.post(ns, configMap("limit-ops", "many"));
    expect(ok.status, ok.text).toBe(201);
    expect(ok.json<{ data: Record<string, string> }>().data).toEqual({ a: "b", patched: "yes" });
  });
});

describe("webhook denials with odd codes", () => {
  it("a denial with a code that is no HTTP status is answered as a 500 Status keeping the webhook's message", async () => {
    wh.on("/oddcode", () => ({ response: { allowed: false, status: { code: 2147483633, message: "nope", reason: "x" } } }));
    await effective("oddcode");
    const res = await api.admin.post(ns, configMap("odd", "oddcode"));
    expect(res.status, res.text).toBe(500);
    expect(res.json()).toMatchObject({ kind: "Status", code: 500, message: 'admission webhook "oddcode.example.com" denied the request: nope' });
    wh.on("/oddcode", () => ({ response: { allowed: false, status: { code: 503, message: "busy" } } }));
    const own = await api.admin.post(ns, configMap("odd", "oddcode"));
    expect(own.status, own.text).toBe(503);
    expect(own.json()).toMatchObject({ kind: "Status", code: 503, message: 'admission webhook "oddcode.example.com" denied the request: busy' });
  });
});
