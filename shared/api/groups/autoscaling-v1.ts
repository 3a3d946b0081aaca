/**
 * autoscaling/v1: HorizontalPodAutoscaler (CPU target only) and Scale, the
 * kind of every `scale` subresource (`scaleKindSchema`; Scale is not a
 * resource type of its own, so it is not in `kinds`). Protobuf field numbers
 * are the platform's (autoscaling/v1 generated.proto).
 */
import { int32, int64, named, obj, str, tag, time, withOpts } from "../../schema/build.ts";
import type { KindDefinition, Schema } from "../../schema/types.ts";
import { ageColumn, getPath, numAt } from "../table-cells.ts";
import { hpaReplicaRules } from "./autoscaling-v2.ts";
import { objectKind } from "./meta-v1.ts";
import type { Obj } from "./workload-rules.ts";

const S = (name: string, schema: Schema): Schema => named("autoscaling", "v1", name, schema);

export const crossVersionObjectReference = S(
  "CrossVersionObjectReference",
  obj(
    {
      kind: tag(1, str({ description: "Kind of the referent." })),
      name: tag(2, str({ description: "Name of the referent." })),
      apiVersion: tag(3, str({ description: "API version of the referent." })),
    },
    { required: ["kind", "name"], mapType: "atomic", description: "Reference to an object in any API version." },
  ),
);

export const horizontalPodAutoscalerSpec = S(
  "HorizontalPodAutoscalerSpec",
  obj(
    {
      scaleTargetRef: tag(1, withOpts(crossVersionObjectReference, { description: "The scaled resource (through its scale subresource)." })),
      minReplicas: tag(2, int32({ default: 1, description: "Lower limit of replicas." })),
      maxReplicas: tag(3, int32({ description: "Upper limit of replicas; not below minReplicas." })),
      targetCPUUtilizationPercentage: tag(4, int32({ description: "Target average CPU utilization, in percent of the requested CPU." })),
    },
    { required: ["scaleTargetRef", "maxReplicas"], description: "Desired behaviour of the autoscaler." },
  ),
);

export const horizontalPodAutoscalerStatus = S(
  "HorizontalPodAutoscalerStatus",
  obj(
    {
      observedGeneration: tag(1, int64({ description: "Generation observed by the autoscaler." })),
      lastScaleTime: tag(2, time({ description: "Last time the autoscaler changed the replica count." })),
      currentReplicas: tag(3, int32({ description: "Current number of replicas." })),
      desiredReplicas: tag(4, int32({ description: "Desired number of replicas." })),
      currentCPUUtilizationPercentage: tag(5, int32({ description: "Current average CPU utilization, in percent of the requested CPU." })),
    },
    { required: ["currentReplicas", "desiredReplicas"], description: "Observed state of the autoscaler." },
  ),
);

export const horizontalPodAutoscaler = S(
  "HorizontalPodAutoscaler",
  objectKind({ spec: tag(2, horizontalPodAutoscalerSpec), status: tag(3, horizontalPodAutoscalerStatus) }),
);

export const scaleSpec = S(
  "ScaleSpec",
  obj({ replicas: tag(1, int32({ default: 0, minimum: 0, description: "Desired number of instances." })) }, { description: "Desired scale." }),
);

export const scaleStatus = S(
  "ScaleStatus",
  obj(
    {
      replicas: tag(1, int32({ description: "Observed number of instances." })),
      selector: tag(2, str({ description: "Label selector of the instances, in query-parameter syntax." })),
    },
    { required: ["replicas"], description: "Observed scale." },
  ),
);

/** The `Scale` kind (autoscaling/v1) read and written through `<resource>/scale` subresources. */
export const scaleKindSchema = S("Scale", objectKind({ spec: tag(2, scaleSpec), status: tag(3, scaleStatus) }));

function targets(o: Record<string, unknown>): string {
  const target = getPath(o, "spec.targetCPUUtilizationPercentage");
  if (typeof target !== "number") return "<none>";
  const current = getPath(o, "status.currentCPUUtilizationPercentage");
  return `cpu: ${typeof current === "number" ? `${current}%` : "<unknown>"}/${target}%`;
}

export const kinds: KindDefinition[] = [
  {
    group: "autoscaling",
    version: "v1",
    kind: "HorizontalPodAutoscaler",
    plural: "horizontalpodautoscalers",
    singular: "horizontalpodautoscaler",
    namespaced: true,
    shortNames: ["hpa"],
    categories: ["all"],
    subresources: ["status"],
    schema: horizontalPodAutoscaler,
    protobuf: true,
    validateKind: (o: Obj) => hpaReplicaRules(o),
    tableColumns: [
      { name: "Reference", type: "string", description: "The scaled resource.", cell: (o) => `${String(getPath(o, "spec.scaleTargetRef.kind") ?? "")}/${String(getPath(o, "spec.scaleTargetRef.name") ?? "")}` },
      { name: "Targets", type: "string", description: "Metric targets and current values.", cell: targets },
      { name: "MinPods", type: "string", description: "Lower limit of replicas.", cell: (o) => (typeof getPath(o, "spec.minReplicas") === "number" ? String(getPath(o, "spec.minReplicas")) : "<unset>") },
      { name: "MaxPods", type: "string", description: "Upper limit of replicas.", cell: (o) => numAt(o, "spec.maxReplicas") },
      { name: "Replicas", type: "string", description: "Current number of replicas.", cell: (o) => numAt(o, "status.currentReplicas") },
      ageColumn,
    ],
  },
];
