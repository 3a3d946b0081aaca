import { describe, expect, it } from "vitest";
import { getProfile } from "../../platform/index.ts";
import type { KindDefinition } from "../../schema/types.ts";
import { admit, defaultObject, deleteAt, loadSample, mutate, paths, sampleFile, setAt } from "../testing/sample-harness.ts";
import { kinds } from "./authorization-v1.ts";

const profile = getProfile();
const byKind = (k: string): KindDefinition => {
  const d = kinds.find((x) => x.kind === k);
  if (!d) throw new Error(`no kind ${k}`);
  return d;
};
const sample = (k: string) => loadSample("authorization-v1", sampleFile(byKind(k)));
const errorPaths = (k: string, obj: Record<string, unknown>) => paths(admit(byKind(k), obj).errors);

describe("authorization/v1 kinds", () => {
  it("declares the four virtual, create-only review kinds; only LocalSubjectAccessReview is namespaced", () => {
    expect(kinds.map((k) => [k.kind, k.plural, k.namespaced])).toEqual([
      ["SubjectAccessReview", "subjectaccessreviews", false],
      ["LocalSubjectAccessReview", "localsubjectaccessreviews", true],
      ["SelfSubjectAccessReview", "selfsubjectaccessreviews", false],
      ["SelfSubjectRulesReview", "selfsubjectrulesreviews", false],
    ]);
    for (const k of kinds) {
      expect(k.virtual).toBe(true);
      expect(k.verbs).toEqual(["create"]);
    }
  });

  it("uses the platform's protobuf field numbers", () => {
    const spec = byKind("SubjectAccessReview").schema.properties?.spec.properties ?? {};
    expect(Object.fromEntries(Object.entries(spec).map(([k, v]) => [k, v.protoTag]))).toEqual({
      resourceAttributes: 1,
      nonResourceAttributes: 2,
      user: 3,
      groups: 4,
      extra: 5,
      uid: 6,
    });
    const ra = spec.resourceAttributes.properties ?? {};
    expect([ra.namespace, ra.verb, ra.group, ra.version, ra.resource, ra.subresource, ra.name, ra.fieldSelector, ra.labelSelector].map((s) => s.protoTag)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9,
    ]);
    const status = byKind("SubjectAccessReview").schema.properties?.status.properties ?? {};
    expect([status.allowed.protoTag, status.reason.protoTag, status.evaluationError.protoTag, status.denied.protoTag]).toEqual([1, 2, 3, 4]);
  });
});

describe("authorization/v1 samples", () => {
  for (const def of kinds) {
    it(`${def.kind}: decodes with no unknown fields and no errors; defaulting is idempotent`, () => {
      const obj = sample(def.kind);
      expect(obj.apiVersion).toBe(profile.apiVersion("authorization", "v1"));
      expect(obj.kind).toBe(def.kind);
      const { unknown, defaulted, errors } = admit(def, obj);
      expect(unknown).toEqual([]);
      expect(errors).toEqual([]);
      expect(defaultObject(def, defaulted)).toEqual(defaulted);
      // Reviews have no defaults.
      expect(defaulted).toEqual(obj);
    });
  }
});

