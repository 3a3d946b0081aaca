/**
 * The ConversionReview exchange of a CRD conversion webhook, as pure functions:
 *  - `reviewVersion`: the first of `conversionReviewVersions` this server speaks (v1, v1beta1);
 *  - `conversionReview`: the request body (uid, desiredAPIVersion, the objects to convert);
 *  - `convertedObjectsOf`: the checks of the answer (kind and apiVersion of the review for
 *    v1, a response, the same uid, result Success), returning `response.convertedObjects`;
 *  - `mergeConverted`: puts converted objects back in place of the originals, checking each
 *    (same count, the desired apiVersion, same kind, name, namespace and uid) and keeping
 *    the original metadata except labels and annotations, which the webhook may change
 *    (validated as on any write).
 * Failures are `ConversionFailure`s carrying the platform's message texts.
 */
import { aggregateFieldErrors } from "../../../shared/api/status.ts";
import { validateAnnotations, validateLabels } from "../../../shared/schema/object-meta.ts";
import { isObject, type JsonObject } from "../storage/object.ts";

export const SUPPORTED_REVIEW_VERSIONS = ["v1", "v1beta1"] as const;
export type ReviewVersion = (typeof SUPPORTED_REVIEW_VERSIONS)[number];

export class ConversionFailure extends Error {}

/** `<group>/<version>, Kind=<kind>` of an object, as the platform prints a GroupVersionKind. */
export function gvkText(obj: { apiVersion?: unknown; kind?: unknown }): string {
  const apiVersion = typeof obj.apiVersion === "string" ? obj.apiVersion : "";
  const gv = apiVersion.includes("/") ? apiVersion : `/${apiVersion}`;
  return `${gv}, Kind=${typeof obj.kind === "string" ? obj.kind : ""}`;
}

/** The first review version of the CRD's list that this server supports. */
export function reviewVersion(preferred: readonly unknown[]): ReviewVersion | undefined {
  for (const v of preferred) if ((SUPPORTED_REVIEW_VERSIONS as readonly unknown[]).includes(v)) return v as ReviewVersion;
  return undefined;
}

export function conversionReview(apiextensionsGroup: string, version: ReviewVersion, uid: string, desiredAPIVersion: string, objects: readonly JsonObject[]): JsonObject {
  return { apiVersion: `${apiextensionsGroup}/${version}`, kind: "ConversionReview", request: { uid, desiredAPIVersion, objects: [...objects] } };
}

/** The converted objects of a webhook's answer; throws the reason it cannot be used. */
export function convertedObjectsOf(answer: unknown, apiextensionsGroup: string, version: ReviewVersion, uid: string): unknown[] {
  const review = isObject(answer) ? answer : {};
  if (version === "v1") {
    const want = `${apiextensionsGroup}/v1, Kind=ConversionReview`;
    const got = gvkText(review);
    if (got !== want) throw new ConversionFailure(`expected webhook response of ${want}, got ${got}`);
  }
  const response = review.response;
  if (!isObject(response)) throw new ConversionFailure("no response provided");
  // v1beta1 answers were never checked for their uid; v1 answers are.
  if (version === "v1" && response.uid !== uid) {
    throw new ConversionFailure(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(typeof response.uid === "string" ? response.uid : "")}`);
  }
  const result = isObject(response.result) ? response.result : {};
  if (result.status !== "Success") {
    if (typeof result.message === "string" && result.message !== "") throw new ConversionFailure(result.message);
    throw new ConversionFailure(`response.result.status was '${typeof result.status === "string" ? result.status : ""}', not 'Success'`);
  }
  return Array.isArray(response.convertedObjects) ? response.convertedObjects : [];
}

function metaOf(obj: JsonObject): Record<string, unknown> {
  return isObject(obj.metadata) ? obj.metadata : {};
}

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/** The identity checks of one converted object against its original (kind, name, namespace, uid). */
function identityProblem(original: JsonObject, converted: JsonObject): string | undefined {
  const o = metaOf(original);
  const c = metaOf(converted);
  const pairs: Array<[string, string, string]> = [
    ["kind", str(original.kind), str(converted.kind)],
    ["name", str(o.name), str(c.name)],
    ["namespace", str(o.namespace), str(c.namespace)],
    ["UID", str(o.uid), str(c.uid)],
  ];
  for (const [what, e, a] of pairs) if (e !== a) return `must have the same ${what}: ${e} != ${a}`;
  return undefined;
}

/** The original metadata with the converted labels and annotations (validated when they changed). */
function restoredMeta(original: JsonObject, converted: JsonObject): Record<string, unknown> {
  const hadMeta = original.metadata !== undefined;
  if (converted.metadata === undefined) {
    if (hadMeta) throw new ConversionFailure("missing metadata in converted object");
    return {};
  }
  if (!isObject(converted.metadata)) throw new ConversionFailure(`invalid metadata of type ${typeof converted.metadata} in converted object`);
  const result: Record<string, unknown> = structuredClone(metaOf(original));
  for (const field of ["labels", "annotations"] as const) {
    const value = converted.metadata[field];
    if (value === undefined || value === null) {
      delete result[field];
      continue;
    }
    if (!isObject(value)) throw new ConversionFailure(`invalid metadata.${field} of type ${Array.isArray(value) ? "array" : typeof value} in converted object`);
    const before = isObject(result[field]) ? (result[field] as Record<string, unknown>) : {};
    let changed = Object.keys(before).length !== Object.keys(value).length;
    for (const [k, v] of Object.entries(value)) {
      if (typeof v !== "string") throw new ConversionFailure(`metadata.${field}[${k}] must be a string, but is ${v === null ? "nil" : typeof v} in converted object`);
      if (before[k] !== v) changed = true;
    }
    if (changed) {
      const strings = value as Record<string, string>;
      const errors = field === "labels" ? validateLabels(strings, "metadata.labels") : validateAnnotations(strings, "metadata.annotation");
      if (errors.length > 0) throw new ConversionFailure(aggregateFieldErrors(errors));
    }
    result[field] = structuredClone(value);
  }
  return result;
}

/**
 * `originals` with every object not yet in `desiredAPIVersion` replaced, in order, by the
 * next of `converted`; `source` names the input in messages (`gvkText`).
 */
export function mergeConverted(originals: readonly JsonObject[], converted: readonly unknown[], desiredAPIVersion: string, source: string): JsonObject[] {
  const sent = originals.filter((o) => o.apiVersion !== desiredAPIVersion).length;
  if (converted.length !== sent) throw new ConversionFailure(`conversion for ${source} returned ${converted.length} objects, expected ${sent}`);
  let index = 0;
  return originals.map((original) => {
    if (original.apiVersion === desiredAPIVersion) return original;
    const raw = converted[index++];
    const at = `conversion for ${source} returned invalid converted object at index ${index}`;
    if (!isObject(raw)) throw new ConversionFailure(`${at}: the object is not a JSON object`);
    const out = structuredClone(raw) as JsonObject;
    if (out.apiVersion !== desiredAPIVersion) throw new ConversionFailure(`${at}: invalid groupVersion (expected ${desiredAPIVersion}, received ${str(out.apiVersion)})`);
    if (out.kind !== original.kind) throw new ConversionFailure(`${at}: invalid kind (expected ${str(original.kind)}, received ${str(out.kind)})`);
    const problem = identityProblem(original, out);
    if (problem) throw new ConversionFailure(`${at}: ${problem}`);
    try {
      out.metadata = restoredMeta(original, out);
    } catch (err) {
      throw new ConversionFailure(`conversion for ${source} returned invalid metadata in object at index ${index}: ${(err as Error).message}`);
    }
    return out;
  });
}
