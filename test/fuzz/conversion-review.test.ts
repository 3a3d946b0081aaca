/**
 * Seeded fuzzing of the ConversionReview answer checks of CRD conversion webhooks
 * (apiextensions/conversion-review.ts): for any answer — right, wrong in one field,
 * or garbage — reading the converted objects and merging them back either gives one
 * object per original, all in the desired version with the originals' identity, or
 * throws a ConversionFailure; nothing else, in bounded CPU time per case.
 * `FUZZ_SEED` replays a run; `LONG=1` (npm run test:long) runs 25× as many cases.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ConversionFailure, convertedObjectsOf, mergeConverted } from "../../services/apiserver/apiextensions/conversion-review.ts";
import type { JsonObject } from "../../services/apiserver/storage/object.ts";
import { cpuMs } from "./cpu-time.ts";
import { arbitraryConversionAnswer, renderReview } from "./review-arbitraries.ts";

const LONG = process.env.LONG === "1";
const SEED = Number(process.env.FUZZ_SEED ?? 20261125);
const RUNS = LONG ? 10_000 : 500;
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
