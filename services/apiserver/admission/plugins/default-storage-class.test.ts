import { describe, expect, it } from "vitest";
import { getProfile } from "../../../../shared/platform/index.ts";
import type { JsonObject } from "../../storage/object.ts";
import { defaultStorageClass, hasClass } from "./default-storage-class.ts";
import { defaultIngressClass, needsIngressClass } from "./default-ingress-class.ts";

const p = getProfile("plat");
const sc = (name: string, ts: string, ann: Record<string, string> = {}): JsonObject => ({ metadata: { name, creationTimestamp: ts, annotations: ann } });
const DEF = { [p.admission.defaultStorageClass]: "true" };
const BETA = { [p.admission.defaultStorageClassBeta]: "true" };

describe("DefaultStorageClass core", () => {
  it.each<[string, JsonObject[], string | undefined]>([
    ["none", [sc("a", "2025-01-01T00:00:00Z")], undefined],
    ["false annotation", [sc("a", "2025-01-01T00:00:00Z", { [p.admission.defaultStorageClass]: "false" })], undefined],
    ["one default", [sc("a", "2025-01-01T00:00:00Z"), sc("b", "2025-01-01T00:00:00Z", DEF)], "b"],
    ["beta annotation", [sc("a", "2025-01-01T00:00:00Z", BETA)], "a"],
    ["newest wins", [sc("old", "2025-01-01T00:00:00Z", DEF), sc("new", "2025-02-01T00:00:00Z", DEF)], "new"],
    ["same time: name order", [sc("z", "2025-01-01T00:00:00Z", DEF), sc("m", "2025-01-01T00:00:00Z", DEF)], "m"],
  ])("%s", (_n, classes, want) => {
    expect((defaultStorageClass(classes, p)?.metadata as JsonObject | undefined)?.name).toBe(want);
  });

  it.each<[JsonObject, boolean]>([
    [{ spec: {} }, false],
    [{ spec: { storageClassName: "" } }, true],
    [{ spec: { storageClassName: "fast" } }, true],
    [{ metadata: { annotations: { [p.admission.pvcStorageClassBeta]: "x" } }, spec: {} }, true],
  ])("claim %j has a class: %s", (pvc, want) => {
    expect(hasClass(pvc, p)).toBe(want);
  });
});

describe("DefaultIngressClass core", () => {
  const IDEF = { [p.admission.defaultIngressClass]: "true" };
  it("picks the newest default class", () => {
    const classes = [sc("a", "2025-01-01T00:00:00Z", IDEF), sc("b", "2025-03-01T00:00:00Z", IDEF), sc("c", "2025-04-01T00:00:00Z")];
    expect((defaultIngressClass(classes, p)?.metadata as JsonObject).name).toBe("b");
    expect(defaultIngressClass([sc("c", "2025-04-01T00:00:00Z")], p)).toBeUndefined();
  });
  it.each<[JsonObject, boolean]>([
    [{ spec: {} }, true],
    [{ spec: { ingressClassName: "x" } }, false],
    [{ metadata: { annotations: { [p.admission.ingressClassAnnotation]: "nginx" } }, spec: {} }, false],
  ])("ingress %j needs a class: %s", (ing, want) => {
    expect(needsIngressClass(ing, p)).toBe(want);
  });
});
