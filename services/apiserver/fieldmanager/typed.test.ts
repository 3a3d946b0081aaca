import { describe, expect, it } from "vitest";
import { controllerRevision, deployment } from "../../../shared/api/groups/apps-v1.ts";
import { configMapKind, serviceKind } from "../../../shared/api/groups/core-v1.ts";
import { fieldElement as f, pathString, FieldSet } from "./fieldpath.ts";
import { applyObject, mergeObjects } from "./merge.ts";
import { collapseAtomic, compare, removeItems, toFieldSet, ensureNamedFieldsAreMembers } from "./typed.ts";
import { fieldPaths } from "./index.ts";

const printed = (s: FieldSet) => s.paths().map(pathString).sort();
const containers = (list: unknown[]) => ({ spec: { template: { spec: { containers: list } } } });

describe("toFieldSet", () => {
  it("leaves, list-map items, set members, atomic lists and maps, granular map keys", () => {
    const obj = {
      metadata: { labels: { app: "web" }, finalizers: ["a"], ownerReferences: [{ uid: "u1", name: "rs", kind: "ReplicaSet", apiVersion: "apps/v1" }] },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: "web" } },
        template: { spec: { containers: [{ name: "c", args: ["x"], env: [{ name: "E", value: "1" }], resources: {} }] } },
      },
    };
    expect(printed(toFieldSet(deployment, obj))).toEqual([
      '.metadata.finalizers[="a"]',
      ".metadata.labels.app",
      '.metadata.ownerReferences[uid="u1"]',
      ".spec.replicas",
      ".spec.selector",
      '.spec.template.spec.containers[name="c"]',
      '.spec.template.spec.containers[name="c"].args',
      '.spec.template.spec.containers[name="c"].env[name="E"]',
      '.spec.template.spec.containers[name="c"].env[name="E"].name',
      '.spec.template.spec.containers[name="c"].env[name="E"].value',
      '.spec.template.spec.containers[name="c"].name',
    ]);
  });

  it("int-or-string is a leaf, null scalars are members, deduced objects are granular", () => {
    expect(printed(toFieldSet(serviceKind.schema, { spec: { ports: [{ port: 80, targetPort: "http" }], clusterIP: null } }))).toEqual([
      ".spec.clusterIP",
      '.spec.ports[port=80,protocol="TCP"]',
      '.spec.ports[port=80,protocol="TCP"].port',
      '.spec.ports[port=80,protocol="TCP"].targetPort',
    ]);
    expect(printed(toFieldSet(controllerRevision, { revision: 1, data: { spec: { a: [1, 2] } } }))).toEqual([".data.spec", ".data.spec.a", ".revision"]);
  });

  it("named struct fields become members on request", () => {
    const s = ensureNamedFieldsAreMembers(toFieldSet(configMapKind.schema, { metadata: { labels: { a: "1" } }, data: { k: "v" } }), configMapKind.schema);
    expect(printed(s)).toEqual([".data", ".data.k", ".metadata", ".metadata.labels", ".metadata.labels.a"]);
  });
});

describe("compare", () => {
  it("added, modified and removed leaves; added and removed items and map entries", () => {
    const before = { data: { a: "1", b: "2" }, ...containers([{ name: "x", image: "x:1" }]) };
    const after = { data: { a: "9", c: "3" }, ...containers([{ name: "y", image: "y:1" }]) };
    // Without a schema (deduced), lists are atomic.
    const deduced = compare(undefined, before, after);
    expect(printed(deduced.modified)).toEqual([".data.a", ".spec.template.spec.containers"]);
    const typed = compare(deployment, containers([{ name: "x", image: "x:1", args: ["a"] }]), containers([{ name: "x", image: "x:2", args: ["a"] }, { name: "y" }]));
    expect(printed(typed.modified)).toEqual(['.spec.template.spec.containers[name="x"].image']);
    expect(printed(typed.added)).toEqual(['.spec.template.spec.containers[name="y"]', '.spec.template.spec.containers[name="y"].name']);
    const cm = compare(configMapKind.schema, { data: { a: "1", b: "2" } }, { data: { a: "1", c: "3" } });
    expect([printed(cm.added), printed(cm.modified), printed(cm.removed)]).toEqual([[".data.c"], [], [".data.b"]]);
  });

  it("order of list-map items is not a change; order of atomic lists is", () => {
    const a = containers([{ name: "x", args: ["1", "2"] }, { name: "y" }]);
    const b = containers([{ name: "y" }, { name: "x", args: ["2", "1"] }]);
    const c = compare(deployment, a, b);
    expect(printed(c.modified)).toEqual(['.spec.template.spec.containers[name="x"].args']);
    expect(c.added.empty() && c.removed.empty()).toBe(true);
  });
});

