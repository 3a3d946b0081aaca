/**
 * core/v1 PersistentVolume and PersistentVolumeClaim.
 */
import { enumOf, list, mapOf, obj, str, tag, time } from "../../schema/build.ts";
import { fieldErrors } from "../../schema/field-errors.ts";
import type { FieldError, KindDefinition, Schema } from "../../schema/types.ts";
import { ageColumn, getPath, listAt, strAt } from "../table-cells.ts";
import { objectKind } from "./meta-v1.ts";
import { C, conditionStatus, objectReference, resourceList, withImmutable } from "./core-v1-common.ts";
import { ACCESS_MODES, VOLUME_MODES, inlinedPersistentVolumeSource, persistentVolumeClaimSpec, volumeNodeAffinity } from "./core-v1-volume.ts";

type Obj = Record<string, unknown>;

export const persistentVolumeSpec = C(
  "PersistentVolumeSpec",
  obj(
    {
      capacity: tag(1, resourceList("Capacity of the volume (storage).")),
      ...inlinedPersistentVolumeSource(),
      accessModes: tag(3, list(enumOf(ACCESS_MODES), { listType: "atomic", description: "Ways the volume can be mounted." })),
      claimRef: tag(4, { ...objectReference, mapType: "granular", description: "Claim bound to the volume." }),
      persistentVolumeReclaimPolicy: tag(5, enumOf(["Retain", "Delete", "Recycle"], { default: "Retain", description: "What happens when the claim is released." })),
      storageClassName: tag(6, str({ description: "StorageClass of the volume." })),
      mountOptions: tag(7, list(str(), { listType: "atomic", description: "Mount options." })),
      volumeMode: tag(8, enumOf(VOLUME_MODES, { default: "Filesystem", immutable: true, description: "Filesystem or raw block." })),
      nodeAffinity: tag(9, { ...volumeNodeAffinity, immutable: true }),
      volumeAttributesClassName: tag(10, str({ description: "VolumeAttributesClass of the volume." })),
    },
    { description: "A persistent volume provisioned by an administrator or a provisioner." },
  ),
);

export const persistentVolumeStatus = C(
  "PersistentVolumeStatus",
  obj({
    phase: tag(1, enumOf(["Pending", "Available", "Bound", "Released", "Failed"], { default: "Pending" })),
    message: tag(2, str()),
    reason: tag(3, str()),
    lastPhaseTransitionTime: tag(4, time()),
  }),
);

/** RWO, ROX, RWX, RWOP as the CLI abbreviates access modes. */
export function accessModesString(modes: unknown[]): string {
  const abbrev: Array<[string, string]> = [
    ["ReadWriteOnce", "RWO"],
    ["ReadOnlyMany", "ROX"],
    ["ReadWriteMany", "RWX"],
    ["ReadWriteOncePod", "RWOP"],
  ];
  return abbrev
    .filter(([m]) => modes.includes(m))
    .map(([, a]) => a)
    .join(",");
}

function phaseOrTerminating(o: Obj): string {
  return strAt(o, "metadata.deletionTimestamp") ? "Terminating" : strAt(o, "status.phase");
}

function statusPhaseDefault(o: Obj): void {
  const status = (typeof o.status === "object" && o.status !== null && !Array.isArray(o.status) ? o.status : {}) as Obj;
  if (!status.phase) status.phase = "Pending";
  o.status = status;
}

export const persistentVolumeKind: KindDefinition = {
  group: "core",
  version: "v1",
  kind: "PersistentVolume",
  plural: "persistentvolumes",
  singular: "persistentvolume",
  namespaced: false,
  shortNames: ["pv"],
  subresources: ["status"],
  schema: C("PersistentVolume", objectKind({ spec: tag(2, persistentVolumeSpec), status: tag(3, persistentVolumeStatus) })),
  tableColumns: [
    { name: "Capacity", type: "string", description: "Capacity.", cell: (o) => String(getPath(o, "spec.capacity.storage") ?? "") },
    { name: "Access Modes", type: "string", description: "Access modes.", cell: (o) => accessModesString(listAt(o, "spec.accessModes")) },
    { name: "Reclaim Policy", type: "string", description: "Reclaim policy.", cell: (o) => strAt(o, "spec.persistentVolumeReclaimPolicy") },
    { name: "Status", type: "string", description: "Phase.", cell: phaseOrTerminating },
    {
      name: "Claim",
      type: "string",
      description: "Bound claim.",
      cell: (o) => (strAt(o, "spec.claimRef.name") ? `${strAt(o, "spec.claimRef.namespace")}/${strAt(o, "spec.claimRef.name")}` : ""),
    },
    { name: "StorageClass", type: "string", description: "StorageClass.", cell: (o) => strAt(o, "spec.storageClassName") },
    { name: "VolumeAttributesClass", type: "string", description: "VolumeAttributesClass.", cell: (o) => strAt(o, "spec.volumeAttributesClassName") || "<unset>" },
    { name: "Reason", type: "string", description: "Reason of the phase.", cell: (o) => strAt(o, "status.reason") },
    ageColumn,
    { name: "VolumeMode", type: "string", priority: 1, description: "Volume mode.", cell: (o) => strAt(o, "spec.volumeMode") || "<unset>" },
  ],
  protobuf: true,
  allowUnconditionalUpdate: true,
  defaulter: statusPhaseDefault,
};