describe("authorization/v1 rejects bad objects with the platform's field paths", () => {
  it("unknown nested field (v1beta1's `group` is `groups` in v1)", () => {
    const bad = mutate(sample("SubjectAccessReview"), (o) => setAt(o, "spec.group", ["admins"]));
    expect(admit(byKind("SubjectAccessReview"), bad).unknown).toEqual(["spec.group"]);
    const bad2 = mutate(sample("SubjectAccessReview"), (o) => setAt(o, "spec.resourceAttributes.labelSelector.requirements[0].op", "In"));
    expect(admit(byKind("SubjectAccessReview"), bad2).unknown).toEqual(["spec.resourceAttributes.labelSelector.requirements[0].op"]);
  });

  it("wrong type", () => {
    expect(errorPaths("SubjectAccessReview", mutate(sample("SubjectAccessReview"), (o) => setAt(o, "spec.groups", "admins")))).toEqual(["spec.groups"]);
    expect(errorPaths("SelfSubjectAccessReview", mutate(sample("SelfSubjectAccessReview"), (o) => setAt(o, "status.allowed", "yes")))).toEqual([
      "status.allowed",
    ]);
  });

  it("missing required fields", () => {
    expect(errorPaths("SelfSubjectRulesReview", mutate(sample("SelfSubjectRulesReview"), (o) => deleteAt(o, "spec")))).toEqual(["spec"]);
    expect(errorPaths("SubjectAccessReview", mutate(sample("SubjectAccessReview"), (o) => deleteAt(o, "status.allowed")))).toEqual(["status.allowed"]);
    expect(
      errorPaths("SubjectAccessReview", mutate(sample("SubjectAccessReview"), (o) => deleteAt(o, "spec.resourceAttributes.fieldSelector.requirements[0].operator"))),
    ).toEqual(["spec.resourceAttributes.fieldSelector.requirements[0].operator"]);
    // Neither user nor groups.
    const anon = mutate(sample("SubjectAccessReview"), (o) => {
      deleteAt(o, "spec.user");
      deleteAt(o, "spec.groups");
    });
    expect(errorPaths("SubjectAccessReview", anon)).toEqual(["spec.user"]);
  });

  it("bad enum", () => {
    const bad = mutate(sample("SubjectAccessReview"), (o) => setAt(o, "spec.resourceAttributes.fieldSelector.requirements[0].operator", "Gt"));
    const e = admit(byKind("SubjectAccessReview"), bad).errors;
    expect(paths(e)).toEqual(["spec.resourceAttributes.fieldSelector.requirements[0].operator"]);
    expect(e[0].type).toBe("FieldValueNotSupported");
  });

  it("exactly one of resourceAttributes and nonResourceAttributes", () => {
    const both = mutate(sample("SelfSubjectAccessReview"), (o) => setAt(o, "spec.resourceAttributes", { verb: "get", resource: "pods" }));
    expect(errorPaths("SelfSubjectAccessReview", both)).toEqual(["spec.nonResourceAttributes"]);
    const none = mutate(sample("SelfSubjectAccessReview"), (o) => deleteAt(o, "spec.nonResourceAttributes"));
    expect(errorPaths("SelfSubjectAccessReview", none)).toEqual(["spec.resourceAttributes"]);
  });

  it("selector requirements and raw selectors", () => {
    const both = mutate(sample("SubjectAccessReview"), (o) => setAt(o, "spec.resourceAttributes.labelSelector.rawSelector", "tier=frontend"));
    expect(errorPaths("SubjectAccessReview", both)).toEqual(["spec.resourceAttributes.labelSelector.rawSelector"]);
    const noValues = mutate(sample("SubjectAccessReview"), (o) => setAt(o, "spec.resourceAttributes.labelSelector.requirements[0].values", []));
    expect(errorPaths("SubjectAccessReview", noValues)).toEqual(["spec.resourceAttributes.labelSelector.requirements[0].values"]);
    const extraValues = mutate(sample("SubjectAccessReview"), (o) => setAt(o, "spec.resourceAttributes.fieldSelector.requirements[0].values", ["a"]));
    expect(errorPaths("SubjectAccessReview", extraValues)).toEqual(["spec.resourceAttributes.fieldSelector.requirements[0].values"]);
  });

  it("metadata must be empty (LocalSubjectAccessReview: except the namespace, which must match)", () => {
    const named = mutate(sample("SubjectAccessReview"), (o) => setAt(o, "metadata", { name: "check" }));
    expect(errorPaths("SubjectAccessReview", named)).toEqual(["metadata"]);
    const local = sample("LocalSubjectAccessReview");
    const otherNs = mutate(local, (o) => setAt(o, "spec.resourceAttributes.namespace", "team-b"));
    expect(errorPaths("LocalSubjectAccessReview", otherNs)).toEqual(["spec.resourceAttributes.namespace"]);
    const nonResource = mutate(local, (o) => setAt(o, "spec", { user: "jane", nonResourceAttributes: { path: "/healthz", verb: "get" } }));
    expect(errorPaths("LocalSubjectAccessReview", nonResource)).toEqual(["spec.nonResourceAttributes"]);
  });
});
