import { describe, expect, it } from "vitest";
import type { JsonObject } from "../../storage/object.ts";
import { applyRuntimeClass, isSuperset, mergeTolerations, overheadViolation, sameResources } from "./runtime-class.ts";

describe("RuntimeClass core", () => {
  it("compares resource lists by quantity", () => {
    expect(sameResources({ cpu: "100m", memory: "1Gi" }, { cpu: "0.1", memory: "1024Mi" })).toBe(true);
    expect(sameResources({ cpu: "100m" }, { cpu: "100m", memory: "1" })).toBe(false);
    expect(sameResources({ cpu: "100m" }, { cpu: "101m" })).toBe(false);
  });

  it.each<[string, JsonObject, JsonObject, string | undefined, JsonObject]>([
    ["sets the overhead", {}, { overhead: { podFixed: { cpu: "250m" } } }, undefined, { overhead: { cpu: "250m" } }],
    ["equal overhead given", { overhead: { cpu: "0.25" } }, { overhead: { podFixed: { cpu: "250m" } } }, undefined, { overhead: { cpu: "250m" } }],
    ["different overhead given", { overhead: { cpu: "1" } }, { overhead: { podFixed: { cpu: "250m" } } }, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead", { overhead: { cpu: "1" } }],
    ["node selector set", {}, { scheduling: { nodeSelector: { a: "1" } } }, undefined, { nodeSelector: { a: "1" } }],
    ["node selector merged", { nodeSelector: { b: "2", a: "1" } }, { scheduling: { nodeSelector: { a: "1" } } }, undefined, { nodeSelector: { b: "2", a: "1" } }],
    ["node selector conflict", { nodeSelector: { a: "2" } }, { scheduling: { nodeSelector: { a: "1" } } }, "conflict: runtimeClass.scheduling.nodeSelector[a] = 1; pod.spec.nodeSelector[a] = 2", { nodeSelector: { a: "2" } }],
    [
      "tolerations merged",
      { tolerations: [{ key: "x", operator: "Equal", value: "1", effect: "NoSchedule" }] },
      { scheduling: { tolerations: [{ key: "x", operator: "Exists" }, { key: "y", operator: "Exists", effect: "NoSchedule" }] } },
      undefined,
      { tolerations: [{ key: "x", operator: "Exists" }, { key: "y", operator: "Exists", effect: "NoSchedule" }] },
    ],
  ])("%s", (_n, spec, rc, err, want) => {
    const pod: JsonObject = { spec: { ...spec } };
    expect(applyRuntimeClass(pod, rc)).toBe(err);
    expect(pod.spec).toEqual(want);
  });

  it.each<[JsonObject, JsonObject | undefined, string | undefined]>([
    [{}, undefined, undefined],
    [{ overhead: { cpu: "1" } }, undefined, "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead"],
    [{ overhead: { cpu: "1" } }, { overhead: { podFixed: { cpu: "1000m" } } }, undefined],
    [{}, { overhead: { podFixed: { cpu: "1" } } }, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"],
  ])("overhead of %j against %j", (spec, rc, want) => {
    expect(overheadViolation({ spec }, rc)).toBe(want);
  });

  it("toleration supersets", () => {
    expect(isSuperset({ operator: "Exists" }, { key: "a", operator: "Equal", value: "v" })).toBe(true);
    expect(isSuperset({ key: "a", operator: "Exists", effect: "NoExecute", tolerationSeconds: 10 }, { key: "a", operator: "Exists", effect: "NoExecute" })).toBe(false);
    expect(isSuperset({ key: "a", operator: "Exists", effect: "NoExecute" }, { key: "a", operator: "Exists", effect: "NoExecute", tolerationSeconds: 10 })).toBe(true);
    expect(isSuperset({ key: "a", value: "v" }, { key: "a", operator: "Equal", value: "v" })).toBe(true);
    expect(mergeTolerations([{ key: "a", operator: "Exists" }], [{ key: "a", operator: "Exists" }])).toEqual([{ key: "a", operator: "Exists" }]);
  });
});
