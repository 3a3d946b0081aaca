import { describe, expect, it } from "vitest";
import { setAt } from "../testing/sample-harness.ts";
import { kinds } from "./coordination-v1.ts";
import { byKind, sampleOf, sampleSuite } from "../testing/sample-suite.ts";

const lease = byKind(kinds, "Lease");

sampleSuite({
  dir: "coordination-v1",
  kinds,
  defaults: { Lease: { "spec.leaseDurationSeconds": 40, "spec.renewTime": "2024-05-01T10:15:42.123456Z" } },
  mutations: [
    { name: "unknown nested field", kind: "Lease", edit: (o) => setAt(o, "spec.holder", "worker-3"), unknown: ["spec.holder"] },
    { name: "wrong type", kind: "Lease", edit: (o) => setAt(o, "spec.leaseDurationSeconds", "40s"), errors: ["spec.leaseDurationSeconds"], types: ["FieldValueTypeInvalid"] },
    { name: "bad name", kind: "Lease", edit: (o) => setAt(o, "metadata.name", "Worker 3"), errors: ["metadata.name"] },
    { name: "renew time not a timestamp", kind: "Lease", edit: (o) => setAt(o, "spec.renewTime", "yesterday"), errors: ["spec.renewTime"] },
    { name: "non-positive duration", kind: "Lease", edit: (o) => setAt(o, "spec.leaseDurationSeconds", 0), errors: ["spec.leaseDurationSeconds"] },
    { name: "negative transitions", kind: "Lease", edit: (o) => setAt(o, "spec.leaseTransitions", -1), errors: ["spec.leaseTransitions"] },
    { name: "preferred holder without a strategy", kind: "Lease", edit: (o) => setAt(o, "spec.preferredHolder", "worker-4"), errors: ["spec.preferredHolder"], types: ["FieldValueForbidden"] },
  ],
});

describe("coordination/v1", () => {
  it("declares Lease with the platform's field numbers and microsecond times", () => {
    expect([lease.plural, lease.namespaced, lease.shortNames, lease.subresources]).toEqual(["leases", true, undefined, undefined]);
    const spec = lease.schema.properties?.spec.properties ?? {};
    expect(Object.fromEntries(Object.entries(spec).map(([k, v]) => [k, v.protoTag]))).toEqual({
      holderIdentity: 1,
      leaseDurationSeconds: 2,
      acquireTime: 3,
      renewTime: 4,
      leaseTransitions: 5,
      strategy: 6,
      preferredHolder: 7,
    });
    expect([spec.acquireTime.format, spec.renewTime.format]).toEqual(["date-time", "date-time"]);
    expect((lease.tableColumns ?? []).map((c) => c.name)).toEqual(["Holder", "Age"]);
    expect(lease.tableColumns?.[0].cell?.(sampleOf("coordination-v1", kinds, "Lease"))).toBe("worker-3");
  });
});
