/**
 * The autoscaling/v1 shapes of v2 metric specs and statuses, as the platform writes
 * them into the v1 round-trip annotations (`metricName`, `targetAverageValue`, ... —
 * the v1 package's MetricSpec and MetricStatus). Pure functions: inputs are never
 * mutated; absent values stay absent both ways, so v2 → v1 → v2 is exact.
 */
import { isObj, type Obj } from "./workload-rules.ts";
import { cloneValue } from "../../schema/values.ts";

/** Copies the defined entries, in order, into a new object. */
function defined(entries: Array<[string, unknown]>): Obj {
  const out: Obj = {};
  for (const [k, v] of entries) if (v !== undefined && v !== null) out[k] = cloneValue(v);
  return out;
}

const sub = (o: Obj, key: string): Obj => (isObj(o[key]) ? o[key] : {});

/**
 * v2 MetricSpec or MetricStatus → its v1 shape. The two differ only in which v2
 * block is read (`target` or `current`) and in the v1 field prefix (`target…` or
 * `current…`); the Object source's `averageValue` keeps its name in both.
 */
function metricToV1(m: Obj, side: "target" | "current"): Obj {
  const type = m.type;
  const out: Obj = { type };
  switch (type) {
    case "Resource":
    case "ContainerResource": {
      const field = type === "Resource" ? "resource" : "containerResource";
      const src = sub(m, field);
      const values = sub(src, side);
      out[field] = defined([
        ["name", src.name],
        [`${side}AverageUtilization`, values.averageUtilization],
        [`${side}AverageValue`, values.averageValue],
        ["container", src.container],
      ]);
      break;
    }
    case "Pods": {
      const src = sub(m, "pods");
      out.pods = defined([
        ["metricName", sub(src, "metric").name],
        [`${side}AverageValue`, sub(src, side).averageValue],
        ["selector", sub(src, "metric").selector],
      ]);
      break;
    }
    case "Object": {
      const src = sub(m, "object");
      const values = sub(src, side);
      out.object = defined([
        ["target", src.describedObject],
        ["metricName", sub(src, "metric").name],
        [`${side}Value`, values.value],
        ["selector", sub(src, "metric").selector],
        ["averageValue", values.averageValue],
      ]);
      break;
    }
    case "External": {
      const src = sub(m, "external");
      const values = sub(src, side);
      out.external = defined([
        ["metricName", sub(src, "metric").name],
        ["metricSelector", sub(src, "metric").selector],
        [`${side}Value`, values.value],
        [`${side}AverageValue`, values.averageValue],
      ]);
      break;
    }
  }
  return out;
}

/** v2 MetricSpec → v1 MetricSpec. */
export const metricSpecToV1 = (m: Obj): Obj => metricToV1(m, "target");

/** v2 MetricStatus → v1 MetricStatus. */
export const metricStatusToV1 = (m: Obj): Obj => metricToV1(m, "current");

const identifier = (name: unknown, selector: unknown): Obj => defined([["name", name], ["selector", selector]]);

/** v1 MetricSpec → v2 MetricSpec (target types as the platform infers them). */
export function metricSpecFromV1(m: Obj): Obj {
  const type = m.type;
  const out: Obj = { type };
  switch (type) {
    case "Resource":
    case "ContainerResource": {
      const field = type === "Resource" ? "resource" : "containerResource";
      const src = sub(m, field);
      const utilization = src.targetAverageUtilization;
      const target = defined([
        ["type", utilization === undefined || utilization === null ? "AverageValue" : "Utilization"],
        ["averageUtilization", utilization],
        ["averageValue", src.targetAverageValue],
      ]);
      out[field] = defined([["name", src.name], ["target", target], ["container", src.container]]);
      break;
    }
    case "Pods": {
      const src = sub(m, "pods");
      out.pods = { metric: identifier(src.metricName, src.selector), target: defined([["type", "AverageValue"], ["averageValue", src.targetAverageValue]]) };
      break;
    }
    case "Object": {
      const src = sub(m, "object");
      const average = src.averageValue;
      const target = defined([
        ["type", average === undefined || average === null ? "Value" : "AverageValue"],
        ["value", src.targetValue],
        ["averageValue", average],
      ]);
      out.object = defined([["describedObject", src.target], ["target", target], ["metric", identifier(src.metricName, src.selector)]]);
      break;
    }
    case "External": {
      const src = sub(m, "external");
      const value = src.targetValue;
      const target = defined([
        ["type", value === undefined || value === null ? "AverageValue" : "Value"],
        ["value", value],
        ["averageValue", src.targetAverageValue],
      ]);
      out.external = { metric: identifier(src.metricName, src.metricSelector), target };
      break;
    }
  }
  return out;
}

/** v1 MetricStatus → v2 MetricStatus. */
export function metricStatusFromV1(m: Obj): Obj {
  const type = m.type;
  const out: Obj = { type };
  switch (type) {
    case "Resource":
    case "ContainerResource": {
      const field = type === "Resource" ? "resource" : "containerResource";
      const src = sub(m, field);
      const current = defined([["averageValue", src.currentAverageValue], ["averageUtilization", src.currentAverageUtilization]]);
      out[field] = defined([["name", src.name], ["current", current], ["container", src.container]]);
      break;
    }
    case "Pods": {
      const src = sub(m, "pods");
      out.pods = { metric: identifier(src.metricName, src.selector), current: defined([["averageValue", src.currentAverageValue]]) };
      break;
    }
    case "Object": {
      const src = sub(m, "object");
      const current = defined([["value", src.currentValue], ["averageValue", src.averageValue]]);
      out.object = defined([["metric", identifier(src.metricName, src.selector)], ["current", current], ["describedObject", src.target]]);
      break;
    }
    case "External": {
      const src = sub(m, "external");
      const current = defined([["value", src.currentValue], ["averageValue", src.currentAverageValue]]);
      out.external = { metric: identifier(src.metricName, src.metricSelector), current };
      break;
    }
  }
  return out;
}
