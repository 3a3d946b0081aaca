/**
 * k6 thresholds over the adapter's samples (pure): a threshold key is a metric
 * name with optional tag filters (`http_req_duration{op:create}`), each expression
 * an aggregation of the metric's type compared with a number (`p(95)<500`,
 * `rate<0.01`, `count>0`, `count==0`, `avg<`, `min<`, `max<`, `med<`, `value<`).
 * Trend: avg min max med p(N) count; Rate: rate; Counter: count, rate (per second
 * of the run); Gauge: value (the last).
 */
import type { MetricType, Sample } from "./metrics.ts";

export interface ThresholdResult {
  key: string;
  expression: string;
  /** The aggregate, or undefined when the metric has no samples. */
  actual: number | undefined;
  ok: boolean;
}

const KEY = /^([A-Za-z_][\w.]*)(?:\{([^}]*)\})?$/;
const EXPRESSION = /^\s*(avg|min|max|med|count|rate|value|p\((\d+(?:\.\d+)?)\))\s*(<=|>=|===|==|!=|<|>)\s*(-?\d+(?:\.\d+)?)\s*$/;

export function parseKey(key: string): { metric: string; tags: Record<string, string> } {
  const m = KEY.exec(key.trim());
  if (m === null) throw new Error(`threshold "${key}": not a metric name with optional {tag:value} filters`);
  const tags: Record<string, string> = {};
  for (const part of (m[2] ?? "").split(",").filter((p) => p.trim() !== "")) {
    const colon = part.indexOf(":");
    if (colon <= 0) throw new Error(`threshold "${key}": filter "${part}" is not tag:value`);
    tags[part.slice(0, colon).trim()] = part.slice(colon + 1).trim();
  }
  return { metric: m[1], tags };
}

function percentile(sorted: readonly number[], p: number): number {
  // k6 interpolates between the closest ranks.
  if (sorted.length === 1) return sorted[0];
  const pos = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

export function aggregate(type: MetricType, values: readonly number[], aggregation: string, seconds: number): number | undefined {
  if (values.length === 0) return type === "counter" && aggregation === "count" ? 0 : undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const total = values.reduce((a, b) => a + b, 0);
  const p = /^p\((\d+(?:\.\d+)?)\)$/.exec(aggregation);
  if (type === "trend") {
    if (p !== null) return percentile(sorted, Number(p[1]));
    if (aggregation === "avg") return total / values.length;
    if (aggregation === "min") return sorted[0];
    if (aggregation === "max") return sorted[sorted.length - 1];
    if (aggregation === "med") return percentile(sorted, 50);
    if (aggregation === "count") return values.length;
  }
  if (type === "rate" && aggregation === "rate") return values.filter((v) => v !== 0).length / values.length;
  if (type === "counter" && aggregation === "count") return total;
  if (type === "counter" && aggregation === "rate") return seconds > 0 ? total / seconds : 0;
  if (type === "gauge" && aggregation === "value") return values[values.length - 1];
  throw new Error(`threshold aggregation ${aggregation} does not apply to a ${type} metric`);
}

function compare(a: number, op: string, b: number): boolean {
  switch (op) {
    case "<":
      return a < b;
    case "<=":
      return a <= b;
    case ">":
      return a > b;
    case ">=":
      return a >= b;
    case "==":
    case "===":
      return a === b;
    default:
      return a !== b;
  }
}

export function evaluateThresholds(thresholds: Record<string, readonly string[]>, samples: readonly Sample[], types: ReadonlyMap<string, MetricType>, seconds: number): ThresholdResult[] {
  const results: ThresholdResult[] = [];
  for (const [key, expressions] of Object.entries(thresholds)) {
    const { metric, tags } = parseKey(key);
    const type = types.get(metric);
    if (type === undefined) throw new Error(`threshold "${key}": no metric ${metric}`);
    const values = samples.filter((s) => s.metric === metric && Object.entries(tags).every(([k, v]) => s.tags[k] === v)).map((s) => s.value);
    for (const expression of expressions) {
      const m = EXPRESSION.exec(expression);
      if (m === null) throw new Error(`threshold "${key}": cannot read "${expression}"`);
      const actual = aggregate(type, values, m[1], seconds);
      // k6 leaves a threshold without samples unbroken.
      results.push({ key, expression, actual, ok: actual === undefined || compare(actual, m[3], Number(m[4])) });
    }
  }
  return results;
}
