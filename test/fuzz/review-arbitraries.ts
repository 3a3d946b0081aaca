/**
 * fast-check generators of what an admission webhook or a CRD conversion webhook
 * may answer: review documents built from descriptors (so the request's uid can be
 * echoed or not at answer time), with fields of the right type most of the time and
 * anything now and then, JSONPatches that apply, fail or amplify, and raw garbage.
 */
import fc from "fast-check";

/** Any JSON value now and then instead of the right shape. */
function mostly<T>(right: fc.Arbitrary<T>, weight = 5): fc.Arbitrary<unknown> {
  return fc.oneof({ weight, arbitrary: right }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) });
}

const pointer = fc.oneof(
  fc.constantFrom("/data/a", "/data", "/data/new", "/metadata/labels/x", "/metadata/labels", "/metadata/name", "/metadata/namespace", "/metadata/uid", "/metadata", "/kind", "/apiVersion", "", "/data/~1x", "/binaryData/b"),
  fc.string({ maxLength: 16 }),
);

const operation = fc.record(
  { op: fc.constantFrom("add", "remove", "replace", "move", "copy", "test", "bogus"), path: mostly(pointer), from: mostly(pointer), value: fc.jsonValue({ maxDepth: 3 }) },
  { requiredKeys: ["op"] },
);

/** One `add` of a 1 KiB map, then copies of the map into itself (2^n KiB if unbounded). */
function amplifying(copies: number): unknown[] {
  const seed: Record<string, string> = {};
  for (let i = 0; i < 16; i++) seed[`k${i}`] = "x".repeat(60);
  const ops: unknown[] = [{ op: "add", path: "/metadata/annotations", value: seed }];
  for (let i = 0; i < copies; i++) ops.push({ op: "copy", from: "/metadata/annotations", path: `/metadata/annotations/c${i}` });
  return ops;
}

/** The `patch` field: base64 of operation lists (small, amplifying, over the operation cap), of other JSON, or not base64. */
const patchField: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.array(operation, { maxLength: 8 }).map((ops) => Buffer.from(JSON.stringify(ops)).toString("base64")) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 40 }).map((n) => Buffer.from(JSON.stringify(amplifying(n))).toString("base64")) },
  { weight: 1, arbitrary: fc.integer({ min: 9_999, max: 10_002 }).map((n) => Buffer.from(JSON.stringify(Array.from({ length: n }, () => ({ op: "test", path: "/kind", value: "ConfigMap" })))).toString("base64")) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => Buffer.from(JSON.stringify(v)).toString("base64")) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);

/** Status codes a webhook may put in a denial, the odd ones included. */
const code = fc.oneof(fc.constantFrom(400, 403, 404, 409, 422, 429, 500, 503, 599, 600, 999, 1000, 399, 200, 0, -1, 4.5, 1e12), fc.integer());

export interface ReviewAnswer {
  /** `same`: the request's apiVersion; otherwise the value sent. */
  apiVersion: unknown;
  kind: unknown;
  /** `same`: the request's uid; otherwise the value sent (absent when undefined). */
  uid: unknown;
  response: Record<string, unknown> | unknown;
}

export type WebhookAnswer = { review: ReviewAnswer } | { raw: string; status: number };

