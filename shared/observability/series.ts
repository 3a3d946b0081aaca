/**
 * prom-client metrics whose series a caller can hold: `series(labels)` returns an object
 * bound to one label tuple, so a hot path observes without a label object being
 * validated and hashed per call (prom-client's `labels(...)` still hashes on every call).
 *
 * Contracts:
 * - a series is created once per label tuple and kept: the same tuple gives the same
 *   object, which stays valid across `reset()` and `remove()` (its counts start again);
 * - what a series records is exported exactly as prom-client exports the same
 *   observations made through `inc`/`observe` (same values, same order of labels), and
 *   added to them when both paths record the same tuple;
 * - label values are checked (names, allow list of metric-label-allowlist.ts) when the
 *   series is created, not per observation.
 * Counters and gauges flush a series' pending amount through prom-client's own `inc` before
 * each export (a gauge's `set` of a held tuple drops the amount still pending for it: the
 * value set replaces what came before); histograms keep a series' buckets themselves and merge them into the export
 * (prom-client's `get` reads the merged `getForPromString`).
 */
import { Counter, Gauge, Histogram, type CounterConfiguration, type GaugeConfiguration, type HistogramConfiguration, type LabelValues, type MetricObjectWithValues, type MetricValueWithName } from "prom-client";

export interface CounterSeries {
  /** Adds `by` (default 1; must be finite and not negative). */
  inc(by?: number): void;
}

export interface GaugeSeries {
  /** Adds `by` (default 1; any finite number). */
  inc(by?: number): void;
  /** Subtracts `by` (default 1). */
  dec(by?: number): void;
}

export interface HistogramSeries {
  observe(value: number): void;
}

/** A key for a label tuple in label-name order (values may hold any character: JSON-quoted). */
function keyOf(names: readonly string[], labels: Readonly<Record<string, string | number | undefined>>): string {
  let key = "";
  for (const n of names) {
    const v = labels[n];
    key += v === undefined ? "-," : `${JSON.stringify(String(v))},`;
  }
  return key;
}

function checkNames(metric: string, names: readonly string[], labels: object): void {
  for (const n of Object.keys(labels)) {
    if (!names.includes(n)) throw new Error(`Added label "${n}" is not included in initial labelset: ${JSON.stringify(names)} (metric ${metric})`);
  }
}

type Collect = (this: unknown) => void | Promise<void>;

/** Makes prom-client's `collect` (run before each export) flush a metric's held series first, then run its own. */
function flushBeforeEachExport(metric: object, flush: () => void): void {
  const self = metric as { collect?: Collect };
  const own = self.collect;
  self.collect = () => {
    flush();
    return own?.call(metric);
  };
}

/** The label names and name of a prom-client metric (fields its typings do not declare). */
function labelNamesOf(metric: object): readonly string[] {
  return (metric as { labelNames: string[] }).labelNames;
}

function nameOf(metric: object): string {
  return (metric as { name: string }).name;
}

class PendingCount implements CounterSeries {
  pending = 0;
  constructor(readonly labels: Readonly<Record<string, string | number>>) {}

  inc(by = 1): void {
    if (!(by >= 0) || !Number.isFinite(by)) throw new TypeError(`Value is not a valid number: ${by}`);
    this.pending += by;
  }
}

/** A Counter with held series (`series(labels)`). */
export class SeriesCounter<L extends string> extends Counter<L> {
  private readonly held = new Map<string, PendingCount>();

  constructor(config: CounterConfiguration<L>) {
    super(config);
    flushBeforeEachExport(this, () => this.flush());
  }

  series(labels: LabelValues<L>): CounterSeries {
    const key = keyOf(labelNamesOf(this), labels);
    let s = this.held.get(key);
    if (!s) {
      checkNames(nameOf(this), labelNamesOf(this), labels);
      s = new PendingCount({ ...(labels as Record<string, string | number>) });
      this.held.set(key, s);
    }
    return s;
  }

  /** Hands pending amounts to prom-client's own series (before each export). */
  private flush(): void {
    for (const s of this.held.values()) {
      if (s.pending === 0) continue;
      const by = s.pending;
      s.pending = 0;
      this.inc(s.labels as LabelValues<L>, by);
    }
  }

  /** prom-client calls it from its constructor too, before `held` exists. */
  override reset(): void {
    if (this.held) for (const s of this.held.values()) s.pending = 0;
    super.reset();
  }

