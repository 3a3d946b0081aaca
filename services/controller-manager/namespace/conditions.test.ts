import { describe, expect, it } from "vitest";
import { conditionsDiffer, deletionConditions, type DeletionPass, type NamespaceCondition } from "./conditions.ts";

const clean: DeletionPass = { discoveryFailures: new Map(), contentErrors: [], remaining: new Map(), finalizers: new Map() };
const T0 = "2026-01-01T00:00:00Z";
const T1 = "2026-01-01T00:00:05Z";
const byType = (cs: NamespaceCondition[]) => Object.fromEntries(cs.map((c) => [c.type, c]));

describe("namespace deletion conditions", () => {
  it("a clean pass sets all five types False with the ok reasons, in order", () => {
    const cs = deletionConditions(clean, [], T0);
    expect(cs.map((c) => [c.type, c.status, c.reason, c.message])).toEqual([
      ["NamespaceDeletionDiscoveryFailure", "False", "ResourcesDiscovered", "All resources successfully discovered"],
      ["NamespaceDeletionGroupVersionParsingFailure", "False", "ParsedGroupVersions", "All legacy kube types successfully parsed"],
      ["NamespaceDeletionContentFailure", "False", "ContentDeleted", "All content successfully deleted, may be waiting on finalization"],
      ["NamespaceContentRemaining", "False", "ContentRemoved", "All content successfully removed"],
      ["NamespaceFinalizersRemaining", "False", "ContentHasNoFinalizers", "All content-preserving finalizers finished"],
    ]);
    expect(cs.every((c) => c.lastTransitionTime === T0)).toBe(true);
  });

  const cases: Array<{ name: string; pass: Partial<DeletionPass>; type: string; reason: string; message: string }> = [
    { name: "remaining content, sorted, core group empty", pass: { remaining: new Map([["pods.", 2], ["configmaps.", 1]]) }, type: "NamespaceContentRemaining", reason: "SomeResourcesRemain", message: "Some resources are remaining: configmaps. has 1 resource instances, pods. has 2 resource instances" },
    { name: "finalizers, sorted", pass: { finalizers: new Map([["z.io/b", 1], ["example.com/a", 3]]) }, type: "NamespaceFinalizersRemaining", reason: "SomeFinalizersRemain", message: "Some content in the namespace has finalizers remaining: example.com/a in 3 resource instances, z.io/b in 1 resource instances" },
    { name: "one content error", pass: { contentErrors: ["boom"] }, type: "NamespaceDeletionContentFailure", reason: "ContentDeletionFailed", message: "Failed to delete all resource types, 1 remaining: boom" },
    { name: "two content errors", pass: { contentErrors: ["a", "b"] }, type: "NamespaceDeletionContentFailure", reason: "ContentDeletionFailed", message: "Failed to delete all resource types, 2 remaining: [a, b]" },
    { name: "a group version that fails discovery", pass: { discoveryFailures: new Map([["metrics.example.com/v1", "the server is currently unable to handle the request"]]) }, type: "NamespaceDeletionDiscoveryFailure", reason: "DiscoveryFailed", message: "Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: metrics.example.com/v1: the server is currently unable to handle the request" },
  ];
  for (const c of cases)
    it(c.name, () => {
      const cond = byType(deletionConditions({ ...clean, ...c.pass }, [], T0))[c.type];
      expect([cond.status, cond.reason, cond.message]).toEqual(["True", c.reason, c.message]);
    });

  it("an unchanged condition keeps its transition time; a changed one moves; other types stay", () => {
    const first = deletionConditions({ ...clean, remaining: new Map([["pods.", 1]]) }, [{ type: "Custom", status: "True" }], T0);
    const same = deletionConditions({ ...clean, remaining: new Map([["pods.", 1]]) }, first, T1);
    expect(conditionsDiffer(first, same)).toBe(false);
    const changed = deletionConditions(clean, first, T1);
    expect(byType(changed).NamespaceContentRemaining.lastTransitionTime).toBe(T1);
    expect(byType(changed).NamespaceDeletionDiscoveryFailure.lastTransitionTime).toBe(T0);
    expect(changed[0]).toEqual({ type: "Custom", status: "True" });
    expect(conditionsDiffer(first, changed)).toBe(true);
  });
});