export const persistentVolumeClaimCondition = C(
  "PersistentVolumeClaimCondition",
  obj(
    {
      type: tag(1, str()),
      status: tag(2, conditionStatus()),
      lastProbeTime: tag(3, time()),
      lastTransitionTime: tag(4, time()),
      reason: tag(5, str()),
      message: tag(6, str()),
    },
    { required: ["type", "status"] },
  ),
);

export const persistentVolumeClaimStatus = C(
  "PersistentVolumeClaimStatus",
  obj({
    phase: tag(1, enumOf(["Pending", "Bound", "Lost"], { default: "Pending" })),
    accessModes: tag(2, list(enumOf(ACCESS_MODES), { listType: "atomic" })),
    capacity: tag(3, resourceList()),
    conditions: tag(4, list(persistentVolumeClaimCondition, { listType: "map", mapKeys: ["type"], patchStrategy: "merge", patchMergeKey: "type" })),
    allocatedResources: tag(5, resourceList()),
    allocatedResourceStatuses: tag(
      7,
      mapOf(enumOf(["ControllerResizeInProgress", "ControllerResizeFailed", "NodeResizePending", "NodeResizeInProgress", "NodeResizeFailed"]), { mapType: "granular" }),
    ),
    currentVolumeAttributesClassName: tag(8, str()),
    modifyVolumeStatus: tag(
      9,
      C("ModifyVolumeStatus", obj({ targetVolumeAttributesClassName: tag(1, str()), status: tag(2, enumOf(["Pending", "InProgress", "Infeasible"])) }, { required: ["status"] })),
    ),
  }),
);

/** A PersistentVolumeClaim object (as embedded in StatefulSet volumeClaimTemplates). */
export const persistentVolumeClaim = C("PersistentVolumeClaim", objectKind({ spec: tag(2, persistentVolumeClaimSpec), status: tag(3, persistentVolumeClaimStatus) }));

/** Claim spec of a stored claim: only requests, the attributes class and an unset volume name may change. */
const storedClaimSpec: Schema = withImmutable(persistentVolumeClaimSpec, {
  only: ["accessModes", "selector", "volumeName", "storageClassName", "volumeMode", "dataSource", "dataSourceRef"],
});

/** A claim asks for at least one access mode and a storage size. */
function validateClaim(pvc: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const modes = getPath(pvc, "spec.accessModes");
  // A value of the wrong type is the schema's error, not reported twice.
  if (modes === undefined || (Array.isArray(modes) && modes.length === 0)) errs.push(fieldErrors.required("spec.accessModes", "at least 1 access mode is required"));
  if (getPath(pvc, "spec.resources.requests.storage") === undefined) errs.push(fieldErrors.required("spec.resources[storage]"));
  return errs;
}

export const persistentVolumeClaimKind: KindDefinition = {
  group: "core",
  version: "v1",
  kind: "PersistentVolumeClaim",
  plural: "persistentvolumeclaims",
  singular: "persistentvolumeclaim",
  namespaced: true,
  shortNames: ["pvc"],
  subresources: ["status"],
  schema: C("PersistentVolumeClaim", objectKind({ spec: tag(2, storedClaimSpec), status: tag(3, persistentVolumeClaimStatus) })),
  tableColumns: [
    { name: "Status", type: "string", description: "Phase.", cell: phaseOrTerminating },
    { name: "Volume", type: "string", description: "Bound volume.", cell: (o) => strAt(o, "spec.volumeName") },
    { name: "Capacity", type: "string", description: "Capacity.", cell: (o) => (strAt(o, "spec.volumeName") ? String(getPath(o, "status.capacity.storage") ?? "0") : "") },
    { name: "Access Modes", type: "string", description: "Access modes.", cell: (o) => (strAt(o, "spec.volumeName") ? accessModesString(listAt(o, "status.accessModes")) : "") },
    { name: "StorageClass", type: "string", description: "StorageClass.", cell: (o) => strAt(o, "spec.storageClassName") },
    { name: "VolumeAttributesClass", type: "string", description: "VolumeAttributesClass.", cell: (o) => strAt(o, "spec.volumeAttributesClassName") || "<unset>" },
    ageColumn,
    { name: "VolumeMode", type: "string", priority: 1, description: "Volume mode.", cell: (o) => strAt(o, "spec.volumeMode") || "<unset>" },
  ],
  protobuf: true,
  allowUnconditionalUpdate: true,
  defaulter: statusPhaseDefault,
  validateKind: validateClaim,
};
