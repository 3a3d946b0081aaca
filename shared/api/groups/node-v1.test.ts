import { describe, expect, it } from "vitest";
import { validateImmutable } from "../../schema/index.ts";
import { deleteAt, mutate, paths, setAt } from "../testing/sample-harness.ts";
import { kinds } from "./node-v1.ts";
import { byKind, sampleOf, sampleSuite } from "../testing/sample-suite.ts";

const rc = byKind(kinds, "RuntimeClass");
const sample = () => sampleOf("node-v1", kinds, "RuntimeClass");
const RC = "RuntimeClass";

sampleSuite({
  dir: "node-v1",
  kinds,
  defaults: { RuntimeClass: { handler: "runsc", "overhead.podFixed.cpu": "250m" } },
  mutations: [
    { name: "unknown nested field", kind: RC, edit: (o) => setAt(o, "scheduling.nodeAffinity", {}), unknown: ["scheduling.nodeAffinity"] },
    { name: "wrong type", kind: RC, edit: (o) => setAt(o, "overhead.podFixed", ["250m"]), errors: ["overhead.podFixed"], types: ["FieldValueTypeInvalid"] },
    { name: "bad quantity", kind: RC, edit: (o) => setAt(o, "overhead.podFixed.memory", "lots"), errors: ["overhead.podFixed[memory]"] },
    { name: "bad name", kind: RC, edit: (o) => setAt(o, "metadata.name", "gVisor"), errors: ["metadata.name"] },
    { name: "missing handler", kind: RC, edit: (o) => deleteAt(o, "handler"), errors: ["handler"], types: ["FieldValueRequired"] },
    { name: "handler not a DNS label", kind: RC, edit: (o) => setAt(o, "handler", "run.sc"), errors: ["handler"] },
    { name: "bad toleration effect", kind: RC, edit: (o) => setAt(o, "scheduling.tolerations[0].effect", "NoRun"), errors: ["scheduling.tolerations[0].effect"], types: ["FieldValueNotSupported"] },
    { name: "bad node selector key", kind: RC, edit: (o) => setAt(o, "scheduling.nodeSelector", { "bad key": "x" }), errors: ["scheduling.nodeSelector"] },
  ],
});

describe("node/v1", () => {
  it("declares RuntimeClass with the platform's names and field numbers", () => {
    expect([rc.plural, rc.namespaced, rc.shortNames]).toEqual(["runtimeclasses", false, undefined]);
    const p = rc.schema.properties ?? {};
    expect([p.handler.protoTag, p.overhead.protoTag, p.scheduling.protoTag, p.scheduling.properties?.tolerations.listType, p.scheduling.properties?.nodeSelector.mapType]).toEqual([2, 3, 4, "atomic", "atomic"]);
  });

  it("keeps the handler immutable", () => {
    const old = sample();
    expect(paths(validateImmutable(rc.schema, old, mutate(old, (o) => setAt(o, "handler", "kata"))))).toEqual(["handler"]);
    expect(validateImmutable(rc.schema, old, mutate(old, (o) => setAt(o, "overhead.podFixed.cpu", "500m")))).toEqual([]);
  });

  it("prints the handler", () => {
    expect((rc.tableColumns ?? []).map((c) => c.name)).toEqual(["Handler", "Age"]);
    expect(rc.tableColumns?.[0].cell?.(sample())).toBe("runsc");
  });
});
