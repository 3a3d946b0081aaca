/**
 * storage/v1: StorageClass, CSIDriver, CSINode and VolumeAttachment, all
 * cluster-scoped, VolumeAttributesClass (storage-v1-vac.ts), and the namespaced CSIStorageCapacity (storage-v1-capacity.ts). Protobuf field numbers are the platform's (storage/v1
 * generated.proto). A StorageClass has no spec: its fields sit at the top
 * level, and provisioner, parameters, reclaimPolicy and volumeBindingMode
 * cannot change once set.
 */
import { bool, enumOf, int32, int64, list, mapOf, named, obj, str, tag, time, withOpts } from "../../schema/build.ts";
import { fieldErrors } from "../../schema/field-errors.ts";
import { isDNS1123Subdomain, isQualifiedName } from "../../schema/formats.ts";
import type { FieldError, KindDefinition, Schema } from "../../schema/types.ts";
import { ageColumn, getPath, listAt } from "../table-cells.ts";
import { persistentVolumeSpec, topologySelectorTerm } from "./core-v1.ts";
import { csiStorageCapacityKind } from "./storage-v1-capacity.ts";
import { volumeAttributesClassKind } from "./storage-v1-vac.ts";
import { objectKind } from "./meta-v1.ts";
import { ensureObj, isObj, type Obj } from "./workload-rules.ts";

const St = (name: string, schema: Schema): Schema => named("storage", "v1", name, schema);
const d = (schema: Schema, description: string): Schema => withOpts(schema, { description });

export const CSI_DRIVER_NAME_MAX_LENGTH = 63;
export const CSI_NODE_ID_MAX_LENGTH = 192;
export const STORAGE_CLASS_PARAMETERS_MAX = 512;

// ---------------------------------------------------------------- StorageClass

export const storageClass = St(
  "StorageClass",
  objectKind(
    {
      provisioner: tag(2, str({ immutable: true, description: "Provisioner of the volumes of this class. Immutable." })),
      parameters: tag(
        3,
        mapOf(str(), { immutable: true, maxProperties: STORAGE_CLASS_PARAMETERS_MAX, description: "Parameters passed to the provisioner. Immutable." }),
      ),
      reclaimPolicy: tag(4, enumOf(["Delete", "Retain"], { default: "Delete", immutable: true, description: "Reclaim policy of provisioned volumes. Immutable." })),
      mountOptions: tag(5, list(str(), { listType: "atomic", description: "Mount options of provisioned volumes (not validated)." })),
      allowVolumeExpansion: tag(6, bool({ description: "Whether volumes of this class may be expanded." })),
      volumeBindingMode: tag(
        7,
        enumOf(["Immediate", "WaitForFirstConsumer"], { default: "Immediate", immutable: true, description: "When claims are bound and provisioned. Immutable." }),
      ),
      allowedTopologies: tag(8, list(topologySelectorTerm, { listType: "atomic", description: "Topologies where volumes may be provisioned; anywhere when empty." })),
    },
    { required: ["provisioner"] },
  ),
);

function validateProvisionerLike(value: unknown, path: string): FieldError[] {
  if (typeof value !== "string") return [];
  if (value === "") return [fieldErrors.required(path)];
  return isQualifiedName(value.toLowerCase()).map((msg) => fieldErrors.invalid(path, value, msg));
}

export function validateStorageClass(o: Obj): FieldError[] {
  const errs = validateProvisionerLike(o.provisioner, "provisioner");
  if (isObj(o.parameters)) {
    let size = 0;
    for (const [k, v] of Object.entries(o.parameters)) {
      if (k === "") errs.push(fieldErrors.invalid("parameters", k, "field can not be empty."));
      size += k.length + (typeof v === "string" ? v.length : 0);
    }
    if (size > 256 * 1024) errs.push(fieldErrors.tooLong("parameters", 256 * 1024));
  }
  return errs;
}

// ---------------------------------------------------------------- CSIDriver

export const tokenRequest = St(
  "TokenRequest",
  obj(
    {
      audience: tag(1, str({ description: "Audience of the token." })),
      expirationSeconds: tag(2, int64({ description: "Validity of the token in seconds." })),
    },
    { required: ["audience"], description: "A service account token the driver needs." },
  ),
);

