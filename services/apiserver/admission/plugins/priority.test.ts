import { describe, expect, it } from "vitest";
import type { JsonObject } from "../../storage/object.ts";
import { applyPriority, defaultPriorityClass, systemPriorityClass } from "./priority.ts";

const pc = (name: string, value: number, globalDefault = false): JsonObject => ({ metadata: { name }, value, globalDefault, preemptionPolicy: "PreemptLowerPriority" });

describe("Priority core", () => {
  it("picks the lowest-valued global default", () => {
    expect(defaultPriorityClass([pc("a", 10), pc("b", 5)])).toBeUndefined();
    expect((defaultPriorityClass([pc("a", 10, true), pc("b", 5, true), pc("c", 1)])?.metadata as JsonObject).name).toBe("b");
  });

  it("knows the two system classes", () => {
    expect(systemPriorityClass("system-node-critical")?.value).toBe(2000001000);
    expect(systemPriorityClass("system-cluster-critical")?.value).toBe(2000000000);
    expect(systemPriorityClass("system-other")).toBeUndefined();
  });

  it.each<[string, JsonObject, { className: string; value: number; preemptionPolicy?: string }, string | undefined, JsonObject]>([
    ["sets priority and policy", {}, { className: "hi", value: 7, preemptionPolicy: "Never" }, undefined, { priorityClassName: "hi", priority: 7, preemptionPolicy: "Never" }],
    ["no default class", {}, { className: "", value: 0, preemptionPolicy: "PreemptLowerPriority" }, undefined, { priority: 0, preemptionPolicy: "PreemptLowerPriority" }],
    ["same priority given", { priority: 7 }, { className: "hi", value: 7 }, undefined, { priorityClassName: "hi", priority: 7 }],
    [
      "other priority given",
      { priority: 3 },
      { className: "hi", value: 7 },
      "the integer value of priority (3) must not be provided in pod spec; priority admission controller computed 7 from the given PriorityClass name",
      { priority: 3 },
    ],
    [
      "other policy given",
      { preemptionPolicy: "Never" },
      { className: "hi", value: 7, preemptionPolicy: "PreemptLowerPriority" },
      "the string value of PreemptionPolicy (Never) must not be provided in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name",
      { preemptionPolicy: "Never" },
    ],
  ])("%s", (_n, spec, r, err, want) => {
    const pod: JsonObject = { spec: { ...spec } };
    expect(applyPriority(pod, { preemptionPolicy: undefined, ...r })).toBe(err);
    expect(pod.spec).toEqual(want);
  });
});
