/**
 * autoscaling/v2: HorizontalPodAutoscaler with metric sources and scaling
 * behaviour. Protobuf field numbers are the platform's (autoscaling/v2
 * generated.proto). Defaults that depend on other fields (the 80% CPU metric
 * when none is given, the behaviour rules when `behavior` is set) are in the
 * kind defaulter, as in the platform.
 */
import { enumOf, int32, int64, list, named, obj, quantity, str, tag, time, withOpts } from "../../schema/build.ts";
import { fieldErrors } from "../../schema/field-errors.ts";
import type { FieldError, KindDefinition, Schema } from "../../schema/types.ts";
import { ageColumn, getPath, listAt, numAt } from "../table-cells.ts";
import { labelSelector, objectKind } from "./meta-v1.ts";
import { ensureObj, isObj, setDefault, type Obj } from "./workload-rules.ts";

const H = (name: string, schema: Schema): Schema => named("autoscaling", "v2", name, schema);
const d = (schema: Schema, description: string): Schema => withOpts(schema, { description });

export const METRIC_SOURCE_TYPES = ["ContainerResource", "External", "Object", "Pods", "Resource"];
/** Metric source type → the field that carries it. */
const SOURCE_FIELD: Record<string, string> = {
  ContainerResource: "containerResource",
  External: "external",
  Object: "object",
  Pods: "pods",
  Resource: "resource",
};

export const crossVersionObjectReference = H(
  "CrossVersionObjectReference",
  obj(
    {
      kind: tag(1, str({ description: "Kind of the referent." })),
      name: tag(2, str({ description: "Name of the referent." })),
      apiVersion: tag(3, str({ description: "API version of the referent." })),
    },
    { required: ["kind", "name"], description: "Reference to an object in any API version." },
  ),
);

export const metricTarget = H(
  "MetricTarget",
  obj(
    {
      type: tag(1, enumOf(["Utilization", "Value", "AverageValue"], { description: "Which of the target fields applies." })),
      value: tag(2, quantity({ description: "Target value of the metric." })),
      averageValue: tag(3, quantity({ description: "Target average of the metric across pods." })),
      averageUtilization: tag(4, int32({ description: "Target average utilization in percent of the requests (resource metrics)." })),
    },
    { required: ["type"], description: "Target of a metric." },
  ),
);

export const metricValueStatus = H(
  "MetricValueStatus",
  obj(
    {
      value: tag(1, quantity({ description: "Current value of the metric." })),
      averageValue: tag(2, quantity({ description: "Current average of the metric across pods." })),
      averageUtilization: tag(3, int32({ description: "Current average utilization in percent of the requests." })),
    },
    { description: "Current value of a metric." },
  ),
);

export const metricIdentifier = H(
  "MetricIdentifier",
  obj(
    { name: tag(1, str({ description: "Name of the metric." })), selector: tag(2, d(labelSelector, "Narrows the metric's time series.")) },
    { required: ["name"], description: "Name and selector of a metric." },
  ),
);

const source = (name: string, fields: Record<string, Schema>, required: string[], description: string): Schema =>
  H(name, obj(fields, { required, description }));

export const objectMetricSource = source(
  "ObjectMetricSource",
  { describedObject: tag(1, crossVersionObjectReference), target: tag(2, metricTarget), metric: tag(3, metricIdentifier) },
  ["describedObject", "target", "metric"],
  "A metric describing one object (hits per second of an Ingress).",
);
export const podsMetricSource = source("PodsMetricSource", { metric: tag(1, metricIdentifier), target: tag(2, metricTarget) }, ["metric", "target"], "A metric of each pod, averaged.");
export const resourceMetricSource = source(
  "ResourceMetricSource",
  { name: tag(1, str({ description: "Resource name (cpu, memory)." })), target: tag(2, metricTarget) },
  ["name", "target"],
  "A resource metric of each pod (requests and limits), averaged.",
);
export const containerResourceMetricSource = source(
  "ContainerResourceMetricSource",
  { name: tag(1, str({ description: "Resource name (cpu, memory)." })), target: tag(2, metricTarget), container: tag(3, str({ description: "Container whose usage counts." })) },
  ["name", "target", "container"],
  "A resource metric of one container in each pod, averaged.",
);
export const externalMetricSource = source("ExternalMetricSource", { metric: tag(1, metricIdentifier), target: tag(2, metricTarget) }, ["metric", "target"], "A metric from outside the cluster.");