export const csiDriverSpec = St(
  "CSIDriverSpec",
  obj(
    {
      attachRequired: tag(1, bool({ default: true, immutable: true, description: "The driver needs an attach operation. Immutable." })),
      podInfoOnMount: tag(2, bool({ default: false, description: "Pass pod information in NodePublishVolume calls." })),
      volumeLifecycleModes: tag(
        3,
        list(enumOf(["Persistent", "Ephemeral"]), { listType: "set", immutable: true, description: "Volume modes supported (Persistent when empty). Immutable." }),
      ),
      storageCapacity: tag(4, bool({ default: false, description: "Scheduling considers the capacity the driver reports." })),
      fsGroupPolicy: tag(
        5,
        enumOf(["None", "File", "ReadWriteOnceWithFSType"], { default: "ReadWriteOnceWithFSType", description: "Whether ownership and permissions may be changed on mount." }),
      ),
      tokenRequests: tag(6, list(tokenRequest, { listType: "atomic", description: "Service account tokens passed on NodePublishVolume." })),
      requiresRepublish: tag(7, bool({ default: false, description: "NodePublishVolume is called periodically." })),
      seLinuxMount: tag(8, bool({ default: false, description: "The driver supports the `-o context` mount option." })),
      nodeAllocatableUpdatePeriodSeconds: tag(9, int64({ minimum: 10, description: "Interval of updates of the CSINode allocatable count." })),
      serviceAccountTokenInSecrets: tag(10, bool({ description: "Tokens are passed in the Secrets field of NodePublishVolume." })),
    },
    { description: "Capabilities of a CSI driver." },
  ),
);

export const csiDriver = St("CSIDriver", objectKind({ spec: tag(2, d(csiDriverSpec, "Specification of the driver.")) }, { required: ["spec"] }));

export function defaultCSIDriver(o: Obj): void {
  const spec = ensureObj(o, "spec");
  if (!Array.isArray(spec.volumeLifecycleModes) || spec.volumeLifecycleModes.length === 0) spec.volumeLifecycleModes = ["Persistent"];
}

function driverNameErrors(name: string, path: string): FieldError[] {
  if (name === "") return [fieldErrors.required(path)];
  const errs: FieldError[] = [];
  if (name.length > CSI_DRIVER_NAME_MAX_LENGTH) errs.push(fieldErrors.tooLongMaxLength(path, CSI_DRIVER_NAME_MAX_LENGTH));
  for (const msg of isDNS1123Subdomain(name.toLowerCase())) errs.push(fieldErrors.invalid(path, name, msg));
  return errs;
}

export function validateCSIDriver(o: Obj): FieldError[] {
  const name = getPath(o, "metadata.name");
  const errs = typeof name === "string" && name !== "" ? driverNameErrors(name, "metadata.name") : [];
  const spec = isObj(o.spec) ? o.spec : {};
  if (spec.serviceAccountTokenInSecrets === true && listAt(spec, "tokenRequests").length === 0) {
    errs.push(fieldErrors.invalid("spec.serviceAccountTokenInSecrets", true, "serviceAccountTokenInSecrets can only be set to true when tokenRequests is specified"));
  }
  const audiences = new Set<string>();
  listAt(spec, "tokenRequests").forEach((t, i) => {
    const a = String(getPath(t, "audience") ?? "");
    if (audiences.has(a)) errs.push(fieldErrors.duplicate(`spec.tokenRequests[${i}].audience`, a));
    audiences.add(a);
  });
  return errs;
}

// ---------------------------------------------------------------- CSINode

export const csiNodeDriver = St(
  "CSINodeDriver",
  obj(
    {
      name: tag(1, str({ description: "Name of the CSI driver." })),
      nodeID: tag(2, str({ maxLength: CSI_NODE_ID_MAX_LENGTH, immutable: true, description: "The node's identity for the driver. Immutable." })),
      topologyKeys: tag(3, list(str(), { listType: "atomic", immutable: true, description: "Topology keys the driver supports. Immutable." })),
      allocatable: tag(
        4,
        St(
          "VolumeNodeResources",
          obj({ count: tag(1, int32({ minimum: 0, description: "Volumes of this driver usable on the node; unbounded when unset." })) }, { description: "Volume limits of a node." }),
        ),
      ),
    },
    { required: ["name", "nodeID"], description: "One CSI driver installed on a node." },
  ),
);

