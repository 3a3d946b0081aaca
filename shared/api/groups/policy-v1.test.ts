import { describe, expect, it } from "vitest";
import { admit, deleteAt, mutate, setAt } from "../testing/sample-harness.ts";
import { evictionKind, kinds } from "./policy-v1.ts";
import { byKind, sampleOf, sampleSuite } from "../testing/sample-suite.ts";

const DIR = "policy-v1";
const pdb = byKind(kinds, "PodDisruptionBudget");
const eviction = evictionKind;
/** The served kinds plus Eviction, the body of the pods' eviction subresource. */
const all = [...kinds, evictionKind];
const P = "PodDisruptionBudget";

sampleSuite({
  dir: DIR,
  kinds: all,
  // The platform defaults nothing in a PodDisruptionBudget: an unset selector stays unset (selects no pods).
  defaults: { PodDisruptionBudget: { "spec.minAvailable": 2, "spec.maxUnavailable": undefined, "spec.unhealthyPodEvictionPolicy": "AlwaysAllow" } },
  mutations: [
    { name: "unknown nested field", kind: P, edit: (o) => setAt(o, "spec.selector.matchLabel", { a: "b" }), unknown: ["spec.selector.matchLabel"] },
    { name: "wrong type", kind: P, edit: (o) => setAt(o, "spec.minAvailable", true), errors: ["spec.minAvailable"], types: ["FieldValueTypeInvalid"] },
    { name: "bad name", kind: P, edit: (o) => setAt(o, "metadata.name", "postgres..pdb"), errors: ["metadata.name"] },
    { name: "missing namespace", kind: P, edit: (o) => deleteAt(o, "metadata.namespace"), errors: ["metadata.namespace"], types: ["FieldValueRequired"] },
    { name: "bad eviction policy", kind: P, edit: (o) => setAt(o, "spec.unhealthyPodEvictionPolicy", "Never"), errors: ["spec.unhealthyPodEvictionPolicy"], types: ["FieldValueNotSupported"] },
    { name: "both minAvailable and maxUnavailable", kind: P, edit: (o) => setAt(o, "spec.maxUnavailable", 1), errors: ["spec"] },
    { name: "malformed percentage", kind: P, edit: (o) => setAt(o, "spec.minAvailable", "half"), errors: ["spec.minAvailable"] },
    { name: "over 100%", kind: P, edit: (o) => setAt(o, "spec.minAvailable", "120%"), errors: ["spec.minAvailable"] },
    {
      name: "selector requirement without values",
      kind: P,
      edit: (o) => setAt(o, "spec.selector", { matchExpressions: [{ key: "tier", operator: "In" }] }),
      errors: ["spec.selector.matchExpressions[0].values"],
    },
    { name: "status without expectedPods", kind: P, edit: (o) => deleteAt(o, "status.expectedPods"), errors: ["status.expectedPods"] },
    { name: "unknown field in delete options", kind: "Eviction", edit: (o) => setAt(o, "deleteOptions.grace", 1), unknown: ["deleteOptions.grace"] },
    { name: "bad propagation policy", kind: "Eviction", edit: (o) => setAt(o, "deleteOptions.propagationPolicy", "Later"), errors: ["deleteOptions.propagationPolicy"] },
  ],
});

describe("policy/v1", () => {
  it("declares the budget, and the virtual Eviction kind outside the served kinds", () => {
    expect(kinds.map((k) => k.kind)).toEqual(["PodDisruptionBudget"]);
    expect([pdb.plural, pdb.shortNames, pdb.subresources, pdb.categories]).toEqual(["poddisruptionbudgets", ["pdb"], ["status"], undefined]);
    expect([eviction.virtual, eviction.verbs, eviction.namespaced, eviction.protobuf]).toEqual([true, ["create"], true, true]);
    const spec = pdb.schema.properties?.spec.properties ?? {};
    expect([spec.minAvailable.protoTag, spec.selector.protoTag, spec.maxUnavailable.protoTag, spec.unhealthyPodEvictionPolicy.protoTag]).toEqual([1, 2, 3, 4]);
    expect([spec.minAvailable.intOrString, spec.selector.patchStrategy]).toEqual([true, "replace"]);
    const status = pdb.schema.properties?.status.properties ?? {};
    expect([status.disruptedPods.additionalProperties?.format, status.conditions.protoTag, status.conditions.listMapKeys]).toEqual(["date-time", 7, ["type"]]);
    expect(eviction.schema.properties?.deleteOptions.protoTag).toBe(2);
  });

  it("prints N/A for the unset bound", () => {
    const cells = (pdb.tableColumns ?? []).map((c) => c.cell?.(sampleOf(DIR, kinds, P)));
    expect(cells.slice(0, 3)).toEqual(["2", "N/A", 1]);
    const pct = mutate(sampleOf(DIR, kinds, P), (o) => {
      deleteAt(o, "spec.minAvailable");
      setAt(o, "spec.maxUnavailable", "20%");
    });
    expect(admit(pdb, pct).errors).toEqual([]);
    expect((pdb.tableColumns ?? []).slice(0, 2).map((c) => c.cell?.(pct))).toEqual(["N/A", "20%"]);
  });
});
