import { describe, expect, it } from "vitest";
import { validateImmutable } from "../../schema/index.ts";
import { defaultObject, deleteAt, getAt, mutate, paths, setAt } from "../testing/sample-harness.ts";
import { kinds } from "./storage-v1.ts";
import { byKind, sampleOf, sampleSuite } from "../testing/sample-suite.ts";

const DIR = "storage-v1";
const def = (k: string) => byKind(kinds, k);
const sample = (k: string) => sampleOf(DIR, kinds, k);
const SC = "StorageClass";
const CD = "CSIDriver";
const VA = "VolumeAttachment";

sampleSuite({
  dir: DIR,
  kinds,
  defaults: {
    StorageClass: { reclaimPolicy: "Retain", volumeBindingMode: "WaitForFirstConsumer" },
    CSIDriver: {
      "spec.attachRequired": false,
      "spec.podInfoOnMount": true,
      "spec.storageCapacity": false,
      "spec.fsGroupPolicy": "ReadWriteOnceWithFSType",
      "spec.requiresRepublish": true,
      "spec.seLinuxMount": false,
      "spec.volumeLifecycleModes": ["Ephemeral"],
    },
    CSINode: { "spec.drivers[1].nodeID": "worker-3" },
    VolumeAttachment: { "status.attached": true },
  },
  mutations: [
    { name: "unknown field", kind: SC, edit: (o) => setAt(o, "allowedTopologies[0].matchLabelExpressions[0].operator", "In"), unknown: ["allowedTopologies[0].matchLabelExpressions[0].operator"] },
    { name: "wrong type", kind: SC, edit: (o) => setAt(o, "parameters.iops", 6000), errors: ["parameters[iops]"], types: ["FieldValueTypeInvalid"] },
    { name: "bad name", kind: SC, edit: (o) => setAt(o, "metadata.name", "Fast-SSD"), errors: ["metadata.name"] },
    { name: "missing provisioner", kind: SC, edit: (o) => deleteAt(o, "provisioner"), errors: ["provisioner"], types: ["FieldValueRequired"] },
    { name: "Recycle is not a class reclaim policy", kind: SC, edit: (o) => setAt(o, "reclaimPolicy", "Recycle"), errors: ["reclaimPolicy"], types: ["FieldValueNotSupported"] },
    { name: "bad binding mode", kind: SC, edit: (o) => setAt(o, "volumeBindingMode", "Lazy"), errors: ["volumeBindingMode"] },
    { name: "provisioner not a qualified name", kind: SC, edit: (o) => setAt(o, "provisioner", "ebs csi"), errors: ["provisioner"] },
    { name: "namespace on a cluster-scoped kind", kind: SC, edit: (o) => setAt(o, "metadata.namespace", "default"), errors: ["metadata.namespace"], types: ["FieldValueForbidden"] },
    { name: "unknown nested field", kind: CD, edit: (o) => setAt(o, "spec.tokenRequests[0].expiration", 60), unknown: ["spec.tokenRequests[0].expiration"] },
    { name: "wrong type", kind: CD, edit: (o) => setAt(o, "spec.attachRequired", "no"), errors: ["spec.attachRequired"], types: ["FieldValueTypeInvalid"] },
    { name: "bad lifecycle mode", kind: CD, edit: (o) => setAt(o, "spec.volumeLifecycleModes", ["Temporary"]), errors: ["spec.volumeLifecycleModes[0]"], types: ["FieldValueNotSupported"] },
    { name: "missing audience", kind: CD, edit: (o) => deleteAt(o, "spec.tokenRequests[0].audience"), errors: ["spec.tokenRequests[0].audience"], types: ["FieldValueRequired"] },
    { name: "absent spec (defaulted like the platform's non-pointer spec)", kind: CD, edit: (o) => deleteAt(o, "spec"), errors: [] },
    { name: "driver name over 63 characters", kind: CD, edit: (o) => setAt(o, "metadata.name", `${"a".repeat(60)}.example.com`), errors: ["metadata.name"] },
    { name: "missing nodeID", kind: "CSINode", edit: (o) => deleteAt(o, "spec.drivers[0].nodeID"), errors: ["spec.drivers[0].nodeID"], types: ["FieldValueRequired"] },
    { name: "duplicate driver", kind: "CSINode", edit: (o) => setAt(o, "spec.drivers[1].name", "ebs.csi.example.com"), errors: ["spec.drivers[1]"], types: ["FieldValueDuplicate"] },
    { name: "unknown nested field", kind: "CSINode", edit: (o) => setAt(o, "spec.drivers[0].allocatable.max", 3), unknown: ["spec.drivers[0].allocatable.max"] },
    { name: "missing attacher", kind: VA, edit: (o) => deleteAt(o, "spec.attacher"), errors: ["spec.attacher"], types: ["FieldValueRequired"] },
    { name: "no volume source", kind: VA, edit: (o) => setAt(o, "spec.source", {}), errors: ["spec.source"] },
    { name: "wrong type", kind: VA, edit: (o) => setAt(o, "status.attached", "true"), errors: ["status.attached"], types: ["FieldValueTypeInvalid"] },
  ],
});

