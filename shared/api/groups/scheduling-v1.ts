/**
 * scheduling/v1: PriorityClass (cluster-scoped). Protobuf field numbers are
 * the platform's (scheduling/v1 generated.proto). The value and the
 * preemption policy cannot change; names starting with `system-` are reserved
 * for the two built-in classes.
 */
import { bool, enumOf, int32, named, str, tag } from "../../schema/build.ts";
import { fieldErrors } from "../../schema/field-errors.ts";
import type { FieldError, KindDefinition, Schema } from "../../schema/types.ts";
import { ageColumn, getPath } from "../table-cells.ts";
import { objectKind } from "./meta-v1.ts";
import type { Obj } from "./workload-rules.ts";

const Sc = (name: string, schema: Schema): Schema => named("scheduling", "v1", name, schema);

/** Highest value a user-defined class may have; larger values belong to system classes. */
export const HIGHEST_USER_DEFINABLE_PRIORITY = 1000000000;
export const SYSTEM_PRIORITY_CLASS_PREFIX = "system-";
/** The built-in classes and their values. */
export const SYSTEM_PRIORITY_CLASSES: Readonly<Record<string, number>> = {
  "system-node-critical": 2000001000,
  "system-cluster-critical": 2000000000,
};

export const priorityClass = Sc(
  "PriorityClass",
  objectKind(
    {
      value: tag(2, int32({ immutable: true, description: "Priority pods of this class receive. Immutable." })),
      globalDefault: tag(3, bool({ description: "Default priority of pods without a class; at most one class should set it." })),
      description: tag(4, str({ description: "When this class should be used." })),
      preemptionPolicy: tag(
        5,
        enumOf(["Never", "PreemptLowerPriority"], { default: "PreemptLowerPriority", immutable: true, description: "Whether pods of this class preempt lower-priority pods. Immutable." }),
      ),
    },
    { required: ["value"] },
  ),
);

export function validatePriorityClass(o: Obj): FieldError[] {
  const name = getPath(o, "metadata.name");
  const value = o.value;
  if (typeof name === "string" && name.startsWith(SYSTEM_PRIORITY_CLASS_PREFIX)) {
    const known = SYSTEM_PRIORITY_CLASSES[name];
    let problem = "";
    if (known === undefined) problem = `${name} is not a known system priority class`;
    else if (value !== known) problem = `value of ${name} PriorityClass must be ${known}`;
    else if (o.globalDefault === true) problem = `globalDefault of ${name} PriorityClass must be false`;
    return problem
      ? [fieldErrors.forbidden("metadata.name", `priority class names with '${SYSTEM_PRIORITY_CLASS_PREFIX}' prefix are reserved for system use only. error: ${problem}`)]
      : [];
  }
  if (typeof value === "number" && value > HIGHEST_USER_DEFINABLE_PRIORITY) {
    return [fieldErrors.forbidden("value", `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}`)];
  }
  return [];
}

export const kinds: KindDefinition[] = [
  {
    group: "scheduling",
    version: "v1",
    kind: "PriorityClass",
    plural: "priorityclasses",
    singular: "priorityclass",
    namespaced: false,
    shortNames: ["pc"],
    schema: priorityClass,
    protobuf: true,
    validateKind: validatePriorityClass,
    tableColumns: [
      { name: "Value", type: "integer", description: "Priority of the class.", cell: (o) => (typeof o.value === "number" ? o.value : 0) },
      { name: "Global-Default", type: "boolean", description: "Whether this is the default class.", cell: (o) => o.globalDefault === true },
      ageColumn,
      { name: "PreemptionPolicy", type: "string", description: "Preemption policy of the class.", cell: (o) => String(o.preemptionPolicy ?? "") },
    ],
  },
];