export const csiNode = St(
  "CSINode",
  objectKind(
    {
      spec: tag(
        2,
        St(
          "CSINodeSpec",
          obj(
            { drivers: tag(1, list(csiNodeDriver, { listType: "map", mapKeys: ["name"], patchStrategy: "merge", patchMergeKey: "name", description: "CSI drivers on the node." })) },
            { required: ["drivers"], description: "CSI drivers installed on a node." },
          ),
        ),
      ),
    },
    { required: ["spec"] },
  ),
);

export function validateCSINode(o: Obj): FieldError[] {
  const errs: FieldError[] = [];
  listAt(o, "spec.drivers").forEach((drv, i) => {
    const name = getPath(drv, "name");
    if (typeof name === "string") errs.push(...driverNameErrors(name, `spec.drivers[${i}].name`));
    if (getPath(drv, "nodeID") === "") errs.push(fieldErrors.required(`spec.drivers[${i}].nodeID`));
    listAt(drv, "topologyKeys").forEach((k, j) => {
      if (typeof k === "string") for (const msg of isQualifiedName(k)) errs.push(fieldErrors.invalid(`spec.drivers[${i}].topologyKeys[${j}]`, k, msg));
    });
  });
  return errs;
}

// ---------------------------------------------------------------- VolumeAttachment

export const volumeAttachmentSource = St(
  "VolumeAttachmentSource",
  obj(
    {
      persistentVolumeName: tag(1, str({ description: "PersistentVolume to attach." })),
      inlineVolumeSpec: tag(2, d(persistentVolumeSpec, "An inline pod volume translated for CSI migration.")),
    },
    { description: "The volume to attach; exactly one member." },
  ),
);

export const volumeAttachmentSpec = St(
  "VolumeAttachmentSpec",
  obj(
    {
      attacher: tag(1, str({ description: "Volume driver that handles the request." })),
      source: tag(2, d(volumeAttachmentSource, "The volume to attach.")),
      nodeName: tag(3, str({ description: "Node the volume is attached to." })),
    },
    { required: ["attacher", "source", "nodeName"], description: "Desired attachment of a volume to a node." },
  ),
);

export const volumeError = St(
  "VolumeError",
  obj(
    {
      time: tag(1, time({ description: "When the error happened." })),
      message: tag(2, str({ description: "The error (logged; no secrets)." })),
      errorCode: tag(3, int32({ description: "gRPC code of the error." })),
    },
    { description: "An error of an attach or detach operation." },
  ),
);

export const volumeAttachmentStatus = St(
  "VolumeAttachmentStatus",
  obj(
    {
      attached: tag(1, bool({ description: "The volume is attached." })),
      attachmentMetadata: tag(2, mapOf(str(), { description: "Information from the attach operation for later calls." })),
      attachError: tag(3, d(volumeError, "Last attach error.")),
      detachError: tag(4, d(volumeError, "Last detach error.")),
    },
    { required: ["attached"], description: "Observed state of an attachment." },
  ),
);

export const volumeAttachment = St(
  "VolumeAttachment",
  objectKind(
    {
      spec: tag(2, withOpts(volumeAttachmentSpec, { immutable: true, description: "Desired attachment. Immutable." })),
      status: tag(3, volumeAttachmentStatus),
    },
    { required: ["spec"] },
  ),
);

export function validateVolumeAttachment(o: Obj): FieldError[] {
  const spec = isObj(o.spec) ? o.spec : {};
  const errs = validateProvisionerLike(spec.attacher, "spec.attacher");
  const source = isObj(spec.source) ? spec.source : undefined;
  if (source) {
    const n = (source.persistentVolumeName != null && source.persistentVolumeName !== "" ? 1 : 0) + (source.inlineVolumeSpec != null ? 1 : 0);
    if (n !== 1) errs.push(fieldErrors.required("spec.source", "must specify exactly one of inlineVolumeSpec and persistentVolumeName"));
  }
  if (typeof spec.nodeName === "string" && spec.nodeName !== "") {
    for (const msg of isDNS1123Subdomain(spec.nodeName)) errs.push(fieldErrors.invalid("spec.nodeName", spec.nodeName, msg));
  }
  return errs;
}

// ---------------------------------------------------------------- kinds

