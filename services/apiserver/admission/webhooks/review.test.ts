/**
 * The encoded AdmissionReview request is the same document as `reviewRequest` (a
 * table over operations, versions, subresources, dry run and an equivalent version),
 * and a memo encodes an object once for all the reviews of a phase.
 */
import { describe, expect, it } from "vitest";
import { getProfile } from "../../../../shared/platform/index.ts";
import type { JsonObject } from "../../storage/object.ts";
import type { Attributes, Operation } from "../interfaces.ts";
import { EncodedObjects, encodeReviewRequest, reviewRequest } from "./review.ts";

const profile = getProfile("kubernetes");
const configMap = (v: string): JsonObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", labels: { a: "\u0000\"quoted\"" } }, data: { v } });

function attributes(operation: Operation, over: Partial<Attributes> = {}): Attributes {
  return {
    operation,
    kind: { group: "", version: "v1", kind: "ConfigMap" },
    resource: { group: "", version: "v1", resource: "configmaps" },
    subresource: "",
    name: "c",
    namespace: "default",
    object: undefined,
    oldObject: undefined,
    options: undefined,
    userInfo: { username: "jane", uid: "1", groups: ["g"], extra: { scopes: ["x"] } },
    dryRun: false,
    namespaced: true,
    setObject: () => undefined,
    addWarning: () => undefined,
    addAnnotation: () => undefined,
    addAnnotationWithLevel: () => undefined,
    ...over,
  };
}

describe("encodeReviewRequest", () => {
  it.each<[string, string, Attributes, JsonObject | undefined, JsonObject | undefined, { version: string } | undefined]>([
    ["create v1", "v1", attributes("CREATE"), configMap("new"), undefined, undefined],
    ["update v1beta1", "v1beta1", attributes("UPDATE"), configMap("new"), configMap("old"), undefined],
    ["delete, dry run", "v1", attributes("DELETE", { dryRun: true }), undefined, configMap("old"), undefined],
    ["status subresource", "v1", attributes("UPDATE", { subresource: "status" }), configMap("new"), configMap("old"), undefined],
    ["connect with options", "v1", attributes("CONNECT", { options: { kind: "PodExecOptions", command: ["sh"] } }), undefined, undefined, undefined],
    ["as an equivalent version", "v1", attributes("CREATE"), configMap("new"), undefined, { version: "v2" }],
  ])("%s is the review request's document", (_name, version, a, object, oldObject, as) => {
    const text = encodeReviewRequest(profile, version, "uid-1", a, object, oldObject, new EncodedObjects(), as).text;
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(reviewRequest(profile, version, "uid-1", a, object, oldObject, as))));
  });

  it("encodes an object once for all the reviews sharing the memo", () => {
    const memo = new EncodedObjects();
    const old = configMap("old");
    let reads = 0;
    const counted = new Proxy(old, { get: (t, k, r) => (k === "data" && reads++, Reflect.get(t, k, r)) });
    const a = attributes("UPDATE");
    const first = encodeReviewRequest(profile, "v1", "u1", a, configMap("new"), counted, memo).text;
    const second = encodeReviewRequest(profile, "v1beta1", "u2", a, configMap("new"), counted, memo).text;
    expect(reads).toBe(1);
    expect(JSON.parse(second).request.oldObject).toEqual(JSON.parse(first).request.oldObject);
  });
});
