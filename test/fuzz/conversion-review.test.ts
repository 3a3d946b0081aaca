/**
 * Seeded fuzzing of what CRD conversion webhooks answer, twice:
 *  - the ConversionReview answer checks (apiextensions/conversion-review.ts) on their
 *    own: for any answer — right, wrong in one field, or garbage — reading the
 *    converted objects and merging them back either gives one object per original, all
 *    in the desired version with the originals' identity, or throws a
 *    ConversionFailure; nothing else, in bounded CPU time per case;
 *  - the public path: a real replica over HTTPS with a CRD whose conversion webhook (a
 *    real HTTPS server) answers with the generated documents, for creates and reads in
 *    the non-storage version. Every answer is a success, a Status below 500, or the
 *    platform's 500 for a conversion that failed (`conversion webhook for ... failed`,
 *    `conversion for ... returned ...`); the replica keeps answering `/livez`.
 * `FUZZ_SEED` replays a run; `LONG=1` (npm run test:long) runs 25× as many cases.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConversionFailure, convertedObjectsOf, mergeConverted } from "../../services/apiserver/apiextensions/conversion-review.ts";
import type { JsonObject } from "../../services/apiserver/storage/object.ts";
import { startTestApiserver, type TestApiserver } from "../support/apiserver.ts";
import { startConversionWebhookServer, type ConversionWebhookServer, type Obj } from "../support/conversion-webhook-server.ts";
import { CRD_GROUP, crdPath, waitServed } from "../support/crd-fixtures.ts";
import { cpuMs } from "./cpu-time.ts";
import { arbitraryConversionAnswer, renderReview } from "./review-arbitraries.ts";

const LONG = process.env.LONG === "1";
const SEED = Number(process.env.FUZZ_SEED ?? 20261125);
const RUNS = LONG ? 10_000 : 500;
const HTTP_RUNS = LONG ? 1000 : 40;
const MAX_CASE_MS = LONG ? 50 : 1000;
const GROUP = "apiextensions.example.test";
const UID = "5d1c2b3a-0000-4000-8000-000000000001";
const DESIRED = "example.test/v2";

const originals: JsonObject[] = [
  { apiVersion: "example.test/v1", kind: "Widget", metadata: { name: "w", namespace: "default", uid: "u-1", resourceVersion: "5", labels: { a: "b" } }, spec: { size: 1 } },
  { apiVersion: DESIRED, kind: "Widget", metadata: { name: "x", namespace: "default", uid: "u-2" }, spec: {} },
  { apiVersion: "example.test/v1", kind: "Widget", metadata: { name: "y", namespace: "default", uid: "u-3" }, spec: { size: 3 } },
];
const toConvert = originals.filter((o) => o.apiVersion !== DESIRED);

/** The answer with `same` converted objects replaced by the right conversion of the original at that place. */
function answerFor(answer: ReturnType<typeof renderReview>): unknown {
  const response = answer.response;
  if (typeof response !== "object" || response === null || Array.isArray(response)) return answer;
  const converted = (response as Record<string, unknown>).convertedObjects;
  if (converted === "all-same") return { ...answer, response: { ...response, convertedObjects: toConvert.map((o) => ({ ...structuredClone(o), apiVersion: DESIRED })) } };
  if (!Array.isArray(converted)) return answer;
  const objects = converted.map((c, i) => (c === "same" ? { ...structuredClone(toConvert[i % toConvert.length]), apiVersion: DESIRED } : c));
  return { ...answer, response: { ...response, convertedObjects: objects } };
}