export const metricSpec = H(
  "MetricSpec",
  obj(
    {
      type: tag(1, enumOf(METRIC_SOURCE_TYPES, { description: "Metric source type; the matching field must be set." })),
      object: tag(2, objectMetricSource),
      pods: tag(3, podsMetricSource),
      resource: tag(4, resourceMetricSource),
      containerResource: tag(7, containerResourceMetricSource),
      external: tag(5, externalMetricSource),
    },
    { required: ["type"], description: "One metric to scale on." },
  ),
);

export const objectMetricStatus = source(
  "ObjectMetricStatus",
  { metric: tag(1, metricIdentifier), current: tag(2, metricValueStatus), describedObject: tag(3, crossVersionObjectReference) },
  ["metric", "current", "describedObject"],
  "Current value of an object metric.",
);
export const podsMetricStatus = source("PodsMetricStatus", { metric: tag(1, metricIdentifier), current: tag(2, metricValueStatus) }, ["metric", "current"], "Current value of a pods metric.");
export const resourceMetricStatus = source("ResourceMetricStatus", { name: tag(1, str()), current: tag(2, metricValueStatus) }, ["name", "current"], "Current value of a resource metric.");
export const containerResourceMetricStatus = source(
  "ContainerResourceMetricStatus",
  { name: tag(1, str()), current: tag(2, metricValueStatus), container: tag(3, str()) },
  ["name", "current", "container"],
  "Current value of a container resource metric.",
);
export const externalMetricStatus = source("ExternalMetricStatus", { metric: tag(1, metricIdentifier), current: tag(2, metricValueStatus) }, ["metric", "current"], "Current value of an external metric.");

export const metricStatus = H(
  "MetricStatus",
  obj(
    {
      type: tag(1, enumOf(METRIC_SOURCE_TYPES, { description: "Metric source type." })),
      object: tag(2, objectMetricStatus),
      pods: tag(3, podsMetricStatus),
      resource: tag(4, resourceMetricStatus),
      containerResource: tag(7, containerResourceMetricStatus),
      external: tag(5, externalMetricStatus),
    },
    { required: ["type"], description: "Last read state of one metric." },
  ),
);

export const hpaScalingPolicy = H(
  "HPAScalingPolicy",
  obj(
    {
      type: tag(1, enumOf(["Pods", "Percent"], { description: "Whether value counts pods or percent." })),
      value: tag(2, int32({ minimum: 1, description: "Change permitted by the policy; greater than zero." })),
      periodSeconds: tag(3, int32({ minimum: 1, maximum: 1800, description: "Window in which the policy must hold (1..1800)." })),
    },
    { required: ["type", "value", "periodSeconds"], description: "A policy that must hold over a past interval." },
  ),
);

export const hpaScalingRules = H(
  "HPAScalingRules",
  obj(
    {
      stabilizationWindowSeconds: tag(3, int32({ minimum: 0, maximum: 3600, description: "Seconds of past recommendations considered (0..3600)." })),
      selectPolicy: tag(1, enumOf(["Max", "Min", "Disabled"], { description: "Which policy applies (default Max)." })),
      policies: tag(2, list(hpaScalingPolicy, { listType: "atomic", description: "Policies limiting the scaling speed." })),
      tolerance: tag(4, quantity({ description: "Tolerance on the current/desired metric ratio (alpha)." })),
    },
    { description: "Scaling behaviour in one direction." },
  ),
);

export const horizontalPodAutoscalerBehavior = H(
  "HorizontalPodAutoscalerBehavior",
  obj(
    { scaleUp: tag(1, d(hpaScalingRules, "Rules for scaling up.")), scaleDown: tag(2, d(hpaScalingRules, "Rules for scaling down.")) },
    { description: "Scaling behaviour in both directions." },
  ),
);

export const horizontalPodAutoscalerSpec = H(
  "HorizontalPodAutoscalerSpec",
  obj(
    {
      scaleTargetRef: tag(1, d(crossVersionObjectReference, "The scaled resource (through its scale subresource).")),
      minReplicas: tag(2, int32({ default: 1, description: "Lower limit of replicas." })),
      maxReplicas: tag(3, int32({ description: "Upper limit of replicas; not below minReplicas." })),
      metrics: tag(4, list(metricSpec, { listType: "atomic", description: "Metrics used to compute the desired replica count (default: 80% average CPU)." })),
      behavior: tag(5, d(horizontalPodAutoscalerBehavior, "Scaling behaviour; default rules when unset.")),
    },
    { required: ["scaleTargetRef", "maxReplicas"], description: "Desired behaviour of the autoscaler." },
  ),
);

