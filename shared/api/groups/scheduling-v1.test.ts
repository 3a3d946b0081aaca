import { describe, expect, it } from "vitest";
import { validateImmutable } from "../../schema/index.ts";
import { admit, defaultObject, deleteAt, mutate, paths, setAt } from "../testing/sample-harness.ts";
import { HIGHEST_USER_DEFINABLE_PRIORITY, kinds } from "./scheduling-v1.ts";
import { byKind, sampleOf, sampleSuite } from "../testing/sample-suite.ts";

const pc = byKind(kinds, "PriorityClass");
const sample = () => sampleOf("scheduling-v1", kinds, "PriorityClass");
const PC = "PriorityClass";

sampleSuite({
  dir: "scheduling-v1",
  kinds,
  defaults: { PriorityClass: { value: 100000, preemptionPolicy: "Never" } },
  mutations: [
    { name: "unknown field", kind: PC, edit: (o) => setAt(o, "priority", 5), unknown: ["priority"] },
    { name: "wrong type", kind: PC, edit: (o) => setAt(o, "globalDefault", "false"), errors: ["globalDefault"], types: ["FieldValueTypeInvalid"] },
    { name: "bad name", kind: PC, edit: (o) => setAt(o, "metadata.name", "Customer Facing"), errors: ["metadata.name"] },
    { name: "missing value", kind: PC, edit: (o) => deleteAt(o, "value"), errors: ["value"], types: ["FieldValueRequired"] },
    { name: "bad preemption policy", kind: PC, edit: (o) => setAt(o, "preemptionPolicy", "Always"), errors: ["preemptionPolicy"], types: ["FieldValueNotSupported"] },
    { name: "value above the user maximum", kind: PC, edit: (o) => setAt(o, "value", HIGHEST_USER_DEFINABLE_PRIORITY + 1), errors: ["value"], types: ["FieldValueForbidden"] },
    { name: "reserved system- prefix", kind: PC, edit: (o) => setAt(o, "metadata.name", "system-important"), errors: ["metadata.name"], types: ["FieldValueForbidden"] },
  ],
});

describe("scheduling/v1", () => {
  it("declares PriorityClass with the platform's names and field numbers", () => {
    expect([pc.plural, pc.namespaced, pc.shortNames]).toEqual(["priorityclasses", false, ["pc"]]);
    const p = pc.schema.properties ?? {};
    expect([p.value.protoTag, p.globalDefault.protoTag, p.description.protoTag, p.preemptionPolicy.protoTag]).toEqual([2, 3, 4, 5]);
  });

  it("defaults the preemption policy and keeps it and the value immutable", () => {
    const d = defaultObject(pc, mutate(sample(), (o) => deleteAt(o, "preemptionPolicy")));
    expect(d.preemptionPolicy).toBe("PreemptLowerPriority");
    const changed = mutate(d, (o) => {
      setAt(o, "value", 5);
      setAt(o, "preemptionPolicy", "Never");
      setAt(o, "description", "new");
    });
    expect(paths(validateImmutable(pc.schema, d, changed))).toEqual(["value", "preemptionPolicy"]);
  });

  it("accepts the built-in system classes with their values", () => {
    const critical = mutate(sample(), (o) => {
      setAt(o, "metadata.name", "system-cluster-critical");
      setAt(o, "value", 2000000000);
    });
    expect(admit(pc, critical).errors).toEqual([]);
    expect(paths(admit(pc, mutate(critical, (o) => setAt(o, "value", 1))).errors)).toEqual(["metadata.name"]);
  });

  it("prints the platform's columns", () => {
    expect((pc.tableColumns ?? []).map((c) => c.name)).toEqual(["Value", "Global-Default", "Age", "PreemptionPolicy"]);
    const cells = (pc.tableColumns ?? []).map((c) => c.cell?.(sample()));
    expect([cells[0], cells[1], cells[3]]).toEqual([100000, false, "Never"]);
  });
});
