import { describe, expect, it } from "vitest";
import { getProfile } from "../../platform/index.ts";
import type { KindDefinition } from "../../schema/types.ts";
import { admit, defaultObject, deleteAt, loadSample, mutate, paths, sampleFile, setAt } from "../testing/sample-harness.ts";
import { kinds, tokenRequestKind } from "./authentication-v1.ts";

const profile = getProfile();
const all: KindDefinition[] = [...kinds, tokenRequestKind];
const byKind = (k: string): KindDefinition => {
  const d = all.find((x) => x.kind === k);
  if (!d) throw new Error(`no kind ${k}`);
  return d;
};
const sample = (k: string) => loadSample("authentication-v1", sampleFile(byKind(k)));
const errorPaths = (k: string, obj: Record<string, unknown>) => paths(admit(byKind(k), obj).errors);

describe("authentication/v1 kinds", () => {
  it("review kinds are virtual, cluster-scoped and create-only; TokenRequest is a namespaced subresource body", () => {
    expect(kinds.map((k) => k.kind)).toEqual(["TokenReview", "SelfSubjectReview"]);
    for (const k of all) {
      expect(k.virtual).toBe(true);
      expect(k.verbs).toEqual(["create"]);
      expect(k.tableColumns).toBeUndefined();
    }
    expect(kinds.every((k) => !k.namespaced)).toBe(true);
    expect(tokenRequestKind.namespaced).toBe(true);
  });

  it("uses the platform's protobuf field numbers", () => {
    const status = byKind("TokenReview").schema.properties?.status.properties ?? {};
    expect([status.authenticated.protoTag, status.user.protoTag, status.error.protoTag, status.audiences.protoTag]).toEqual([1, 2, 3, 4]);
    const spec = tokenRequestKind.schema.properties?.spec.properties ?? {};
    expect([spec.audiences.protoTag, spec.boundObjectRef.protoTag, spec.expirationSeconds.protoTag]).toEqual([1, 3, 4]);
    expect(byKind("SelfSubjectReview").schema.properties?.status.protoTag).toBe(2);
  });
});

describe("authentication/v1 samples", () => {
  for (const def of all) {
    it(`${def.kind}: decodes with no unknown fields and no errors; defaulting is idempotent`, () => {
      const obj = sample(def.kind);
      expect(obj.apiVersion).toBe(profile.apiVersion("authentication", "v1"));
      expect(obj.kind).toBe(def.kind);
      const { unknown, defaulted, errors } = admit(def, obj);
      expect(unknown).toEqual([]);
      expect(errors).toEqual([]);
      expect(defaultObject(def, defaulted)).toEqual(defaulted);
    });
  }

  it("TokenRequest expirationSeconds defaults to one hour", () => {
    const bare = mutate(sample("TokenRequest"), (o) => deleteAt(o, "spec.expirationSeconds"));
    expect((defaultObject(tokenRequestKind, bare).spec as Record<string, unknown>).expirationSeconds).toBe(3600);
    expect((defaultObject(tokenRequestKind, sample("TokenRequest")).spec as Record<string, unknown>).expirationSeconds).toBe(7200);
  });
});

describe("authentication/v1 rejects bad objects with the platform's field paths", () => {
  it("unknown nested field", () => {
    const bad = mutate(sample("TokenReview"), (o) => setAt(o, "spec.audience", ["x"]));
    expect(admit(byKind("TokenReview"), bad).unknown).toEqual(["spec.audience"]);
    const bad2 = mutate(sample("SelfSubjectReview"), (o) => setAt(o, "status.userInfo.name", "jane"));
    expect(admit(byKind("SelfSubjectReview"), bad2).unknown).toEqual(["status.userInfo.name"]);
  });

  it("wrong type", () => {
    expect(errorPaths("TokenReview", mutate(sample("TokenReview"), (o) => setAt(o, "spec.audiences", "x")))).toEqual(["spec.audiences"]);
    expect(errorPaths("TokenReview", mutate(sample("TokenReview"), (o) => setAt(o, "status.user.extra.scopes", "read")))).toEqual([
      "status.user.extra[scopes]",
    ]);
    expect(errorPaths("TokenRequest", mutate(sample("TokenRequest"), (o) => setAt(o, "spec.expirationSeconds", "2h")))).toEqual([
      "spec.expirationSeconds",
    ]);
  });

  it("missing required fields", () => {
    expect(errorPaths("TokenReview", mutate(sample("TokenReview"), (o) => deleteAt(o, "spec")))).toEqual(["spec"]);
    expect(errorPaths("TokenReview", mutate(sample("TokenReview"), (o) => deleteAt(o, "status.user.username")))).toEqual(["status.user.username"]);
    expect(errorPaths("TokenRequest", mutate(sample("TokenRequest"), (o) => deleteAt(o, "spec.audiences")))).toEqual(["spec.audiences"]);
  });

  it("TokenRequest lifetime bounds and bound object kinds", () => {
    const short = mutate(sample("TokenRequest"), (o) => setAt(o, "spec.expirationSeconds", 599));
    const e = admit(tokenRequestKind, short).errors;
    expect(paths(e)).toEqual(["spec.expirationSeconds"]);
    expect(e[0].message).toBe("Invalid value: 599: may not specify a duration less than 10 minutes");
    expect(errorPaths("TokenRequest", mutate(sample("TokenRequest"), (o) => setAt(o, "spec.expirationSeconds", 2 ** 32 + 1)))).toEqual([
      "spec.expirationSeconds",
    ]);
    expect(errorPaths("TokenRequest", mutate(sample("TokenRequest"), (o) => setAt(o, "spec.boundObjectRef.kind", "Deployment")))).toEqual([
      "spec.boundObjectRef.kind",
    ]);
  });
});