  override remove(...args: [LabelValues<L>] | string[]): void {
    const labels = labelsOfArgs(labelNamesOf(this), args);
    const s = this.held.get(keyOf(labelNamesOf(this), labels));
    if (s) s.pending = 0;
    (super.remove as (...a: unknown[]) => void)(...args);
  }
}

class PendingDelta implements GaugeSeries {
  pending = 0;
  /** Changed since the last flush (a change that sums to 0 still makes the series exist, as prom-client's `inc` does). */
  dirty = false;
  constructor(readonly labels: Readonly<Record<string, string | number>>) {}

  inc(by = 1): void {
    if (!Number.isFinite(by)) throw new TypeError(`Value is not a valid number: ${by}`);
    this.pending += by;
    this.dirty = true;
  }

  dec(by = 1): void {
    this.inc(-by);
  }

  drop(): void {
    this.pending = 0;
    this.dirty = false;
  }
}

/** A Gauge with held series (`series(labels)`) for deltas on a hot path (`inc`/`dec`). */
export class SeriesGauge<L extends string> extends Gauge<L> {
  private readonly held = new Map<string, PendingDelta>();

  constructor(config: GaugeConfiguration<L>) {
    super(config);
    flushBeforeEachExport(this, () => this.flush());
  }

  series(labels: LabelValues<L>): GaugeSeries {
    const names = labelNamesOf(this);
    const key = keyOf(names, labels);
    let s = this.held.get(key);
    if (!s) {
      checkNames(nameOf(this), names, labels);
      s = new PendingDelta({ ...(labels as Record<string, string | number>) });
      this.held.set(key, s);
    }
    return s;
  }

  override set(...args: [LabelValues<L>, number] | [number]): void {
    if (args.length === 2 && this.held.size > 0) this.held.get(keyOf(labelNamesOf(this), args[0]))?.drop();
    (super.set as (...a: unknown[]) => void)(...args);
  }

  private flush(): void {
    for (const s of this.held.values()) {
      if (!s.dirty) continue;
      const by = s.pending;
      s.drop();
      this.inc(s.labels as LabelValues<L>, by);
    }
  }

  /** prom-client calls it from its constructor too, before `held` exists. */
  override reset(): void {
    if (this.held) for (const s of this.held.values()) s.drop();
    super.reset();
  }

  override remove(...args: [LabelValues<L>] | string[]): void {
    const names = labelNamesOf(this);
    this.held.get(keyOf(names, labelsOfArgs(names, args)))?.drop();
    (super.remove as (...a: unknown[]) => void)(...args);
  }
}

/** Positional label values (`remove("a", "b")`) or one label object, as prom-client accepts them. */
function labelsOfArgs(names: readonly string[], args: readonly unknown[]): Record<string, string | number> {
  if (args.length === 1 && typeof args[0] === "object" && args[0] !== null) return args[0] as Record<string, string | number>;
  const out: Record<string, string | number> = {};
  names.forEach((n, i) => {
    if (args[i] !== undefined) out[n] = args[i] as string | number;
  });
  return out;
}

class BucketCounts implements HistogramSeries {
  /** Observations per bucket (not cumulative); the last slot counts those above every bound. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Readonly<Record<string, string | number>>,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    const b = this.bounds;
    let i = 0;
    while (i < b.length && value > b[i]) i++;
    this.counts[i]++;
    this.sum += value;
    this.count++;
  }

  clear(): void {
    this.counts.fill(0);
    this.sum = 0;
    this.count = 0;
  }
}

type ExportValue = MetricValueWithName<string> & { sharedLabels?: Record<string, string | number> };

/** A Histogram with held series (`series(labels)`). */
export class SeriesHistogram<L extends string> extends Histogram<L> {
  private readonly held = new Map<string, BucketCounts>();

  constructor(config: HistogramConfiguration<L>) {
    super(config);
  }

  series(labels: LabelValues<L>): HistogramSeries {
    const names = this.meta().labelNames;
    const key = keyOf(names, labels);
    let s = this.held.get(key);
    if (!s) {
      checkNames(this.meta().name, names, labels);
      s = new BucketCounts({ ...(labels as Record<string, string | number>) }, this.meta().upperBounds);
      this.held.set(key, s);
    }
    return s;
  }