export const horizontalPodAutoscalerCondition = H(
  "HorizontalPodAutoscalerCondition",
  obj(
    {
      type: tag(1, str({ description: "Type of the condition (ScalingActive, AbleToScale, ScalingLimited)." })),
      status: tag(2, enumOf(["True", "False", "Unknown"], { description: "Status of the condition." })),
      lastTransitionTime: tag(3, time({ description: "Last time the condition changed status." })),
      reason: tag(4, str({ description: "Machine-readable reason for the last transition." })),
      message: tag(5, str({ description: "Human-readable details of the last transition." })),
    },
    { required: ["type", "status"], description: "Autoscaler condition at a point in time." },
  ),
);

export const horizontalPodAutoscalerStatus = H(
  "HorizontalPodAutoscalerStatus",
  obj(
    {
      observedGeneration: tag(1, int64({ description: "Generation observed by the autoscaler." })),
      lastScaleTime: tag(2, time({ description: "Last time the autoscaler changed the replica count." })),
      currentReplicas: tag(3, int32({ description: "Current number of replicas." })),
      desiredReplicas: tag(4, int32({ description: "Desired number of replicas." })),
      currentMetrics: tag(5, list(metricStatus, { listType: "atomic", description: "Last read state of the metrics." })),
      conditions: tag(
        6,
        list(horizontalPodAutoscalerCondition, { listType: "map", mapKeys: ["type"], patchStrategy: "merge", patchMergeKey: "type", description: "Conditions of the autoscaler." }),
      ),
    },
    { required: ["desiredReplicas"], description: "Observed state of the autoscaler." },
  ),
);

export const horizontalPodAutoscaler = H(
  "HorizontalPodAutoscaler",
  objectKind({ spec: tag(2, horizontalPodAutoscalerSpec), status: tag(3, horizontalPodAutoscalerStatus) }),
);

// ---------------------------------------------------------------- defaulting

/** The platform's average CPU utilization target when no metric is given. */
export const DEFAULT_CPU_UTILIZATION = 80;

const scaleUpDefaults = (): Obj => ({
  stabilizationWindowSeconds: 0,
  selectPolicy: "Max",
  policies: [
    { type: "Pods", value: 4, periodSeconds: 15 },
    { type: "Percent", value: 100, periodSeconds: 15 },
  ],
});
// The scale-down stabilization window stays unset: the controller's flag (300 s) applies.
const scaleDownDefaults = (): Obj => ({ selectPolicy: "Max", policies: [{ type: "Percent", value: 100, periodSeconds: 15 }] });

function fillRules(behavior: Obj, key: string, defaults: Obj): void {
  const rules = ensureObj(behavior, key);
  for (const [k, v] of Object.entries(defaults)) setDefault(rules, k, v);
}

export function defaultHorizontalPodAutoscaler(obj: Obj): void {
  const spec = ensureObj(obj, "spec");
  setDefault(spec, "minReplicas", 1);
  if (!Array.isArray(spec.metrics) || spec.metrics.length === 0) {
    spec.metrics = [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: DEFAULT_CPU_UTILIZATION } } }];
  }
  if (isObj(spec.behavior)) {
    fillRules(spec.behavior, "scaleUp", scaleUpDefaults());
    fillRules(spec.behavior, "scaleDown", scaleDownDefaults());
  }
}

// ---------------------------------------------------------------- validation

/** minReplicas/maxReplicas rules shared with autoscaling/v1. */
export function hpaReplicaRules(obj: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const spec = isObj(obj.spec) ? obj.spec : {};
  const min = typeof spec.minReplicas === "number" ? spec.minReplicas : 1;
  if (typeof spec.minReplicas === "number" && spec.minReplicas < 1) {
    errs.push(fieldErrors.invalid("spec.minReplicas", spec.minReplicas, "must be greater than or equal to 1"));
  }
  if (typeof spec.maxReplicas === "number") {
    if (spec.maxReplicas < 1) errs.push(fieldErrors.invalid("spec.maxReplicas", spec.maxReplicas, "must be greater than 0"));
    if (spec.maxReplicas < min) errs.push(fieldErrors.invalid("spec.maxReplicas", spec.maxReplicas, "must be greater than or equal to `minReplicas`"));
  }
  return errs;
}

const TARGET_FIELD: Record<string, string> = { Utilization: "averageUtilization", Value: "value", AverageValue: "averageValue" };

