/**
 * policy/v1: PodDisruptionBudget and Eviction. Protobuf field numbers are the
 * platform's (policy/v1 generated.proto). Eviction is a virtual kind: it is
 * only ever POSTed to a pod's `eviction` subresource and never stored, so it
 * is exported as `evictionKind`, outside `kinds`.
 */
import { enumOf, int32, int64, intOrString, list, mapOf, named, obj, tag, time, withOpts } from "../../schema/build.ts";
import { fieldErrors } from "../../schema/field-errors.ts";
import type { FieldError, KindDefinition, Schema } from "../../schema/types.ts";
import { ageColumn, getPath, numAt } from "../table-cells.ts";
import { condition, deleteOptions, labelSelector, objectKind } from "./meta-v1.ts";
import { isObj, notMoreThan100Percent, validateIntOrPercent, validateLabelSelector, type Obj } from "./workload-rules.ts";

const P = (name: string, schema: Schema): Schema => named("policy", "v1", name, schema);

export const podDisruptionBudgetSpec = P(
  "PodDisruptionBudgetSpec",
  obj(
    {
      minAvailable: tag(1, intOrString({ description: "Evictions are allowed while at least this many selected pods stay available (number or percentage)." })),
      selector: tag(
        2,
        withOpts(labelSelector, { patchStrategy: "replace", description: "Pods the budget covers; empty selects all pods of the namespace, unset selects none." }),
      ),
      maxUnavailable: tag(3, intOrString({ description: "Evictions are allowed while at most this many selected pods are unavailable; exclusive with minAvailable." })),
      unhealthyPodEvictionPolicy: tag(
        4,
        enumOf(["IfHealthyBudget", "AlwaysAllow"], { description: "When running but unhealthy pods may be evicted (IfHealthyBudget when unset)." }),
      ),
    },
    { description: "Desired disruption budget." },
  ),
);

export const podDisruptionBudgetStatus = P(
  "PodDisruptionBudgetStatus",
  obj(
    {
      observedGeneration: tag(1, int64({ description: "Generation observed when this status was computed." })),
      disruptedPods: tag(2, mapOf(time(), { description: "Pods whose eviction was accepted but not yet observed, with the time of acceptance." })),
      disruptionsAllowed: tag(3, int32({ description: "Pod disruptions currently allowed." })),
      currentHealthy: tag(4, int32({ description: "Current number of healthy pods." })),
      desiredHealthy: tag(5, int32({ description: "Minimum desired number of healthy pods." })),
      expectedPods: tag(6, int32({ description: "Total number of pods counted by the budget." })),
      conditions: tag(
        7,
        list(condition, { listType: "map", mapKeys: ["type"], patchStrategy: "merge", patchMergeKey: "type", description: "Conditions of the budget (DisruptionAllowed)." }),
      ),
    },
    { required: ["disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"], description: "Observed state of a disruption budget." },
  ),
);

export const podDisruptionBudget = P(
  "PodDisruptionBudget",
  objectKind({ spec: tag(2, podDisruptionBudgetSpec), status: tag(3, podDisruptionBudgetStatus) }),
);

export const eviction = P(
  "Eviction",
  objectKind({ deleteOptions: tag(2, withOpts(deleteOptions, { description: "Options of the pod deletion." })) }),
);

export function validatePodDisruptionBudget(o: Obj): FieldError[] {
  const spec = isObj(o.spec) ? o.spec : {};
  const errs: FieldError[] = [];
  if (spec.minAvailable != null && spec.maxUnavailable != null) {
    errs.push(fieldErrors.invalid("spec", spec, "minAvailable and maxUnavailable cannot be both set"));
  }
  for (const f of ["minAvailable", "maxUnavailable"]) {
    errs.push(...validateIntOrPercent(spec[f], `spec.${f}`), ...notMoreThan100Percent(spec[f], `spec.${f}`));
  }
  errs.push(...validateLabelSelector(spec.selector, "spec.selector"));
  return errs;
}

const intOrNA = (path: string) => (o: Record<string, unknown>) => {
  const v = getPath(o, path);
  return v === undefined || v === null ? "N/A" : String(v);
};

export const kinds: KindDefinition[] = [
  {
    group: "policy",
    version: "v1",
    kind: "PodDisruptionBudget",
    plural: "poddisruptionbudgets",
    singular: "poddisruptionbudget",
    namespaced: true,
    shortNames: ["pdb"],
    subresources: ["status"],
    schema: podDisruptionBudget,
    protobuf: true,
    validateKind: validatePodDisruptionBudget,
    tableColumns: [
      { name: "Min Available", type: "string", description: "The minimum number of pods that must be available.", cell: intOrNA("spec.minAvailable") },
      { name: "Max Unavailable", type: "string", description: "The maximum number of pods that may be unavailable.", cell: intOrNA("spec.maxUnavailable") },
      { name: "Allowed Disruptions", type: "integer", description: "Calculated number of pods that may be disrupted at this time.", cell: (o) => numAt(o, "status.disruptionsAllowed") },
      ageColumn,
    ],
  },
];

/**
 * The Eviction kind, served only as the `eviction` subresource of pods
 * (`POST /api/v1/namespaces/{ns}/pods/{name}/eviction`). It is not in `kinds`:
 * policy/v1 has no `evictions` resource of its own, and discovery must not list one.
 */
export const evictionKind: KindDefinition = {
  group: "policy",
  version: "v1",
  kind: "Eviction",
  plural: "evictions",
  singular: "eviction",
  namespaced: true,
  virtual: true,
  verbs: ["create"],
  schema: eviction,
  protobuf: true,
};