/** What an admission webhook answers: AdmissionReview documents and raw replies. */
export function arbitraryAdmissionAnswer(): fc.Arbitrary<WebhookAnswer> {
  const response = fc.record(
    {
      allowed: mostly(fc.boolean(), 8),
      status: mostly(fc.record({ code, message: fc.string({ maxLength: 60 }), reason: fc.constantFrom("", "Forbidden", "Invalid", "x"), status: fc.constantFrom("Failure", "Success") }, { requiredKeys: [] })),
      patch: patchField,
      patchType: mostly(fc.constantFrom("JSONPatch", "JSONPatch", "MergePatch", "")),
      warnings: mostly(fc.array(fc.oneof(fc.string({ maxLength: 40 }), fc.jsonValue({ maxDepth: 1 })), { maxLength: 3 })),
      auditAnnotations: mostly(fc.dictionary(fc.string({ maxLength: 20 }), fc.oneof(fc.string({ maxLength: 20 }), fc.jsonValue({ maxDepth: 1 })), { maxKeys: 3 })),
    },
    { requiredKeys: ["allowed"] },
  );
  const review = fc.record({
    apiVersion: fc.oneof({ weight: 8, arbitrary: fc.constant("same") }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) }),
    kind: fc.oneof({ weight: 8, arbitrary: fc.constant("AdmissionReview") }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) }),
    uid: fc.oneof({ weight: 8, arbitrary: fc.constant("same") }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) }),
    response: mostly(response, 10),
  });
  return fc.oneof(
    { weight: 8, arbitrary: review.map((r) => ({ review: r })) },
    { weight: 1, arbitrary: fc.tuple(fc.oneof(fc.string({ maxLength: 100 }), fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v))), fc.constantFrom(200, 201, 204, 400, 500, 302)).map(([raw, status]) => ({ raw, status })) },
  );
}

/**
 * What a conversion webhook answers: ConversionReview documents whose converted objects
 * are right (`same` for one, `all-same` for the whole list, filled in at answer time),
 * wrong or garbage.
 */
export function arbitraryConversionAnswer(): fc.Arbitrary<ReviewAnswer> {
  const converted = fc.oneof(
    { weight: 4, arbitrary: fc.constant("same") },
    {
      weight: 3,
      arbitrary: fc.record(
        {
          apiVersion: mostly(fc.constantFrom("example.test/v2", "example.test/v1", "")),
          kind: mostly(fc.constantFrom("Widget", "Gadget")),
          metadata: mostly(fc.record({ name: mostly(fc.constantFrom("w", "x")), namespace: mostly(fc.constantFrom("default", "other")), uid: fc.string({ maxLength: 8 }), labels: mostly(fc.dictionary(fc.string({ maxLength: 70 }), fc.string({ maxLength: 70 }), { maxKeys: 2 })), annotations: mostly(fc.dictionary(fc.string({ maxLength: 30 }), fc.string({ maxLength: 30 }), { maxKeys: 2 })) }, { requiredKeys: [] })),
          spec: fc.jsonValue({ maxDepth: 2 }),
        },
        { requiredKeys: [] },
      ),
    },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  );
  const response = fc.record(
    {
      result: fc.oneof(
        { weight: 6, arbitrary: fc.constant({ status: "Success" }) },
        { weight: 4, arbitrary: mostly(fc.record({ status: mostly(fc.constantFrom("Success", "Failure", "")), message: mostly(fc.string({ maxLength: 30 })) }, { requiredKeys: [] })) },
      ),
      // `all-same`: every object rightly converted (filled in at answer time).
      convertedObjects: fc.oneof({ weight: 6, arbitrary: fc.constant("all-same") }, { weight: 4, arbitrary: mostly(fc.array(converted, { maxLength: 3 })) }),
    },
    { requiredKeys: ["result", "convertedObjects"] },
  );
  return fc.record({
    apiVersion: fc.oneof({ weight: 8, arbitrary: fc.constant("same") }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) }),
    kind: fc.oneof({ weight: 8, arbitrary: fc.constant("ConversionReview") }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) }),
    uid: fc.oneof({ weight: 8, arbitrary: fc.constant("same") }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) }),
    response: mostly(response, 10),
  });
}

/** The answer document for a request of `apiVersion` and `uid`. */
export function renderReview(a: ReviewAnswer, apiVersion: string, uid: string): Record<string, unknown> {
  const response = typeof a.response === "object" && a.response !== null && !Array.isArray(a.response) ? { ...(a.response as Record<string, unknown>) } : a.response;
  if (typeof response === "object" && response !== null && !Array.isArray(response) && a.uid !== undefined) (response as Record<string, unknown>).uid = a.uid === "same" ? uid : a.uid;
  return { apiVersion: a.apiVersion === "same" ? apiVersion : a.apiVersion, kind: a.kind, response };
}
