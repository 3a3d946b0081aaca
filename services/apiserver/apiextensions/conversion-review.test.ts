import { describe, expect, it } from "vitest";
import { ConversionFailure, conversionReview, convertedObjectsOf, gvkText, mergeConverted, reviewVersion } from "./conversion-review.ts";

const AX = "apiextensions.example.io";
const UID = "0f0e0d0c-0000-4000-8000-000000000001";
const obj = (name: string, apiVersion = "g.example.com/v1", extra: Record<string, unknown> = {}) => ({ apiVersion, kind: "Gear", metadata: { name, namespace: "ns", uid: `uid-${name}`, resourceVersion: "7", labels: { a: "1" } }, ...extra });
const answer = (response: Record<string, unknown>, apiVersion = `${AX}/v1`) => ({ apiVersion, kind: "ConversionReview", response: { uid: UID, result: { status: "Success" }, convertedObjects: [], ...response } });

describe("reviewVersion", () => {
  it.each([
    [["v1", "v1beta1"], "v1"],
    [["v1beta1", "v1"], "v1beta1"],
    [["v2", "v1"], "v1"],
    [["v2"], undefined],
    [[], undefined],
  ])("%j → %s", (preferred, want) => expect(reviewVersion(preferred)).toBe(want));
});

describe("conversionReview and gvkText", () => {
  it("builds the request with uid, desiredAPIVersion and the objects", () => {
    expect(conversionReview(AX, "v1beta1", UID, "g.example.com/v2", [obj("a")])).toEqual({ apiVersion: `${AX}/v1beta1`, kind: "ConversionReview", request: { uid: UID, desiredAPIVersion: "g.example.com/v2", objects: [obj("a")] } });
  });
  it.each([
    [{ apiVersion: "g.example.com/v1", kind: "Gear" }, "g.example.com/v1, Kind=Gear"],
    [{ apiVersion: "v1", kind: "Pod" }, "/v1, Kind=Pod"],
    [{}, "/, Kind="],
  ])("%j → %s", (o, want) => expect(gvkText(o)).toBe(want));
});

describe("convertedObjectsOf", () => {
  const cases: Array<[string, unknown, "v1" | "v1beta1", string | unknown[]]> = [
    ["a v1 success", answer({ convertedObjects: [1, 2] }), "v1", [1, 2]],
    ["another review kind", { ...answer({}), kind: "AdmissionReview" }, "v1", `expected webhook response of ${AX}/v1, Kind=ConversionReview, got ${AX}/v1, Kind=AdmissionReview`],
    ["no response", { apiVersion: `${AX}/v1`, kind: "ConversionReview" }, "v1", "no response provided"],
    ["another uid", answer({ uid: "x" }), "v1", `expected response.uid="${UID}", got "x"`],
    ["a v1beta1 answer is not checked for its uid", answer({ uid: "x", convertedObjects: [3] }, `${AX}/v1beta1`), "v1beta1", [3]],
    ["a failure with a message", answer({ result: { status: "Failure", message: "nope" } }), "v1", "nope"],
    ["a failure without one", answer({ result: { status: "Failure" } }), "v1", "response.result.status was 'Failure', not 'Success'"],
    ["no result", answer({ result: undefined }), "v1", "response.result.status was '', not 'Success'"],
    ["not an object", "garbage", "v1", `expected webhook response of ${AX}/v1, Kind=ConversionReview, got /, Kind=`],
  ];
  it.each(cases)("%s", (_name, input, version, want) => {
    if (typeof want === "string") expect(() => convertedObjectsOf(input, AX, version, UID)).toThrow(new ConversionFailure(want));
    else expect(convertedObjectsOf(input, AX, version, UID)).toEqual(want);
  });
});

describe("mergeConverted", () => {
  const to = "g.example.com/v2";
  const src = "g.example.com/v1, Kind=Gear";
  const converted = (name: string, changes: Record<string, unknown> = {}, metaChanges: Record<string, unknown> = {}) => {
    const o = obj(name, to, { spec: { converted: true } }) as Record<string, unknown> & { metadata: Record<string, unknown> };
    return { ...o, ...changes, metadata: { ...o.metadata, ...metaChanges } };
  };

  it("puts converted objects in place of those sent, keeps those already in the version", () => {
    const already = obj("b", to);
    const out = mergeConverted([obj("a"), already, obj("c")], [converted("a"), converted("c")], to, src);
    expect(out.map((o) => [o.metadata, o.apiVersion])).toEqual([
      [obj("a").metadata, to],
      [already.metadata, to],
      [obj("c").metadata, to],
    ]);
    expect(out[1]).toBe(already);
  });

  it("keeps changed labels and annotations, restores the rest of the metadata", () => {
    const [out] = mergeConverted([obj("a")], [converted("a", {}, { labels: { b: "2" }, annotations: { n: "x" }, resourceVersion: "99", generation: 5 })], to, src);
    expect(out.metadata).toEqual({ ...obj("a").metadata, labels: { b: "2" }, annotations: { n: "x" } });
  });

  const bad: Array<[string, unknown[], string]> = [
    ["too few", [], `conversion for ${src} returned 0 objects, expected 1`],
    ["not an object", [7], `conversion for ${src} returned invalid converted object at index 1: the object is not a JSON object`],
    ["the wrong version", [converted("a", { apiVersion: "g.example.com/v1" })], `conversion for ${src} returned invalid converted object at index 1: invalid groupVersion (expected ${to}, received g.example.com/v1)`],
    ["another kind", [converted("a", { kind: "Cog" })], `conversion for ${src} returned invalid converted object at index 1: invalid kind (expected Gear, received Cog)`],
    ["another name", [converted("a", {}, { name: "z" })], `conversion for ${src} returned invalid converted object at index 1: must have the same name: a != z`],
    ["another namespace", [converted("a", {}, { namespace: "other" })], `conversion for ${src} returned invalid converted object at index 1: must have the same namespace: ns != other`],
    ["another uid", [converted("a", {}, { uid: "u" })], `conversion for ${src} returned invalid converted object at index 1: must have the same UID: uid-a != u`],
    ["no metadata", [{ apiVersion: to, kind: "Gear" }], `conversion for ${src} returned invalid converted object at index 1: must have the same name: a != `],
    ["a label that is not a string", [converted("a", {}, { labels: { a: 1 } })], `conversion for ${src} returned invalid metadata in object at index 1: metadata.labels[a] must be a string, but is number in converted object`],
  ];
  it.each(bad)("refuses %s", (_name, convertedObjects, message) => {
    expect(() => mergeConverted([obj("a")], convertedObjects, to, src)).toThrow(new ConversionFailure(message));
  });

  it("refuses an invalid label key", () => {
    expect(() => mergeConverted([obj("a")], [converted("a", {}, { labels: { "bad key": "v" } })], to, src)).toThrow(/returned invalid metadata in object at index 1: metadata\.labels: Invalid value: "bad key"/);
  });
});
