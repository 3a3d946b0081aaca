/**
 * HorizontalPodAutoscaler between autoscaling/v1 and autoscaling/v2 (the storage
 * version), as the platform converts it:
 *   - v1 `spec.targetCPUUtilizationPercentage` ↔ the v2 cpu Resource metric with a
 *     Utilization target; v1 `status.currentCPUUtilizationPercentage` ↔ the cpu
 *     Resource entry of `status.currentMetrics`;
 *   - the v2-only data rides on the v1 object in round-trip annotations (names from
 *     the profile): other metrics and current metrics (v1 metric shapes), conditions,
 *     and behavior (the platform's internal field names: `ScaleUp`, `Policies`, ...);
 *   - v1 → v2 appends the cpu metric after the other metrics and, with no metric at
 *     all, gives the 80% cpu default; v2 never carries the round-trip annotations.
 * Pure functions: the input is never mutated. Malformed annotations are ignored.
 */
import type { PlatformProfile } from "../../platform/index.ts";
import { metricSpecFromV1, metricSpecToV1, metricStatusFromV1, metricStatusToV1 } from "./autoscaling-v1-metrics.ts";
import { DEFAULT_CPU_UTILIZATION } from "./autoscaling-v2.ts";
import { isObj, type Obj } from "./workload-rules.ts";
import { cloneValue } from "../../schema/values.ts";

type Names = PlatformProfile["annotations"];

const roundTripKeys = (n: Names): string[] => [n.hpaMetrics, n.hpaCurrentMetrics, n.hpaConditions, n.hpaBehavior];

const objList = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);

/** A copy of the metadata without the round-trip annotations (and without an emptied map). */
function cleanMetadata(metadata: unknown, n: Names): Obj {
  const m: Obj = isObj(metadata) ? cloneValue(metadata) : {};
  if (isObj(m.annotations)) {
    const annotations = m.annotations;
    for (const key of roundTripKeys(n)) delete annotations[key];
    if (Object.keys(annotations).length === 0) delete m.annotations;
  }
  return m;
}

function annotationJson(metadata: unknown, key: string): unknown {
  const annotations = isObj(metadata) && isObj(metadata.annotations) ? metadata.annotations : {};
  const raw = annotations[key];
  if (typeof raw !== "string") return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

function setAnnotation(metadata: Obj, key: string, value: unknown): void {
  const annotations = isObj(metadata.annotations) ? metadata.annotations : (metadata.annotations = {});
  annotations[key] = JSON.stringify(value);
}

const isCpuResource = (m: Obj, field: "target" | "current"): Obj | undefined => {
  if (m.type !== "Resource" || !isObj(m.resource) || m.resource.name !== "cpu") return undefined;
  return isObj(m.resource[field]) ? m.resource[field] : {};
};

const hasValue = (v: unknown): boolean => v !== undefined && v !== null;

function copyFields(from: Obj, to: Obj, keys: string[]): void {
  for (const k of keys) if (from[k] !== undefined) to[k] = cloneValue(from[k]);
}

// ------------------------------------------------------------------ behavior

const RULE_FIELDS: Array<[string, string]> = [
  ["stabilizationWindowSeconds", "StabilizationWindowSeconds"],
  ["selectPolicy", "SelectPolicy"],
  ["policies", "Policies"],
  ["tolerance", "Tolerance"],
];
const POLICY_FIELDS: Array<[string, string]> = [
  ["type", "Type"],
  ["value", "Value"],
  ["periodSeconds", "PeriodSeconds"],
];

/** A key read as the platform's JSON decoder reads it: exact name first, then any case. */
function field(o: Obj, name: string): unknown {
  if (name in o) return o[name];
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(o)) if (k.toLowerCase() === lower) return v;
  return undefined;
}

function encodeRules(rules: unknown): Obj | null {
  if (!isObj(rules)) return null;
  const out: Obj = {};
  for (const [v2, internal] of RULE_FIELDS) {
    const v = rules[v2];
    if (v2 === "policies") {
      out[internal] = Array.isArray(v) ? objList(v).map((p) => Object.fromEntries(POLICY_FIELDS.map(([a, b]) => [b, p[a] ?? null]))) : null;
    } else out[internal] = hasValue(v) ? cloneValue(v) : null;
  }
  return out;
}

function decodeRules(rules: unknown): Obj | undefined {
  if (!isObj(rules)) return undefined;
  const out: Obj = {};
  for (const [v2, internal] of RULE_FIELDS) {
    const v = field(rules, internal);
    if (!hasValue(v)) continue;
    if (v2 === "policies") {
      if (!Array.isArray(v)) continue;
      out.policies = objList(v).map((p) => {
        const policy: Obj = {};
        for (const [a, b] of POLICY_FIELDS) if (hasValue(field(p, b))) policy[a] = field(p, b);
        return policy;
      });
    } else out[v2] = v;
  }
  return out;
}

function encodeBehavior(behavior: Obj): Obj {
  return { ScaleUp: encodeRules(behavior.scaleUp), ScaleDown: encodeRules(behavior.scaleDown) };
}

/** The behavior of the annotation, or undefined when it is malformed or empty. */
function decodeBehavior(value: unknown): Obj | undefined {
  if (!isObj(value)) return undefined;
  const out: Obj = {};
  const up = decodeRules(field(value, "ScaleUp"));
  const down = decodeRules(field(value, "ScaleDown"));
  if (up) out.scaleUp = up;
  if (down) out.scaleDown = down;
  return Object.keys(out).length > 0 ? out : undefined;
}

