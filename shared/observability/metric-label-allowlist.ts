/**
 * `--allow-metric-labels`: per metric and label, the only values a series may carry; any
 * other value is recorded as "unexpected" (the platform's guard against unbounded label
 * cardinality). Each flag entry is `<metric>,<label>=<value>,<value>...`, the values
 * optionally in single quotes; an entry with more than one `=` holds several pairs
 * separated by commas, each quoted as CSV.
 *
 * `constrainLabels` wraps a prom-client metric in place so every method that takes label
 * values (an object, or `labels(...)` positionally) sees the replaced ones; a held series
 * (series.ts `series(labels)`) gets them once, when it is made.
 */

export const UNEXPECTED_LABEL_VALUE = "unexpected";

/** metric name → label name → allowed values. */
export type LabelAllowList = Map<string, Map<string, ReadonlySet<string>>>;

export class AllowMetricLabelsError extends Error {}

/** Splits one CSV record (double quotes group commas), as pflag's string-to-string flag does. */
function splitCsv(text: string): string[] {
  const out: string[] = [];
  let cur = "";
  let quoted = false;
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    else if (ch === "," && !quoted) {
      out.push(cur);
      cur = "";
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

/** Parses the flag's occurrences; throws an AllowMetricLabelsError naming the bad entry. */
export function parseAllowMetricLabels(entries: readonly string[]): LabelAllowList {
  const list: LabelAllowList = new Map();
  for (const entry of entries) {
    const equals = entry.split("=").length - 1;
    if (equals === 0) throw new AllowMetricLabelsError(`${entry} must be formatted as key=value`);
    const pairs = equals === 1 ? [entry.replace(/^"|"$/g, "")] : splitCsv(entry);
    for (const pair of pairs) {
      const eq = pair.indexOf("=");
      if (eq < 0) throw new AllowMetricLabelsError(`${pair} must be formatted as key=value`);
      const key = pair.slice(0, eq).trim();
      const [metric, label, ...rest] = key.split(",").map((s) => s.trim());
      if (!metric || !label || rest.length > 0) throw new AllowMetricLabelsError(`invalid --allow-metric-labels key ${JSON.stringify(key)}: expected <MetricName>,<LabelName>`);
      const values = pair.slice(eq + 1).trim().replace(/^'|'$/g, "").split(",").map((s) => s.trim()).filter((s) => s !== "");
      const labels = list.get(metric) ?? new Map<string, ReadonlySet<string>>();
      labels.set(label, new Set(values));
      list.set(metric, labels);
    }
  }
  return list;
}

type LabelObject = Record<string, string | number>;

function isLabelObject(v: unknown): v is LabelObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Label values with those outside the allow list replaced. Pure. */
export function allowedLabels(labels: LabelObject, allowed: ReadonlyMap<string, ReadonlySet<string>>): LabelObject {
  let out: LabelObject | undefined;
  for (const [label, values] of allowed) {
    const v = labels[label];
    if (v !== undefined && !values.has(String(v))) {
      out ??= { ...labels };
      out[label] = UNEXPECTED_LABEL_VALUE;
    }
  }
  return out ?? labels;
}

const LABELLED_METHODS = ["inc", "dec", "set", "observe", "remove", "startTimer", "zero", "setToCurrentTime", "series"] as const;

/** Makes `metric` (Counter, Gauge or Histogram) record only allowed label values. */
export function constrainLabels<M extends object>(metric: M, labelNames: readonly string[], allowed: ReadonlyMap<string, ReadonlySet<string>> | undefined): M {
  if (!allowed || allowed.size === 0) return metric;
  const target = metric as unknown as Record<string, unknown>;
  for (const name of LABELLED_METHODS) {
    const original = target[name];
    if (typeof original !== "function") continue;
    target[name] = function (this: unknown, ...args: unknown[]) {
      if (isLabelObject(args[0])) args[0] = allowedLabels(args[0], allowed);
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    };
  }
  const labels = target.labels;
  if (typeof labels === "function") {
    target.labels = function (this: unknown, ...args: unknown[]) {
      if (args.length === 1 && isLabelObject(args[0])) return (labels as (...a: unknown[]) => unknown).call(this, allowedLabels(args[0], allowed));
      const byName = Object.fromEntries(labelNames.map((n, i) => [n, args[i] as string]));
      const fixed = allowedLabels(byName, allowed);
      return (labels as (...a: unknown[]) => unknown).apply(this, labelNames.map((n) => fixed[n]));
    };
  }
  return metric;
}