function validateMetric(m: unknown, path: string): FieldError[] {
  if (!isObj(m) || typeof m.type !== "string") return [];
  const errs: FieldError[] = [];
  const expected = SOURCE_FIELD[m.type];
  if (expected && !isObj(m[expected])) errs.push(fieldErrors.required(`${path}.${expected}`, "must populate information for the given metric source"));
  const present = Object.values(SOURCE_FIELD).filter((f) => m[f] !== undefined && m[f] !== null);
  if (present.length !== 1) {
    for (const f of present) if (f !== expected) errs.push(fieldErrors.forbidden(`${path}.${f}`, "must populate the given metric source only"));
  }
  const target = expected ? getPath(m[expected], "target") : undefined;
  if (isObj(target) && typeof target.type === "string") {
    const field = TARGET_FIELD[target.type];
    if (field && (target[field] === undefined || target[field] === null)) {
      errs.push(fieldErrors.required(`${path}.${expected}.target.${field}`, `must be set when the target type is ${target.type}`));
    }
    if (target.type === "Utilization" && (m.type === "Object" || m.type === "Pods" || m.type === "External")) {
      errs.push(fieldErrors.notSupported(`${path}.${expected}.target.type`, target.type, m.type === "Pods" ? ["AverageValue"] : ["Value", "AverageValue"]));
    }
  }
  return errs;
}

export function validateHorizontalPodAutoscaler(obj: Obj): FieldError[] {
  const errs = hpaReplicaRules(obj);
  listAt(obj, "spec.metrics").forEach((m, i) => errs.push(...validateMetric(m, `spec.metrics[${i}]`)));
  return errs;
}

// ---------------------------------------------------------------- table cells

function q(v: unknown): string {
  return v === undefined || v === null ? "<unknown>" : String(v);
}

/** One metric as the CLI prints it (`cpu: 45%/80%`, `1k/500 (avg)`), given its status at the same index. */
function formatMetric(spec: Obj, status: unknown): string {
  const field = SOURCE_FIELD[String(spec.type)];
  if (!field) return "<unknown type>";
  const target = (getPath(spec, `${field}.target`) ?? {}) as Obj;
  const cur = isObj(status) && isObj(status[field]) ? (getPath(status[field], "current") as Obj | undefined) : undefined;
  const has = cur !== undefined;
  switch (spec.type) {
    case "External":
    case "Object":
      if (target.averageValue != null) return `${has ? q(cur.averageValue) : "<unknown>"}/${String(target.averageValue)} (avg)`;
      return `${has ? q(cur.value) : "<unknown>"}/${q(target.value)}`;
    case "Pods":
      return `${has ? q(cur.averageValue) : "<unknown>"}/${q(target.averageValue)}`;
    default: {
      const name = String(getPath(spec, `${field}.name`) ?? "");
      if (target.averageValue != null) return `${name}: ${has ? q(cur.averageValue) : "<unknown>"}/${String(target.averageValue)}`;
      const current = has && typeof cur.averageUtilization === "number" ? `${cur.averageUtilization}%` : "<unknown>";
      const want = typeof target.averageUtilization === "number" ? `${target.averageUtilization}%` : "<auto>";
      return `${name}: ${current}/${want}`;
    }
  }
}

export function formatHPAMetrics(o: Record<string, unknown>): string {
  const specs = listAt(o, "spec.metrics");
  if (specs.length === 0) return "<none>";
  const statuses = listAt(o, "status.currentMetrics");
  const all = specs.map((s, i) => (isObj(s) ? formatMetric(s, statuses[i]) : "<unknown type>"));
  const max = 2;
  return all.length > max ? `${all.slice(0, max).join(", ")} + ${all.length - max} more...` : all.join(", ");
}

export const kinds: KindDefinition[] = [
  {
    group: "autoscaling",
    version: "v2",
    kind: "HorizontalPodAutoscaler",
    plural: "horizontalpodautoscalers",
    singular: "horizontalpodautoscaler",
    namespaced: true,
    shortNames: ["hpa"],
    categories: ["all"],
    subresources: ["status"],
    schema: horizontalPodAutoscaler,
    protobuf: true,
    defaulter: defaultHorizontalPodAutoscaler,
    validateKind: validateHorizontalPodAutoscaler,
    tableColumns: [
      { name: "Reference", type: "string", description: "The scaled resource.", cell: (o) => `${String(getPath(o, "spec.scaleTargetRef.kind") ?? "")}/${String(getPath(o, "spec.scaleTargetRef.name") ?? "")}` },
      { name: "Targets", type: "string", description: "Metric targets and current values.", cell: formatHPAMetrics },
      { name: "MinPods", type: "string", description: "Lower limit of replicas.", cell: (o) => (typeof getPath(o, "spec.minReplicas") === "number" ? String(getPath(o, "spec.minReplicas")) : "<unset>") },
      { name: "MaxPods", type: "string", description: "Upper limit of replicas.", cell: (o) => numAt(o, "spec.maxReplicas") },
      { name: "Replicas", type: "string", description: "Current number of replicas.", cell: (o) => numAt(o, "status.currentReplicas") },
      ageColumn,
    ],
  },
];