describe("merge", () => {
  it("keeps live-only items in place, orders shared items like the configuration", () => {
    const live = containers([{ name: "a" }, { name: "b" }, { name: "c" }]);
    const out = mergeObjects(deployment, live, containers([{ name: "c", image: "c:2" }, { name: "a" }])) as typeof live;
    expect(out.spec.template.spec.containers).toEqual([{ name: "b" }, { name: "c", image: "c:2" }, { name: "a" }]);
    const added = mergeObjects(deployment, live, containers([{ name: "new" }, { name: "b" }])) as typeof live;
    expect(added.spec.template.spec.containers.map((c) => (c as { name: string }).name)).toEqual(["a", "new", "b", "c"]);
  });

  it("atomic values are replaced, granular maps merged, inputs untouched", () => {
    const live = { spec: { selector: { matchLabels: { a: "1" } }, template: { metadata: { labels: { a: "1" } } } } };
    const snapshot = structuredClone(live);
    const out = mergeObjects(deployment, live, { spec: { selector: { matchLabels: { b: "2" } }, template: { metadata: { labels: { b: "2" } } } } });
    expect(out).toEqual({ spec: { selector: { matchLabels: { b: "2" } }, template: { metadata: { labels: { a: "1", b: "2" } } } } });
    expect(live).toEqual(snapshot);
  });

  it("applyObject removes what the applier dropped unless someone else owns it", () => {
    const live = { data: { a: "1", b: "2", c: "3" } };
    const last = fieldPaths("data.a", "data.b");
    expect(applyObject(configMapKind.schema, live, { data: { a: "1" } }, last)).toEqual({ data: { a: "1", c: "3" } });
    expect(applyObject(configMapKind.schema, live, { data: { a: "1" } }, last, fieldPaths("data.b"))).toEqual(live);
  });
});

describe("removeItems", () => {
  it("removes fields, items and members; emptied containers disappear", () => {
    const obj = { metadata: { finalizers: ["a", "b"], labels: { x: "1" } }, ...containers([{ name: "x", image: "i" }, { name: "y" }]) };
    const toRemove = fieldPaths("metadata.labels.x").union(
      FieldSet.of([f("metadata"), f("finalizers"), { kind: "value", value: "a" }], [f("spec"), f("template"), f("spec"), f("containers"), { kind: "key", fields: [["name", "x"]] }]),
    );
    expect(removeItems(deployment, obj, toRemove)).toEqual({ metadata: { finalizers: ["b"] }, ...containers([{ name: "y" }]) });
  });
});

describe("schema changes", () => {
  it("paths recorded below a field that is now atomic collapse into it", () => {
    const old = fieldPaths("spec.selector.matchLabels.app", "spec.replicas");
    expect(printed(collapseAtomic(old, deployment))).toEqual([".spec.replicas", ".spec.selector"]);
  });

  it("a set with nothing to collapse is handed back as it is; one with something is a new set and the old one is unchanged", () => {
    const granular = fieldPaths("spec.replicas", "spec.template.spec.containers", "metadata.labels.app");
    expect(collapseAtomic(granular, deployment)).toBe(granular);
    const old = fieldPaths("spec.replicas", "spec.selector.matchLabels.app", "metadata.labels.app");
    const collapsed = collapseAtomic(old, deployment);
    expect(collapsed).not.toBe(old);
    expect(printed(collapsed)).toEqual([".metadata.labels.app", ".spec.replicas", ".spec.selector"]);
    expect(printed(old)).toEqual([".metadata.labels.app", ".spec.replicas", ".spec.selector.matchLabels.app"]);
  });
});
