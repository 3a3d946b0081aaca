import { describe, expect, it } from "vitest";
import { conflicts, inWhitelist, parseSelectorMap } from "./pod-node-selector.ts";
import { setAlwaysPull, updateWithoutNewImages } from "./always-pull-images.ts";
import { changesOwnerReferences, newBlockingRefs, pluralOf } from "./owner-references-permission-enforcement.ts";
import { grows } from "./persistent-volume-claim-resize.ts";
import { addFinalizer } from "./storage-object-in-use-protection.ts";
import type { JsonObject } from "../../storage/object.ts";

describe("PodNodeSelector core", () => {
  it("parses selector maps", () => {
    expect(parseSelectorMap("a=1, b=2")).toEqual({ a: "1", b: "2" });
    expect(parseSelectorMap("")).toEqual({});
    expect(() => parseSelectorMap("a")).toThrow(/invalid selector/);
  });
  it.each<[Record<string, string>, Record<string, string>, boolean]>([
    [{ a: "1" }, { a: "1" }, false],
    [{ a: "1" }, { a: "2" }, true],
    [{ a: "1" }, { b: "2" }, false],
  ])("conflicts(%j, %j) = %s", (x, y, want) => expect(conflicts(x, y)).toBe(want));
  it("whitelists", () => {
    expect(inWhitelist({ a: "1" }, {})).toBe(true);
    expect(inWhitelist({ a: "1" }, { a: "1", b: "2" })).toBe(true);
    expect(inWhitelist({ a: "2" }, { a: "1" })).toBe(false);
  });
});

describe("AlwaysPullImages core", () => {
  it("sets Always everywhere and skips updates without new images", () => {
    const pod: JsonObject = { spec: { containers: [{ name: "a", image: "x", imagePullPolicy: "Never" }], initContainers: [{ name: "i", image: "y" }] } };
    setAlwaysPull(pod);
    expect(pod).toEqual({ spec: { containers: [{ name: "a", image: "x", imagePullPolicy: "Always" }], initContainers: [{ name: "i", image: "y", imagePullPolicy: "Always" }] } });
    const old = { spec: { containers: [{ name: "a", image: "x" }] } };
    expect(updateWithoutNewImages({ operation: "UPDATE", object: old, oldObject: old })).toBe(true);
    expect(updateWithoutNewImages({ operation: "UPDATE", object: { spec: { containers: [{ name: "a", image: "z" }] } }, oldObject: old })).toBe(false);
    expect(updateWithoutNewImages({ operation: "CREATE", object: old, oldObject: undefined })).toBe(false);
  });
});

describe("OwnerReferencesPermissionEnforcement core", () => {
  const ref = (uid: string, block?: boolean) => ({ apiVersion: "v1", kind: "ConfigMap", name: uid, uid, ...(block === undefined ? {} : { blockOwnerDeletion: block }) });
  const o = (...refs: JsonObject[]) => ({ metadata: { ownerReferences: refs } });
  it("detects changed and newly blocking references", () => {
    expect(changesOwnerReferences({ operation: "CREATE", object: o(), oldObject: undefined })).toBe(false);
    expect(changesOwnerReferences({ operation: "CREATE", object: o(ref("1")), oldObject: undefined })).toBe(true);
    expect(changesOwnerReferences({ operation: "UPDATE", object: o(ref("1")), oldObject: o(ref("1")) })).toBe(false);
    expect(newBlockingRefs(o(ref("1", true), ref("2", true)), o(ref("1", true)))).toEqual([ref("2", true)]);
    expect(newBlockingRefs(o(ref("1", false)), undefined)).toEqual([]);
  });
  it.each([["Pod", "pods"], ["Ingress", "ingresses"], ["NetworkPolicy", "networkpolicies"], ["Deployment", "deployments"], ["Gateway", "gateways"]])("plural of %s is %s", (k, p) => {
    expect(pluralOf(k)).toBe(p);
  });
});

describe("storage cores", () => {
  it("adds a finalizer once and sees growth", () => {
    const pvc: JsonObject = { metadata: { finalizers: ["x"] } };
    addFinalizer(pvc, "f");
    addFinalizer(pvc, "f");
    expect((pvc.metadata as JsonObject).finalizers).toEqual(["x", "f"]);
    const c = (s: string) => ({ spec: { resources: { requests: { storage: s } } } });
    expect(grows(c("2Gi"), c("1Gi"))).toBe(true);
    expect(grows(c("1024Mi"), c("1Gi"))).toBe(false);
  });
});
