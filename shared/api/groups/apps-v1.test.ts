import { describe, expect, it } from "vitest";
import { getProfile } from "../../platform/index.ts";
import { validateImmutable } from "../../schema/index.ts";
import type { Schema } from "../../schema/types.ts";
import { admit, defaultObject, deleteAt, mutate, paths, setAt } from "../testing/sample-harness.ts";
import { kinds } from "./apps-v1.ts";
import { byKind, sampleOf, sampleSuite } from "../testing/sample-suite.ts";

const DIR = "apps-v1";
const profile = getProfile();
/** The recommended app label prefix of the samples (`app.<domain>`). */
const APP = `app.${profile.groupDomain}`;
const def = (k: string) => byKind(kinds, k);
const sample = (k: string) => sampleOf(DIR, kinds, k);
const props = (s: Schema | undefined): Record<string, Schema> => s?.properties ?? {};
const tags = (s: Schema | undefined): Record<string, number | undefined> =>
  Object.fromEntries(Object.entries(props(s)).map(([k, v]) => [k, v.protoTag]));

sampleSuite({
  dir: DIR,
  kinds,
  defaults: {
    Deployment: {
      "spec.replicas": 3,
      "spec.progressDeadlineSeconds": 600,
      "spec.revisionHistoryLimit": 10,
      "spec.strategy": { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" } },
    },
    ReplicaSet: { "spec.replicas": 3 },
    StatefulSet: {
      "spec.podManagementPolicy": "OrderedReady",
      "spec.updateStrategy": { type: "RollingUpdate", rollingUpdate: { partition: 0, maxUnavailable: 1 } },
      "spec.persistentVolumeClaimRetentionPolicy": { whenDeleted: "Retain", whenScaled: "Retain" },
      "spec.revisionHistoryLimit": 10,
    },
    DaemonSet: {
      "spec.updateStrategy": { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
      "spec.revisionHistoryLimit": 10,
      // Core pod-spec defaults reach the template.
      "spec.template.spec.restartPolicy": "Always",
      "spec.template.spec.containers[0].imagePullPolicy": "IfNotPresent",
    },
  },
  mutations: [
    { name: "unknown nested field", kind: "Deployment", edit: (o) => setAt(o, "spec.strategy", { rollingUpdate: { maxSurgee: 1 } }), unknown: ["spec.strategy.rollingUpdate.maxSurgee"] },
    { name: "wrong type", kind: "Deployment", edit: (o) => setAt(o, "spec.replicas", "three"), errors: ["spec.replicas"], types: ["FieldValueTypeInvalid"] },
    { name: "bad name", kind: "Deployment", edit: (o) => setAt(o, "metadata.name", "Web_Frontend"), errors: ["metadata.name"] },
    { name: "missing selector", kind: "Deployment", edit: (o) => deleteAt(o, "spec.selector"), errors: ["spec.selector"], types: ["FieldValueRequired"] },
    { name: "bad strategy type", kind: "Deployment", edit: (o) => setAt(o, "spec.strategy", { type: "BlueGreen" }), errors: ["spec.strategy.type"], types: ["FieldValueNotSupported"] },
    { name: "negative replicas", kind: "Deployment", edit: (o) => setAt(o, "spec.replicas", -1), errors: ["spec.replicas"] },
    {
      name: "selector does not match the template labels",
      kind: "Deployment",
      edit: (o) => setAt(o, "spec.template.metadata.labels", { [`${APP}/name`]: "other" }),
      errors: ["spec.template.metadata.labels"],
    },
    { name: "empty selector", kind: "Deployment", edit: (o) => setAt(o, "spec.selector", {}), errors: ["spec.selector"] },
    { name: "malformed maxSurge", kind: "Deployment", edit: (o) => setAt(o, "spec.strategy", { rollingUpdate: { maxSurge: "lots" } }), errors: ["spec.strategy.rollingUpdate.maxSurge"] },
    {
      name: "maxUnavailable and maxSurge both 0",
      kind: "Deployment",
      edit: (o) => setAt(o, "spec.strategy", { rollingUpdate: { maxSurge: 0, maxUnavailable: "0%" } }),
      errors: ["spec.strategy.rollingUpdate.maxUnavailable"],
    },
    { name: "maxUnavailable over 100%", kind: "Deployment", edit: (o) => setAt(o, "spec.strategy", { rollingUpdate: { maxUnavailable: "150%" } }), errors: ["spec.strategy.rollingUpdate.maxUnavailable"] },
    {
      name: "rollingUpdate with Recreate",
      kind: "Deployment",
      edit: (o) => setAt(o, "spec.strategy", { type: "Recreate", rollingUpdate: { maxSurge: 1 } }),
      errors: ["spec.strategy.rollingUpdate"],
      types: ["FieldValueForbidden"],
    },
    {
      name: "progress deadline not above minReadySeconds",
      kind: "Deployment",
      edit: (o) => {
        setAt(o, "spec.minReadySeconds", 30);
        setAt(o, "spec.progressDeadlineSeconds", 30);
      },
      errors: ["spec.progressDeadlineSeconds"],
    },
    { name: "restartPolicy other than Always", kind: "Deployment", edit: (o) => setAt(o, "spec.template.spec.restartPolicy", "Never"), errors: ["spec.template.spec.restartPolicy"] },
    {
      name: "container without an image (core pod-spec rules)",
      kind: "Deployment",
      edit: (o) => deleteAt(o, "spec.template.spec.containers[0].image"),
      errors: ["spec.template.spec.containers[0].image"],
      types: ["FieldValueRequired"],
    },
    { name: "empty selector (reported as for deployments)", kind: "ReplicaSet", edit: (o) => setAt(o, "spec.selector", {}), errors: ["spec.selector"] },
    { name: "missing selector", kind: "ReplicaSet", edit: (o) => deleteAt(o, "spec.selector"), errors: ["spec.selector"] },
    { name: "status without replicas", kind: "ReplicaSet", edit: (o) => deleteAt(o, "status.replicas"), errors: ["status.replicas"] },
    {
      name: "mount of neither a volume nor a claim template",
      kind: "StatefulSet",
      edit: (o) => setAt(o, "spec.template.spec.containers[0].volumeMounts[0].name", "logs"),
      errors: ["spec.template.spec.containers[0].volumeMounts[0].name"],
      types: ["FieldValueNotFound"],
    },
    { name: "bad podManagementPolicy", kind: "StatefulSet", edit: (o) => setAt(o, "spec.podManagementPolicy", "Sequential"), errors: ["spec.podManagementPolicy"] },
    { name: "missing template", kind: "StatefulSet", edit: (o) => deleteAt(o, "spec.template"), errors: ["spec.template"] },
    {
      name: "unknown field in the retention policy",
      kind: "StatefulSet",
      edit: (o) => setAt(o, "spec.persistentVolumeClaimRetentionPolicy", { whenDeletd: "Delete" }),
      unknown: ["spec.persistentVolumeClaimRetentionPolicy.whenDeletd"],
    },
    { name: "bad retention value", kind: "StatefulSet", edit: (o) => setAt(o, "spec.persistentVolumeClaimRetentionPolicy", { whenScaled: "Keep" }), errors: ["spec.persistentVolumeClaimRetentionPolicy.whenScaled"] },
    { name: "rollingUpdate with OnDelete", kind: "StatefulSet", edit: (o) => setAt(o, "spec.updateStrategy.type", "OnDelete"), errors: ["spec.updateStrategy.rollingUpdate"] },
    { name: "negative partition", kind: "StatefulSet", edit: (o) => setAt(o, "spec.updateStrategy.rollingUpdate.partition", -1), errors: ["spec.updateStrategy.rollingUpdate.partition"] },
    {
      name: "maxSurge and maxUnavailable both non-zero",
      kind: "DaemonSet",
      edit: (o) => setAt(o, "spec.updateStrategy", { rollingUpdate: { maxUnavailable: 1, maxSurge: "10%" } }),
      errors: ["spec.updateStrategy.rollingUpdate.maxSurge"],
    },
    {
      name: "maxSurge and maxUnavailable both zero",
      kind: "DaemonSet",
      edit: (o) => setAt(o, "spec.updateStrategy", { rollingUpdate: { maxUnavailable: 0 } }),
      errors: ["spec.updateStrategy.rollingUpdate.maxUnavailable"],
      types: ["FieldValueRequired"],
    },
    { name: "bad update strategy type", kind: "DaemonSet", edit: (o) => setAt(o, "spec.updateStrategy", { type: "Always" }), errors: ["spec.updateStrategy.type"] },
    { name: "empty selector", kind: "DaemonSet", edit: (o) => setAt(o, "spec.selector", {}), errors: ["spec.selector"] },
    { name: "missing revision", kind: "ControllerRevision", edit: (o) => deleteAt(o, "revision"), errors: ["revision"], types: ["FieldValueRequired"] },
    { name: "revision of the wrong type", kind: "ControllerRevision", edit: (o) => setAt(o, "revision", "2"), errors: ["revision"], types: ["FieldValueTypeInvalid"] },
  ],
});

describe("apps/v1 kinds", () => {
  it("declares resources, short names, categories, subresources and scale mappings", () => {
    expect(kinds.map((k) => [k.kind, k.plural, k.shortNames ?? [], k.categories ?? [], k.subresources ?? [], k.namespaced])).toEqual([
      ["Deployment", "deployments", ["deploy"], ["all"], ["status", "scale"], true],
      ["ReplicaSet", "replicasets", ["rs"], ["all"], ["status", "scale"], true],
      ["StatefulSet", "statefulsets", ["sts"], ["all"], ["status", "scale"], true],
      ["DaemonSet", "daemonsets", ["ds"], ["all"], ["status"], true],
      ["ControllerRevision", "controllerrevisions", [], [], [], true],
    ]);
    for (const k of ["Deployment", "ReplicaSet", "StatefulSet"]) {
      expect(def(k).scale).toEqual({ specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas", labelSelectorPath: ".status.selector" });
    }
    expect(def("ReplicaSet").selectableFields).toEqual(["status.replicas"]);
    expect(kinds.every((k) => k.protobuf === true && k.group === "apps" && k.version === "v1")).toBe(true);
  });

  it("uses the platform's protobuf field numbers", () => {
    const deploySpec = props(def("Deployment").schema).spec;
    expect(tags(deploySpec)).toEqual({
      replicas: 1,
      selector: 2,
      template: 3,
      strategy: 4,
      minReadySeconds: 5,
      revisionHistoryLimit: 6,
      paused: 7,
      progressDeadlineSeconds: 9,
      podReplacementPolicy: 10,
    });
    const deployStatus = props(def("Deployment").schema).status;
    expect(tags(deployStatus)).toMatchObject({ readyReplicas: 7, availableReplicas: 4, terminatingReplicas: 9, conditions: 6, collisionCount: 8 });
    expect(tags(props(deployStatus).conditions.items)).toEqual({ type: 1, status: 2, lastUpdateTime: 6, lastTransitionTime: 7, reason: 4, message: 5 });
    expect(tags(props(def("StatefulSet").schema).spec)).toMatchObject({ serviceName: 5, podManagementPolicy: 6, updateStrategy: 7, persistentVolumeClaimRetentionPolicy: 10, ordinals: 11 });
    expect(tags(props(def("DaemonSet").schema).spec)).toEqual({ selector: 1, template: 2, updateStrategy: 3, minReadySeconds: 4, revisionHistoryLimit: 6 });
    expect(tags(def("ControllerRevision").schema)).toMatchObject({ metadata: 1, data: 2, revision: 3 });
  });

  it("declares conditions as map lists keyed by type with merge patches, and named definitions", () => {
    for (const k of ["Deployment", "ReplicaSet", "StatefulSet", "DaemonSet"]) {
      const c = props(props(def(k).schema).status).conditions;
      expect([c.listType, c.listMapKeys, c.patchStrategy, c.patchMergeKey]).toEqual(["map", ["type"], "merge", "type"]);
    }
    expect(props(def("StatefulSet").schema.properties?.spec).volumeClaimTemplates.listType).toBe("atomic");
    expect(props(def("Deployment").schema).spec.definition).toMatchObject({ group: "apps", version: "v1", name: "DeploymentSpec" });
    expect(props(props(def("Deployment").schema).spec).strategy.patchStrategy).toBe("retainKeys");
  });

  it("keeps selectors and StatefulSet identity fields immutable; replicas may change", () => {
    const deploy = admit(def("Deployment"), sample("Deployment")).defaulted;
    const scaled = mutate(deploy, (o) => setAt(o, "spec.replicas", 5));
    expect(validateImmutable(def("Deployment").schema, deploy, scaled)).toEqual([]);
    const reselected = mutate(deploy, (o) => setAt(o, "spec.selector.matchLabels", { app: "x" }));
    expect(paths(validateImmutable(def("Deployment").schema, deploy, reselected))).toEqual(["spec.selector"]);

    const sts = admit(def("StatefulSet"), sample("StatefulSet")).defaulted;
    const changed = mutate(sts, (o) => {
      setAt(o, "spec.serviceName", "other");
      setAt(o, "spec.podManagementPolicy", "Parallel");
      setAt(o, "spec.volumeClaimTemplates[0].spec.resources.requests.storage", "50Gi");
      setAt(o, "spec.replicas", 5);
      setAt(o, "spec.updateStrategy.rollingUpdate.partition", 2);
    });
    expect(paths(validateImmutable(def("StatefulSet").schema, sts, changed))).toEqual([
      "spec.volumeClaimTemplates",
      "spec.serviceName",
      "spec.podManagementPolicy",
    ]);
    for (const k of ["ReplicaSet", "DaemonSet"]) {
      const o = sample(k);
      expect(paths(validateImmutable(def(k).schema, o, mutate(o, (x) => setAt(x, "spec.selector", { matchLabels: { a: "b" } }))))).toEqual(["spec.selector"]);
    }
    const cr = sample("ControllerRevision");
    expect(paths(validateImmutable(def("ControllerRevision").schema, cr, mutate(cr, (x) => setAt(x, "data", {}))))).toEqual(["data"]);
  });

  it("defaults strategies only where the platform does", () => {
    const recreate = defaultObject(def("Deployment"), mutate(sample("Deployment"), (o) => setAt(o, "spec.strategy", { type: "Recreate" })));
    expect(recreate.spec).toMatchObject({ strategy: { type: "Recreate" } });
    expect((recreate.spec as Record<string, unknown>).strategy).toEqual({ type: "Recreate" });

    const noReplicas = defaultObject(def("ReplicaSet"), mutate(sample("ReplicaSet"), (o) => deleteAt(o, "spec.replicas")));
    expect((noReplicas.spec as Record<string, unknown>).replicas).toBe(1);

    // An explicit RollingUpdate without parameters stays without them; an absent type gets partition 0 and maxUnavailable 1.
    const explicit = defaultObject(def("StatefulSet"), mutate(sample("StatefulSet"), (o) => setAt(o, "spec.updateStrategy", { type: "RollingUpdate" })));
    expect((explicit.spec as Record<string, unknown>).updateStrategy).toEqual({ type: "RollingUpdate" });
    const absent = defaultObject(def("StatefulSet"), mutate(sample("StatefulSet"), (o) => deleteAt(o, "spec.updateStrategy")));
    expect((absent.spec as Record<string, unknown>).updateStrategy).toEqual({ type: "RollingUpdate", rollingUpdate: { partition: 0, maxUnavailable: 1 } });

    const onDelete = defaultObject(def("DaemonSet"), mutate(sample("DaemonSet"), (o) => setAt(o, "spec.updateStrategy", { type: "OnDelete" })));
    expect((onDelete.spec as Record<string, unknown>).updateStrategy).toEqual({ type: "OnDelete" });
  });

  it("prints the platform's columns and cells", () => {
    const names = (k: string) => (def(k).tableColumns ?? []).map((c) => `${c.name}${c.priority ? "*" : ""}`);
    expect(names("Deployment")).toEqual(["Ready", "Up-to-date", "Available", "Age", "Containers*", "Images*", "Selector*"]);
    expect(names("ReplicaSet")).toEqual(["Desired", "Current", "Ready", "Age", "Containers*", "Images*", "Selector*"]);
    expect(names("StatefulSet")).toEqual(["Ready", "Age", "Containers*", "Images*"]);
    expect(names("DaemonSet")).toEqual(["Desired", "Current", "Ready", "Up-to-date", "Available", "Node Selector", "Age", "Containers*", "Images*", "Selector*"]);
    expect(names("ControllerRevision")).toEqual(["Controller", "Revision", "Age"]);

    const deploy = mutate(admit(def("Deployment"), sample("Deployment")).defaulted, (o) =>
      setAt(o, "status", { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 }),
    );
    const cells = (def("Deployment").tableColumns ?? []).map((c) => c.cell?.(deploy));
    expect(cells.slice(0, 3)).toEqual(["2/3", 3, 2]);
    expect(cells.slice(4)).toEqual(["frontend", "registry.example.com/shop/frontend:2.4.1", `${APP}/instance=web,${APP}/name=frontend`]);
    const ds = (def("DaemonSet").tableColumns ?? []).map((c) => c.cell?.(sample("DaemonSet")));
    expect(ds[5]).toBe(`${profile.labels.os}=linux`);
    const cr = (def("ControllerRevision").tableColumns ?? []).map((c) => c.cell?.(sample("ControllerRevision")));
    expect(cr.slice(0, 2)).toEqual(["daemonset.apps/log-collector", 2]);
  });
});
