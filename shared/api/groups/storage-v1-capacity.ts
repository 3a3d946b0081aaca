/**
 * storage/v1 CSIStorageCapacity: the capacity a CSI driver reports for one storage
 * class in one topology segment (namespaced). Protobuf field numbers are the
 * platform's (storage/v1 generated.proto). As on the platform: storageClassName must
 * be a DNS subdomain, capacity and maximumVolumeSize may not be negative, and
 * nodeTopology and storageClassName cannot change.
 */
import { named, quantity, str, tag, withOpts } from "../../schema/build.ts";
import { fieldErrors } from "../../schema/field-errors.ts";
import { isDNS1123Subdomain, parseQuantity } from "../../schema/formats.ts";
import type { FieldError, KindDefinition, Schema } from "../../schema/types.ts";
import { labelSelector, objectKind } from "./meta-v1.ts";
import { validateLabelSelector, type Obj } from "./workload-rules.ts";

export const csiStorageCapacity: Schema = named(
  "storage",
  "v1",
  "CSIStorageCapacity",
  objectKind({
    nodeTopology: tag(2, withOpts(labelSelector, { immutable: true, description: "The nodes that can reach the storage of this capacity; none when unset. Immutable." })),
    storageClassName: tag(3, str({ immutable: true, description: "The StorageClass this capacity applies to. Immutable." })),
    capacity: tag(4, quantity({ description: "Capacity reported by the driver for the topology segment and class; unknown when unset." })),
    maximumVolumeSize: tag(5, quantity({ description: "Largest volume that can be created with this class in the segment." })),
  }),
);

function nonNegative(value: unknown, path: string): FieldError[] {
  if (typeof value !== "string") return [];
  const q = parseQuantity(value);
  return "error" in q || !q.negative || /^[-+]?0*\.?0*$/.test(q.number) ? [] : [fieldErrors.invalid(path, value, "must be greater than or equal to 0")];
}

export function validateCSIStorageCapacity(o: Obj): FieldError[] {
  const name = typeof o.storageClassName === "string" ? o.storageClassName : "";
  const errs = isDNS1123Subdomain(name).map((msg) => fieldErrors.invalid("storageClassName", name, msg));
  errs.push(...validateLabelSelector(o.nodeTopology, "nodeTopology"));
  errs.push(...nonNegative(o.capacity, "capacity"), ...nonNegative(o.maximumVolumeSize, "maximumVolumeSize"));
  return errs;
}

const unsetOr = (v: unknown): string => (typeof v === "string" ? v : "<unset>");

export const csiStorageCapacityKind: KindDefinition = {
  group: "storage",
  version: "v1",
  kind: "CSIStorageCapacity",
  plural: "csistoragecapacities",
  singular: "csistoragecapacity",
  namespaced: true,
  schema: csiStorageCapacity,
  protobuf: true,
  validateKind: validateCSIStorageCapacity,
  tableColumns: [
    { name: "StorageClassName", type: "string", description: "The StorageClass this capacity applies to.", cell: (o) => String(o.storageClassName ?? "") },
    { name: "Capacity", type: "string", description: "Capacity reported for the topology segment and class.", cell: (o) => unsetOr(o.capacity) },
  ],
};