  /** prom-client calls it from its constructor too, before `held` exists. */
  override reset(): void {
    if (this.held) for (const s of this.held.values()) s.clear();
    super.reset();
  }

  override remove(...args: [LabelValues<L>] | string[]): void {
    const names = this.meta().labelNames;
    this.held.get(keyOf(names, labelsOfArgs(names, args)))?.clear();
    (super.remove as (...a: unknown[]) => void)(...args);
  }

  /** prom-client's export (values with `sharedLabels`) with the held series merged in. */
  async getForPromString(): Promise<MetricObjectWithValues<MetricValueWithName<L>>> {
    const parent = (Histogram.prototype as unknown as { getForPromString(): Promise<MetricObjectWithValues<ExportValue>> }).getForPromString;
    const data = await parent.call(this);
    const live = [...this.held.values()].filter((s) => s.count > 0);
    if (live.length === 0) return data as unknown as MetricObjectWithValues<MetricValueWithName<L>>;
    const { name, labelNames, upperBounds } = this.meta();
    const perSeries = upperBounds.length + 3; // buckets, +Inf, sum, count
    const values = data.values.slice();
    const index = new Map<string, number>();
    for (let i = 0; i + perSeries <= values.length; i += perSeries) index.set(keyOf(labelNames, values[i].sharedLabels ?? {}), i);
    for (const s of live) {
      const at = index.get(keyOf(labelNames, s.labels));
      if (at === undefined) {
        values.push(...seriesValues(name, upperBounds, s));
        continue;
      }
      let acc = 0;
      for (let b = 0; b < upperBounds.length; b++) {
        acc += s.counts[b];
        values[at + b] = { ...values[at + b], value: values[at + b].value + acc };
      }
      const add = [s.count, s.sum, s.count];
      for (let k = 0; k < 3; k++) values[at + upperBounds.length + k] = { ...values[at + upperBounds.length + k], value: values[at + upperBounds.length + k].value + add[k] };
    }
    return { ...data, values } as unknown as MetricObjectWithValues<MetricValueWithName<L>>;
  }

  private meta(): { name: string; labelNames: readonly string[]; upperBounds: readonly number[] } {
    return this as unknown as { name: string; labelNames: string[]; upperBounds: number[] };
  }
}

/** One held series as prom-client exports a series: cumulative buckets, +Inf, sum, count. */
function seriesValues(name: string, bounds: readonly number[], s: BucketCounts): ExportValue[] {
  const out: ExportValue[] = [];
  let acc = 0;
  for (let b = 0; b < bounds.length; b++) {
    acc += s.counts[b];
    out.push({ labels: { le: bounds[b] }, sharedLabels: s.labels, value: acc, metricName: `${name}_bucket`, exemplar: null } as ExportValue);
  }
  out.push({ labels: { le: "+Inf" }, sharedLabels: s.labels, value: s.count, metricName: `${name}_bucket`, exemplar: null } as ExportValue);
  out.push({ labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${name}_sum` } as ExportValue);
  out.push({ labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${name}_count` } as ExportValue);
  return out;
}

/** One level of `seriesByValues`' tree: the next value's subtree, or the series at the last value. */
type SeriesTree<S> = Map<string, SeriesTree<S> | S>;

/**
 * A hot path's series looked up by its label values in a fixed order, without a label
 * object or a key string built per call: `make` (e.g. `(a, b) => metric.series({ a, b })`)
 * runs once per tuple and its series is kept in a tree of maps, one level per value
 * (label values are constants on these paths, so each lookup hashes no new string).
 * Contract: every call passes the same number of values; use it for bounded values such
 * as plugin names, operations and booleans, never for client-chosen text.
 */
export function seriesByValues<S>(make: (...values: string[]) => S): (...values: string[]) => S {
  const root: SeriesTree<S> = new Map();
  return (...values) => {
    let level = root;
    const last = values.length - 1;
    for (let i = 0; i < last; i++) {
      let next = level.get(values[i]) as SeriesTree<S> | undefined;
      if (next === undefined) {
        next = new Map();
        level.set(values[i], next);
      }
      level = next;
    }
    let s = level.get(values[last]) as S | undefined;
    if (s === undefined) {
      s = make(...values);
      level.set(values[last], s);
    }
    return s;
  };
}