const boolOr = (v: unknown, dflt: boolean): boolean => (typeof v === "boolean" ? v : dflt);

export const kinds: KindDefinition[] = [
  {
    group: "storage",
    version: "v1",
    kind: "StorageClass",
    plural: "storageclasses",
    singular: "storageclass",
    namespaced: false,
    shortNames: ["sc"],
    schema: storageClass,
    protobuf: true,
    validateKind: validateStorageClass,
    tableColumns: [
      { name: "Provisioner", type: "string", description: "Provisioner of the volumes.", cell: (o) => String(o.provisioner ?? "") },
      { name: "ReclaimPolicy", type: "string", description: "Reclaim policy of provisioned volumes.", cell: (o) => String(o.reclaimPolicy ?? "Delete") },
      { name: "VolumeBindingMode", type: "string", description: "When claims are bound.", cell: (o) => String(o.volumeBindingMode ?? "Immediate") },
      { name: "AllowVolumeExpansion", type: "string", description: "Whether volumes may be expanded.", cell: (o) => boolOr(o.allowVolumeExpansion, false) },
      ageColumn,
    ],
  },
  {
    group: "storage",
    version: "v1",
    kind: "CSIDriver",
    plural: "csidrivers",
    singular: "csidriver",
    namespaced: false,
    schema: csiDriver,
    protobuf: true,
    defaulter: defaultCSIDriver,
    validateKind: validateCSIDriver,
    tableColumns: [
      { name: "AttachRequired", type: "boolean", description: "Whether an attach operation is needed.", cell: (o) => boolOr(getPath(o, "spec.attachRequired"), true) },
      { name: "PodInfoOnMount", type: "boolean", description: "Whether pod information is passed on mount.", cell: (o) => boolOr(getPath(o, "spec.podInfoOnMount"), false) },
      { name: "StorageCapacity", type: "boolean", description: "Whether capacity is considered in scheduling.", cell: (o) => boolOr(getPath(o, "spec.storageCapacity"), false) },
      {
        name: "TokenRequests",
        type: "string",
        description: "Audiences of the requested tokens.",
        cell: (o) => (Array.isArray(getPath(o, "spec.tokenRequests")) ? listAt(o, "spec.tokenRequests").map((t) => String(getPath(t, "audience") ?? "")).join(",") : "<unset>"),
      },
      { name: "RequiresRepublish", type: "boolean", description: "Whether NodePublishVolume is repeated.", cell: (o) => boolOr(getPath(o, "spec.requiresRepublish"), false) },
      { name: "Modes", type: "string", description: "Supported volume lifecycle modes.", cell: (o) => listAt(o, "spec.volumeLifecycleModes").map(String).join(",") || "<none>" },
      ageColumn,
    ],
  },
  {
    group: "storage",
    version: "v1",
    kind: "CSINode",
    plural: "csinodes",
    singular: "csinode",
    namespaced: false,
    schema: csiNode,
    protobuf: true,
    validateKind: validateCSINode,
    tableColumns: [
      { name: "Drivers", type: "integer", description: "Drivers indicates the number of CSI drivers registered on the node", cell: (o) => listAt(o, "spec.drivers").length },
      ageColumn,
    ],
  },
  {
    group: "storage",
    version: "v1",
    kind: "VolumeAttachment",
    plural: "volumeattachments",
    singular: "volumeattachment",
    namespaced: false,
    subresources: ["status"],
    schema: volumeAttachment,
    protobuf: true,
    validateKind: validateVolumeAttachment,
    tableColumns: [
      { name: "Attacher", type: "string", format: "name", description: "Volume driver handling the attachment.", cell: (o) => String(getPath(o, "spec.attacher") ?? "") },
      { name: "PV", type: "string", description: "PersistentVolume attached.", cell: (o) => String(getPath(o, "spec.source.persistentVolumeName") ?? "") },
      { name: "Node", type: "string", description: "Node the volume is attached to.", cell: (o) => String(getPath(o, "spec.nodeName") ?? "") },
      { name: "Attached", type: "boolean", description: "Whether the volume is attached.", cell: (o) => boolOr(getPath(o, "status.attached"), false) },
      ageColumn,
    ],
  },
  csiStorageCapacityKind,
  volumeAttributesClassKind,
];
