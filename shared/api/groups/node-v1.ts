/**
 * node/v1: RuntimeClass (cluster-scoped), a class of container runtime
 * configuration. Protobuf field numbers are the platform's (node/v1
 * generated.proto). The handler is a DNS label and cannot change.
 */
import { format, list, mapOf, named, obj, quantity, str, tag, withOpts } from "../../schema/build.ts";
import { fieldErrors } from "../../schema/field-errors.ts";
import { isLabelValue, isQualifiedName } from "../../schema/formats.ts";
import type { FieldError, KindDefinition, Schema } from "../../schema/types.ts";
import { ageColumn } from "../table-cells.ts";
import { toleration } from "./core-v1.ts";
import { objectKind } from "./meta-v1.ts";
import { objAtPath, type Obj } from "./workload-rules.ts";

const Nd = (name: string, schema: Schema): Schema => named("node", "v1", name, schema);

export const overhead = Nd(
  "Overhead",
  obj({ podFixed: tag(1, mapOf(quantity(), { description: "Fixed resource overhead of running a pod." })) }, { description: "Resource overhead of a pod." }),
);

export const scheduling = Nd(
  "Scheduling",
  obj(
    {
      nodeSelector: tag(1, mapOf(str(), { mapType: "atomic", description: "Labels nodes supporting this class must have; merged into the pod's selector." })),
      tolerations: tag(2, list(toleration, { listType: "atomic", description: "Tolerations added to pods of this class." })),
    },
    { description: "Nodes that support a RuntimeClass." },
  ),
);

export const runtimeClass = Nd(
  "RuntimeClass",
  objectKind(
    {
      handler: tag(2, format("dns1123-label", { immutable: true, description: "Runtime configuration the CRI uses for pods of this class. Immutable." })),
      overhead: tag(3, withOpts(overhead, { description: "Resource overhead of pods of this class." })),
      scheduling: tag(4, withOpts(scheduling, { description: "Nodes that support this class; all nodes when unset." })),
    },
    { required: ["handler"] },
  ),
);

export function validateRuntimeClass(o: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const selector = objAtPath(o, "scheduling.nodeSelector");
  for (const [k, v] of Object.entries(selector ?? {})) {
    for (const msg of isQualifiedName(k)) errs.push(fieldErrors.invalid("scheduling.nodeSelector", k, msg));
    if (typeof v === "string") for (const msg of isLabelValue(v)) errs.push(fieldErrors.invalid("scheduling.nodeSelector", v, msg));
  }
  return errs;
}

export const kinds: KindDefinition[] = [
  {
    group: "node",
    version: "v1",
    kind: "RuntimeClass",
    plural: "runtimeclasses",
    singular: "runtimeclass",
    namespaced: false,
    schema: runtimeClass,
    protobuf: true,
    validateKind: validateRuntimeClass,
    tableColumns: [{ name: "Handler", type: "string", description: "Runtime handler of the class.", cell: (o) => String(o.handler ?? "") }, ageColumn],
  },
];