// ------------------------------------------------------------------ v2 → v1

function specToV1(spec: Obj, metadata: Obj, n: Names): Obj {
  const out: Obj = {};
  copyFields(spec, out, ["scaleTargetRef", "minReplicas", "maxReplicas"]);
  const metrics = objList(spec.metrics);
  const cpu = metrics.map((m) => isCpuResource(m, "target")).find((t) => t !== undefined);
  if (cpu && hasValue(cpu.averageUtilization)) out.targetCPUUtilizationPercentage = cpu.averageUtilization;
  const others = metrics.filter((m) => !hasValue(isCpuResource(m, "target")?.averageUtilization));
  if (others.length > 0) setAnnotation(metadata, n.hpaMetrics, others.map(metricSpecToV1));
  if (isObj(spec.behavior)) setAnnotation(metadata, n.hpaBehavior, encodeBehavior(spec.behavior));
  return out;
}

function statusToV1(status: Obj, metadata: Obj, n: Names): Obj {
  const out: Obj = {};
  copyFields(status, out, ["observedGeneration", "lastScaleTime"]);
  out.currentReplicas = status.currentReplicas ?? 0;
  out.desiredReplicas = status.desiredReplicas ?? 0;
  const current = objList(status.currentMetrics);
  for (const m of current) {
    const cpu = isCpuResource(m, "current");
    if (cpu && hasValue(cpu.averageUtilization)) out.currentCPUUtilizationPercentage = cpu.averageUtilization;
  }
  if (current.length > 0) setAnnotation(metadata, n.hpaCurrentMetrics, current.map(metricStatusToV1));
  const conditions = objList(status.conditions);
  if (conditions.length > 0) setAnnotation(metadata, n.hpaConditions, conditions);
  return out;
}

/** An autoscaling/v2 HorizontalPodAutoscaler in its autoscaling/v1 form. */
export function hpaV2ToV1(obj: Obj, profile: PlatformProfile): Obj {
  const n = profile.annotations;
  const metadata = cleanMetadata(obj.metadata, n);
  const out: Obj = { apiVersion: profile.apiVersion("autoscaling", "v1"), kind: obj.kind ?? "HorizontalPodAutoscaler", metadata };
  if (isObj(obj.spec)) out.spec = specToV1(obj.spec, metadata, n);
  if (isObj(obj.status)) out.status = statusToV1(obj.status, metadata, n);
  return out;
}

// ------------------------------------------------------------------ v1 → v2

const cpuMetric = (utilization: unknown): Obj => ({ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: utilization } } });

function specFromV1(spec: Obj, metadata: unknown, n: Names): Obj {
  const out: Obj = {};
  copyFields(spec, out, ["scaleTargetRef", "minReplicas", "maxReplicas"]);
  const others = annotationJson(metadata, n.hpaMetrics);
  const metrics = Array.isArray(others) ? objList(others).map(metricSpecFromV1) : [];
  if (hasValue(spec.targetCPUUtilizationPercentage)) metrics.push(cpuMetric(spec.targetCPUUtilizationPercentage));
  out.metrics = metrics.length > 0 ? metrics : [cpuMetric(DEFAULT_CPU_UTILIZATION)];
  const behavior = decodeBehavior(annotationJson(metadata, n.hpaBehavior));
  if (behavior) out.behavior = behavior;
  return out;
}

function statusFromV1(status: Obj, metadata: unknown, n: Names): Obj {
  const out: Obj = {};
  copyFields(status, out, ["observedGeneration", "lastScaleTime"]);
  if (typeof status.currentReplicas !== "number" || status.currentReplicas !== 0) copyFields(status, out, ["currentReplicas"]);
  copyFields(status, out, ["desiredReplicas"]);
  const annotated = annotationJson(metadata, n.hpaCurrentMetrics);
  if (Array.isArray(annotated)) {
    const current = objList(annotated).map(metricStatusFromV1);
    if (current.length > 0) out.currentMetrics = current;
  } else if (hasValue(status.currentCPUUtilizationPercentage)) {
    out.currentMetrics = [{ type: "Resource", resource: { name: "cpu", current: { averageUtilization: status.currentCPUUtilizationPercentage } } }];
  }
  const conditions = annotationJson(metadata, n.hpaConditions);
  if (Array.isArray(conditions) && conditions.length > 0) out.conditions = objList(conditions).map((c) => cloneValue(c));
  return out;
}

/** An autoscaling/v1 HorizontalPodAutoscaler in its autoscaling/v2 form. */
export function hpaV1ToV2(obj: Obj, profile: PlatformProfile): Obj {
  const n = profile.annotations;
  const out: Obj = { apiVersion: profile.apiVersion("autoscaling", "v2"), kind: obj.kind ?? "HorizontalPodAutoscaler", metadata: cleanMetadata(obj.metadata, n) };
  out.spec = specFromV1(isObj(obj.spec) ? obj.spec : {}, obj.metadata, n);
  if (isObj(obj.status)) out.status = statusFromV1(obj.status, obj.metadata, n);
  return out;
}

/** The v2 form as the v2 version serves and stores it: without round-trip annotations. */
export function hpaV2Clean(obj: Obj, profile: PlatformProfile): Obj {
  return { ...cloneValue(obj), metadata: cleanMetadata(obj.metadata, profile.annotations) };
}