describe(`conversion webhook answers under fuzzing (seed ${SEED}, ${RUNS} runs)`, () => {
  it("converted objects in the desired version with the originals' identity, or a ConversionFailure", () => {
    let merged = 0;
    let refused = 0;
    let slowest = 0;
    fc.assert(
      fc.property(arbitraryConversionAnswer(), fc.constantFrom("v1", "v1beta1"), (generated, version) => {
        const answer = answerFor(renderReview(generated, `${GROUP}/${version}`, UID));
        const got: { out?: JsonObject[]; failure?: unknown } = {};
        const ms = cpuMs(() => {
          try {
            got.out = mergeConverted(originals, convertedObjectsOf(answer, GROUP, version, UID), DESIRED, "example.test/v1, Kind=Widget");
          } catch (err) {
            got.failure = err;
          }
        });
        const { out, failure } = got;
        slowest = Math.max(slowest, ms);
        if (out) {
          merged++;
          expect(out).toHaveLength(originals.length);
          out.forEach((o, i) => {
            expect(o.apiVersion).toBe(DESIRED);
            expect(o.kind).toBe(originals[i].kind);
            expect((o.metadata as { uid?: unknown }).uid).toBe((originals[i].metadata as { uid: string }).uid);
          });
        } else {
          if (!(failure instanceof ConversionFailure)) throw failure;
          refused++;
        }
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    expect(slowest).toBeLessThan(MAX_CASE_MS);
    // Both outcomes are reached: the oracle is exercised.
    expect(merged).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });
});

/** v1 keeps `hostPort: "host:port"`; v2 splits it into `host` and `port`. */
function convertGear(obj: Obj, desired: string): Obj {
  const spec = (obj.spec ?? {}) as Obj;
  if (desired === `${CRD_GROUP}/v2`) {
    const [host, port] = String(spec.hostPort ?? ":").split(":");
    return { ...obj, apiVersion: desired, spec: { host, port: Number(port) } };
  }
  return { ...obj, apiVersion: desired, spec: { hostPort: `${String(spec.host)}:${String(spec.port)}` } };
}

describe(`conversion webhooks answering generated documents over HTTPS (seed ${SEED}, ${HTTP_RUNS} runs)`, () => {
  let api: TestApiserver;
  let wh: ConversionWebhookServer;
  const statuses = new Map<number, number>();
  const path = (version: string, name = "") => `/apis/${CRD_GROUP}/${version}/namespaces/default/gears${name ? `/${name}` : ""}`;

  beforeAll(async () => {
    api = await startTestApiserver();
    wh = await startConversionWebhookServer(convertGear);
    const schema = (spec: Obj) => ({ openAPIV3Schema: { type: "object", properties: { spec: { type: "object", properties: spec } } } });
    const crd = await api.admin.post(crdPath(api.profile), {
      apiVersion: api.profile.apiVersion("apiextensions", "v1"),
      kind: "CustomResourceDefinition",
      metadata: { name: `gears.${CRD_GROUP}` },
      spec: {
        group: CRD_GROUP,
        scope: "Namespaced",
        names: { plural: "gears", singular: "gear", kind: "Gear" },
        versions: [
          { name: "v1", served: true, storage: true, schema: schema({ hostPort: { type: "string" } }) },
          { name: "v2", served: true, storage: false, schema: schema({ host: { type: "string" }, port: { type: "integer" } }) },
        ],
        conversion: { strategy: "Webhook", webhook: { conversionReviewVersions: ["v1", "v1beta1"], clientConfig: { url: `${wh.url}/convert`, caBundle: wh.caBundle } } },
      },
    });
    expect(crd.status, crd.text).toBe(201);
    await waitServed(api.admin, path("v2"), 10_000);
    const base = await api.admin.post(path("v1"), { apiVersion: `${CRD_GROUP}/v1`, kind: "Gear", metadata: { name: "base" }, spec: { hostPort: "db:5432" } });
    expect(base.status, base.text).toBe(201);
  }, 60_000);

  afterAll(async () => {
    process.stdout.write(`fuzz conversion: statuses ${JSON.stringify(Object.fromEntries(statuses))}\n`);
    await wh?.close();
    await api?.close();
  });

  it("every create and read in the non-storage version is a success, a Status below 500 or the platform's conversion failure", async () => {
    await fc.assert(
      fc.asyncProperty(arbitraryConversionAnswer(), fc.constantFrom("create", "get", "list"), async (generated, verb) => {
        wh.answer((review) => {
          const body = renderReview(generated, review.apiVersion, review.request.uid);
          const response = body.response as Record<string, unknown> | undefined;
          const right = (wh.converted(review).body as { response: { convertedObjects: unknown[] } }).response.convertedObjects;
          if (response && typeof response === "object" && response.convertedObjects === "all-same") response.convertedObjects = right;
          if (response && typeof response === "object" && Array.isArray(response.convertedObjects)) {
            response.convertedObjects = response.convertedObjects.map((c, i) => (c === "same" ? right[i % Math.max(1, right.length)] : c));
          }
          return { body };
        });
        const r =
          verb === "create"
            ? await api.admin.post(path("v2"), { apiVersion: `${CRD_GROUP}/v2`, kind: "Gear", metadata: { generateName: "fz-" }, spec: { host: "h", port: 1 } })
            : await api.admin.get(verb === "get" ? path("v2", "base") : path("v2"));
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        if (r.status === 200 || r.status === 201) return;
        const status = r.json<{ kind?: string; code?: number; message?: string }>();
        if (status.kind !== "Status" || status.code !== r.status) throw new Error(`${r.status} without a matching Status: ${r.text.slice(0, 300)}`);
        if (r.status < 500) return;
        const message = status.message ?? "";
        if (!message.startsWith("conversion webhook for ") && !message.startsWith("conversion for ")) throw new Error(`${r.status}: ${r.text.slice(0, 300)}`);
      }),
      { seed: SEED, numRuns: HTTP_RUNS, endOnFailure: true },
    );
    wh.answer();
    expect((await api.admin.get("/livez")).status).toBe(200);
    expect((await api.admin.get(path("v2", "base"))).status).toBe(200);
  }, 300_000);
});
