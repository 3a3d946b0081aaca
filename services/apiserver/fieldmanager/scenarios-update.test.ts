/**
 * Update scenarios (create, PUT, non-apply PATCH): ownership transfer,
 * resetting managedFields, subresources and the cap on update managers.
 */
import { describe, expect, it } from "vitest";
import { recordUpdate } from "./manager.ts";
import { KINDS, managedFieldsOf, runScenario, type Scenario } from "./testing/scenario-harness.ts";

type Obj = Record<string, unknown>;

const meta = (extra: Obj = {}) => ({ name: "web", namespace: "default", ...extra });
const deploy = (spec: Obj, metadata: Obj = {}) => ({ apiVersion: "apps/v1", kind: "Deployment", metadata: meta(metadata), spec });
const cm = (data: Obj, metadata: Obj = {}) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: meta(metadata), data });

const scenarios: Scenario[] = [
  {
    name: "create by update owns everything it set; new maps and items are members (`.`)",
    kind: "ConfigMap",
    ops: [{ update: "kubectl-create", object: cm({ a: "1" }, { labels: { app: "web" } }) }],
    fieldsV1: { "kubectl-create Update": { "f:data": { ".": {}, "f:a": {} }, "f:metadata": { "f:labels": { ".": {}, "f:app": {} } } } },
    entries: ["kubectl-create Update v1 2024-01-01T00:00:00Z"],
  },
  {
    name: "an update takes changed fields from an applier without conflict; the applier then conflicts",
    kind: "Deployment",
    ops: [
      { apply: "kubectl", object: deploy({ replicas: 2, paused: false }) },
      { update: "hpa", merge: { spec: { replicas: 5 } } },
      { apply: "kubectl", object: deploy({ replicas: 2, paused: false }), conflicts: ['"hpa" using apps/v1: .spec.replicas'] },
    ],
    object: deploy({ replicas: 5, paused: false }),
    managed: { "kubectl Apply": [".spec.paused"], "hpa Update": [".spec.replicas"] },
  },
  {
    name: "an applier that omits a field taken by an updater leaves it alone",
    kind: "Deployment",
    ops: [
      { apply: "kubectl", object: deploy({ replicas: 2, paused: false }) },
      { update: "hpa", merge: { spec: { replicas: 5 } } },
      { apply: "kubectl", object: deploy({ paused: false }) },
    ],
    object: deploy({ replicas: 5, paused: false }),
    managed: { "kubectl Apply": [".spec.paused"], "hpa Update": [".spec.replicas"] },
  },
  {
    name: "an update of a list-map item's field transfers just that field",
    kind: "Deployment",
    ops: [
      { apply: "a", object: deploy({ template: { spec: { containers: [{ name: "c", image: "c:1" }] } } }) },
      { update: "editor", object: deploy({ template: { spec: { containers: [{ name: "c", image: "c:2" }] } } }) },
      {
        apply: "a",
        object: deploy({ template: { spec: { containers: [{ name: "c", image: "c:3" }] } } }),
        conflicts: ['"editor" using apps/v1: .spec.template.spec.containers[name="c"].image'],
      },
    ],
    managed: {
      "a Apply": ['.spec.template.spec.containers[name="c"]', '.spec.template.spec.containers[name="c"].name'],
      "editor Update": ['.spec.template.spec.containers[name="c"].image'],
    },
  },
  {
    name: "an applier dropping its item removes it even when an updater changed a field inside",
    kind: "Deployment",
    ops: [
      { apply: "a", object: deploy({ paused: true, template: { spec: { containers: [{ name: "c", image: "c:1" }] } } }) },
      { update: "editor", merge: { spec: { template: { spec: { containers: [{ name: "c", image: "c:2" }] } } } } },
      { apply: "a", object: deploy({ paused: true }) },
    ],
    object: deploy({ paused: true }),
    managed: { "a Apply": [".spec.paused"] },
  },
  {
    name: "an update that removes a field takes it from its owner",
    kind: "ConfigMap",
    ops: [
      { apply: "a", object: cm({ x: "1", y: "2" }) },
      { update: "editor", merge: { data: { y: null } } },
    ],
    object: cm({ x: "1" }),
    managed: { "a Apply": [".data.x"] },
  },
  {
    name: "updates by the same manager accumulate; an unchanged write keeps the old time",
    kind: "ConfigMap",
    ops: [
      { update: "editor", object: cm({ x: "1" }) },
      { update: "editor", merge: { data: { y: "2" } } },
      { update: "editor", merge: {} },
    ],
    managed: { "editor Update": [".data", ".data.x", ".data.y"] },
    entries: ["editor Update v1 2024-01-01T00:00:01Z"],
  },
  {
    name: "untracked metadata (name, uid, resourceVersion...) is never owned",
    kind: "ConfigMap",
    ops: [{ update: "ctl", object: { ...cm({ k: "v" }), metadata: meta({ uid: "u-1", resourceVersion: "5", generation: 2, creationTimestamp: "2024-01-01T00:00:00Z", annotations: { a: "b" } }) } }],
    managed: { "ctl Update": [".data", ".data.k", ".metadata.annotations", ".metadata.annotations.a"] },
  },
  {
    name: "a write setting managedFields to [{}] resets it; the writer owns what it changed",
    kind: "ConfigMap",
    ops: [
      { apply: "a", object: cm({ x: "1" }) },
      { update: "b", merge: { data: { y: "2" } } },
      { update: "admin", merge: { metadata: { managedFields: [{}] }, data: { z: "3" } } },
    ],
    object: cm({ x: "1", y: "2", z: "3" }),
    managed: { "admin Update": [".data.z"] },
  },
  {
    name: "a reset without other changes leaves no managedFields",
    kind: "ConfigMap",
    ops: [
      { apply: "a", object: cm({ x: "1" }) },
      { update: "admin", merge: { metadata: { managedFields: [{}] } } },
    ],
    object: cm({ x: "1" }),
    managed: {},
  },
  {
    name: "an empty managedFields list does not reset",
    kind: "ConfigMap",
    ops: [
      { apply: "a", object: cm({ x: "1" }) },
      { update: "admin", object: { ...cm({ x: "1", y: "2" }), metadata: meta({ managedFields: [] }) } },
    ],
    managed: { "a Apply": [".data.x"], "admin Update": [".data.y"] },
  },
  {
    name: "managedFields edited in an update are taken as given",
    kind: "ConfigMap",
    ops: [
      { apply: "a", object: cm({ x: "1", y: "1" }) },
      {
        update: "admin",
        merge: { metadata: { managedFields: [{ manager: "a", operation: "Apply", apiVersion: "v1", fieldsType: "FieldsV1", fieldsV1: { "f:data": { "f:x": {} } } }] } },
      },
    ],
    object: cm({ x: "1", y: "1" }),
    managed: { "a Apply": [".data.x"] },
  },
  {
    name: "invalid managedFields in an update fall back to the stored ones",
    kind: "ConfigMap",
    ops: [
      { apply: "a", object: cm({ x: "1" }) },
      { update: "admin", merge: { metadata: { managedFields: [{ manager: "a", operation: "Bogus", apiVersion: "v1", fieldsType: "FieldsV1", fieldsV1: {} }] } } },
    ],
    managed: { "a Apply": [".data.x"] },
  },
  {
    name: "a status update is recorded with its subresource and ignores managedFields in the request",
    kind: "Deployment",
    ops: [
      { apply: "a", object: deploy({ replicas: 1 }) },
      { update: "controller", subresource: "status", merge: { status: { replicas: 1 }, metadata: { managedFields: [{}] } } },
    ],
    // `status` did not exist: the writer added the struct too (the `.` of FieldsV1), as for custom resources.
    managed: { "a Apply": [".spec.replicas"], "controller Update status": [".status", ".status.replicas"] },
  },
  {
    name: "an update without a manager name is recorded as unknown",
    kind: "ConfigMap",
    ops: [{ update: "", object: cm({ x: "1" }) }],
    managed: { "unknown Update": [".data", ".data.x"] },
  },
  {
    name: "update managers beyond 10 are merged, oldest first, into ancient-changes",
    kind: "ConfigMap",
    ops: [
      { apply: "applier", object: cm({ a: "1" }) },
      ...Array.from({ length: 12 }, (_, i) => ({ update: `u${i + 1}`, merge: { data: { [`k${i + 1}`]: "v" } } })),
    ],
    entries: [
      "applier Apply v1 2024-01-01T00:00:00Z",
      "ancient-changes Update v1 2024-01-01T00:00:03Z",
      ...Array.from({ length: 9 }, (_, i) => `u${i + 4} Update v1 2024-01-01T00:00:${String(i + 4).padStart(2, "0")}Z`),
    ],
  },
  {
    name: "the cap is configurable",
    kind: "ConfigMap",
    maxUpdateManagers: 2,
    ops: [
      { update: "u1", object: cm({ a: "1" }) },
      { update: "u2", merge: { data: { b: "1" } } },
      { update: "u3", merge: { data: { c: "1" } } },
      { update: "u4", merge: { data: { d: "1" } } },
    ],
    managed: { "ancient-changes Update": [".data", ".data.a", ".data.b", ".data.c"], "u4 Update": [".data.d"] },
  },
];

describe("update scenarios", () => {
  for (const sc of scenarios) it(sc.name, () => void runScenario(sc));

  it("never throws: an object whose list cannot be keyed loses its managedFields", () => {
    const live = { ...deploy({ replicas: 1 }), metadata: meta({ managedFields: [] }) };
    const bad = deploy({ template: { spec: { containers: [{ image: "no-name" }] } } });
    const out = recordUpdate({ kind: KINDS.Deployment, live, object: bad, manager: "x", now: new Date(0) });
    expect(managedFieldsOf(out)).toEqual([]);
    expect(out.spec).toEqual(bad.spec);
  });
});