describe("storage/v1", () => {
  it("declares its kinds with the platform's names (CSIStorageCapacity is the one namespaced kind)", () => {
    expect(kinds.map((k) => [k.kind, k.plural, k.namespaced, k.shortNames ?? [], k.subresources ?? []])).toEqual([
      ["StorageClass", "storageclasses", false, ["sc"], []],
      ["CSIDriver", "csidrivers", false, [], []],
      ["CSINode", "csinodes", false, [], []],
      ["VolumeAttachment", "volumeattachments", false, [], ["status"]],
      ["CSIStorageCapacity", "csistoragecapacities", true, [], []],
      ["VolumeAttributesClass", "volumeattributesclasses", false, ["vac"], []],
    ]);
  });

  it("uses the platform's protobuf field numbers and list markers", () => {
    const sc = def(SC).schema.properties ?? {};
    expect(["provisioner", "parameters", "reclaimPolicy", "mountOptions", "allowVolumeExpansion", "volumeBindingMode", "allowedTopologies"].map((k) => sc[k].protoTag)).toEqual([2, 3, 4, 5, 6, 7, 8]);
    const cd = def(CD).schema.properties?.spec.properties ?? {};
    expect([cd.attachRequired.protoTag, cd.volumeLifecycleModes.protoTag, cd.tokenRequests.protoTag, cd.seLinuxMount.protoTag, cd.volumeLifecycleModes.listType]).toEqual([1, 3, 6, 8, "set"]);
    const drivers = def("CSINode").schema.properties?.spec.properties?.drivers;
    expect([drivers?.listType, drivers?.listMapKeys, drivers?.patchMergeKey]).toEqual(["map", ["name"], "name"]);
    const va = def(VA).schema.properties?.spec.properties ?? {};
    expect([va.attacher.protoTag, va.source.protoTag, va.nodeName.protoTag]).toEqual([1, 2, 3]);
  });

  it("defaults a class's policies and a driver's lifecycle modes", () => {
    const plain = defaultObject(def(SC), mutate(sample(SC), (o) => {
      deleteAt(o, "reclaimPolicy");
      deleteAt(o, "volumeBindingMode");
    }));
    expect([plain.reclaimPolicy, plain.volumeBindingMode]).toEqual(["Delete", "Immediate"]);
    const bare = defaultObject(def(CD), { apiVersion: sample(CD).apiVersion, kind: CD, metadata: { name: "x.example.com" }, spec: {} });
    expect(getAt(bare, "spec")).toEqual({
      attachRequired: true,
      podInfoOnMount: false,
      storageCapacity: false,
      fsGroupPolicy: "ReadWriteOnceWithFSType",
      requiresRepublish: false,
      seLinuxMount: false,
      volumeLifecycleModes: ["Persistent"],
    });
    expect(getAt(defaultObject(def(CD), mutate(sample(CD), (o) => setAt(o, "spec.volumeLifecycleModes", []))), "spec.volumeLifecycleModes")).toEqual(["Persistent"]);
  });

  it("keeps provisioning fields, driver attach mode and attachment specs immutable", () => {
    const sc = sample(SC);
    const changed = mutate(sc, (o) => {
      setAt(o, "parameters.iops", "9000");
      setAt(o, "reclaimPolicy", "Delete");
      setAt(o, "allowVolumeExpansion", false);
    });
    expect(paths(validateImmutable(def(SC).schema, sc, changed))).toEqual(["parameters", "reclaimPolicy"]);
    const cd = sample(CD);
    expect(paths(validateImmutable(def(CD).schema, cd, mutate(cd, (o) => setAt(o, "spec.attachRequired", true))))).toEqual(["spec.attachRequired"]);
    expect(validateImmutable(def(CD).schema, cd, mutate(cd, (o) => setAt(o, "spec.podInfoOnMount", false)))).toEqual([]);
    const va = sample(VA);
    expect(paths(validateImmutable(def(VA).schema, va, mutate(va, (o) => setAt(o, "spec.nodeName", "worker-4"))))).toEqual(["spec"]);
    const node = sample("CSINode");
    const renumbered = mutate(node, (o) => setAt(o, "spec.drivers[0].nodeID", "i-999"));
    expect(paths(validateImmutable(def("CSINode").schema, node, renumbered))).toEqual(["spec.drivers[0].nodeID"]);
  });

  it("prints the platform's columns", () => {
    const cells = (k: string) => (def(k).tableColumns ?? []).map((c) => c.cell?.(sample(k)));
    expect(cells(SC).slice(0, 4)).toEqual(["ebs.csi.example.com", "Retain", "WaitForFirstConsumer", true]);
    expect((def(CD).tableColumns ?? []).map((c) => c.name)).toEqual(["AttachRequired", "PodInfoOnMount", "StorageCapacity", "TokenRequests", "RequiresRepublish", "Modes", "Age"]);
    expect(cells(CD).slice(0, 6)).toEqual([false, true, false, "vault.example.com", true, "Ephemeral"]);
    expect(cells("CSINode")[0]).toBe(2);
    expect(cells(VA).slice(0, 4)).toEqual(["ebs.csi.example.com", "pvc-3b2a1f0e-9d8c-4b7a-a6f5-e4d3c2b1a0f9", "worker-3", true]);
  });
});
