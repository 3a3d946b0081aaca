/**
 * Seeded fuzzing of what admission webhooks answer, twice:
 *  - the AdmissionReview answer decoder (admission/webhooks/review.ts) on its own, for
 *    many cases: it returns a well-typed answer or throws a WebhookCallError, nothing
 *    else, in bounded time;
 *  - the public path: a real replica over HTTPS calling a real HTTPS webhook server
 *    (failurePolicy Ignore, mutating and validating) that answers with the generated
 *    documents. Every create is answered with a Status below 500, except the 5xx the
 *    platform gives on purpose: a denial carrying the webhook's own code, and a
 *    JSONPatch that does not apply (500 InternalError); the replica keeps answering
 *    `/livez`, and the event loop is never blocked for long.
 * `FUZZ_SEED` replays a run; `LONG=1` (npm run test:long) runs 25× as many cases.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from "node:perf_hooks";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getProfile } from "../../shared/platform/index.ts";
import { startWebhookServer, type WebhookServer } from "../../services/apiserver/admission/testing/webhook-server.ts";
import { WebhookCallError } from "../../services/apiserver/admission/webhooks/client.ts";
import { parseReviewResponse } from "../../services/apiserver/admission/webhooks/review.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { cpuMs } from "./cpu-time.ts";
import { arbitraryAdmissionAnswer, renderReview, type WebhookAnswer } from "./review-arbitraries.ts";

const LONG = process.env.LONG === "1";
const SEED = Number(process.env.FUZZ_SEED ?? 20261125);
const DECODER_RUNS = LONG ? 10_000 : 500;
const HTTP_RUNS = LONG ? 1000 : 40;
const MAX_DECODE_MS = LONG ? 50 : 1000;
const MAX_STALL_MS = LONG ? 50 : 1000;
const NS = "fuzz";
const BASE = `/api/v1/namespaces/${NS}/configmaps`;
const UID = "0b7c1f3e-2a55-4c1e-9d0a-3f5b6c7d8e9f";

describe(`admission review answers under fuzzing (seed ${SEED})`, () => {
  it(`the answer decoder returns a typed answer or a WebhookCallError (${DECODER_RUNS} runs)`, () => {
    const profile = getProfile("plat");
    let slowest = 0;
    fc.assert(
      fc.property(arbitraryAdmissionAnswer(), fc.constantFrom("v1", "v1beta1"), fc.boolean(), (answer, version, mutating) => {
        const body = "review" in answer ? renderReview(answer.review, `admission.${profile.groupDomain}/${version}`, UID) : safeParse(answer.raw);
        const got: { r?: ReturnType<typeof parseReviewResponse>; failure?: unknown } = {};
        const ms = cpuMs(() => {
          try {
            got.r = parseReviewResponse(profile, version, UID, body, mutating);
          } catch (err) {
            got.failure = err;
          }
        });
        const { r, failure } = got;
        slowest = Math.max(slowest, ms);
        if (!r) {
          if (!(failure instanceof WebhookCallError)) throw failure;
          return;
        }
        if (typeof r.allowed !== "boolean") throw new Error("allowed is not a boolean");
        if (!r.warnings.every((w) => typeof w === "string")) throw new Error("a warning is not a string");
        if (!Object.values(r.auditAnnotations).every((v) => typeof v === "string")) throw new Error("an audit annotation is not a string");
        if (r.patch !== undefined && (!mutating || !Array.isArray(r.patch))) throw new Error("a patch that is not a list, or from a validating webhook");
      }),
      { seed: SEED, numRuns: DECODER_RUNS, endOnFailure: true },
    );
    expect(slowest).toBeLessThan(MAX_DECODE_MS);
  });
});

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

describe(`admission webhooks answering generated documents over HTTPS (seed ${SEED}, ${HTTP_RUNS} runs)`, () => {
  let api: TestApiserver;
  let wh: WebhookServer;
  let stalls: IntervalHistogram;
  let current: WebhookAnswer = { review: { apiVersion: "same", kind: "AdmissionReview", uid: "same", response: { allowed: true } } };
  const statuses = new Map<number, number>();

  beforeAll(async () => {
    api = await startTestApiserver();
    wh = await startWebhookServer();
    const answer = () => (review: { apiVersion: string; request: { uid: string } }) =>
      "review" in current ? { raw: JSON.stringify(renderReview(current.review, review.apiVersion, review.request.uid)), status: 200 } : current;
    wh.on("/mutate", answer());
    wh.on("/validate", answer());
    const ar = api.profile.group("admissionregistration");
    const hook = (kind: string) => ({
      name: `${kind}.fuzz.example.com`,
      clientConfig: { url: `${wh.url}/${kind}`, caBundle: wh.caBundle },
      rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
      objectSelector: { matchLabels: { hook: kind } },
      sideEffects: "None",
      admissionReviewVersions: ["v1", "v1beta1"],
      failurePolicy: "Ignore",
      timeoutSeconds: 5,
    });
    const created = [
      await api.admin.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } }),
      await api.admin.post(`/apis/${ar}/v1/mutatingwebhookconfigurations`, { apiVersion: `${ar}/v1`, kind: "MutatingWebhookConfiguration", metadata: { name: "fuzz" }, webhooks: [hook("mutate")] }),
      await api.admin.post(`/apis/${ar}/v1/validatingwebhookconfigurations`, { apiVersion: `${ar}/v1`, kind: "ValidatingWebhookConfiguration", metadata: { name: "fuzz" }, webhooks: [hook("validate")] }),
    ];
    for (const r of created) expect(r.status, r.text).toBe(201);
    // The replica sees the configurations once a probe reaches both webhooks.
    const deadline = Date.now() + 5000;
    for (const kind of ["mutate", "validate"]) {
      while (!wh.reviews.some((r) => r.path === `/${kind}`)) {
        if (Date.now() > deadline) throw new Error(`webhook ${kind} not called`);
        await api.admin.post(`${BASE}?dryRun=All`, { apiVersion: "v1", kind: "ConfigMap", metadata: { generateName: "probe-", labels: { hook: kind } } });
      }
    }
    stalls = monitorEventLoopDelay({ resolution: 10 });
    stalls.enable();
  }, 60_000);

  afterAll(async () => {
    stalls?.disable();
    if (stalls) process.stdout.write(`fuzz admission: worst event-loop stall ${(stalls.max / 1e6).toFixed(1)} ms; statuses ${JSON.stringify(Object.fromEntries(statuses))}\n`);
    await wh?.close();
    await api?.close();
  });

  it("every create is answered with a Status below 500 or one of the platform's deliberate 5xx", async () => {
    await fc.assert(
      fc.asyncProperty(arbitraryAdmissionAnswer(), fc.constantFrom("mutate", "validate"), async (answer, kind) => {
        current = answer;
        const r = await api.admin.post(BASE, { apiVersion: "v1", kind: "ConfigMap", metadata: { generateName: "fz-", labels: { hook: kind } }, data: { a: "b" } });
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        if (r.status === 201) return;
        const body = r.json<{ kind?: string; code?: number; message?: string }>();
        if (body.kind !== "Status" || body.code !== r.status) throw new Error(`${r.status} without a matching Status: ${r.text.slice(0, 300)}`);
        if (r.status < 500) return;
        const message = body.message ?? "";
        const deniedWithOwnCode = message.startsWith(`admission webhook "${kind}.fuzz.example.com" denied the request`);
        const patchDoesNotApply = kind === "mutate" && message.includes("JSONPatch could not be applied");
        if (!deniedWithOwnCode && !patchDoesNotApply) throw new Error(`${r.status}: ${r.text.slice(0, 300)}`);
      }),
      { seed: SEED, numRuns: HTTP_RUNS, endOnFailure: true },
    );
    expect((await api.admin.get("/livez")).status).toBe(200);
    expect(stalls.max / 1e6).toBeLessThan(MAX_STALL_MS);
  }, 300_000);
});
