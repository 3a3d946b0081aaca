/**
 * Metrics (prom-client) with the platform's stability classes. Every metric is
 * declared with a class (ALPHA, BETA, STABLE, or INTERNAL), which is printed at
 * the start of its help text (`[STABLE] ...`). A deprecated metric's help
 * reads `[STABLE] (Deprecated since 1.32.0) ...` (the version as declared, as the
 * platform's metrics framework prints it); once its deprecation window
 * has passed (STABLE 3 releases, BETA 1, ALPHA and INTERNAL 0) it is hidden:
 * the caller still gets a working metric object, but it is not registered on
 * the metrics endpoint unless `--show-hidden-metrics-for-version` names the
 * previous release and the metric was still visible there.
 *
 * `--disabled-metrics` names metrics that are never registered (this wins over showing
 * hidden ones); `--allow-metric-labels` bounds label values (metric-label-allowlist.ts).
 * The registry exports its own bookkeeping as the platform does:
 * `registered_metrics_total{stability_level,deprecated_version}`, `disabled_metrics_total`
 * and `hidden_metrics_total` (all BETA).
 */
import { Counter, Gauge, Registry, collectDefaultMetrics } from "prom-client";
import { constrainLabels, type LabelAllowList } from "./metric-label-allowlist.ts";
import { SeriesCounter, SeriesGauge, SeriesHistogram } from "./series.ts";

export type { CounterSeries, GaugeSeries, HistogramSeries } from "./series.ts";
export { SeriesCounter, SeriesGauge, SeriesHistogram };
export { seriesByValues } from "./series.ts";

export type StabilityLevel = "INTERNAL" | "ALPHA" | "BETA" | "STABLE";

/** Releases a deprecated metric stays visible, per class. */
export const DEPRECATION_WINDOW: Readonly<Record<StabilityLevel, number>> = { STABLE: 3, BETA: 1, ALPHA: 0, INTERNAL: 0 };

export interface MetricDeclaration<L extends string> {
  name: string;
  help: string;
  labelNames?: readonly L[];
  /** Default ALPHA. */
  stabilityLevel?: StabilityLevel;
  /** Release in which the metric was deprecated (`major.minor[.patch]`, printed as written). */
  deprecatedVersion?: string;
}

export interface HistogramDeclaration<L extends string> extends MetricDeclaration<L> {
  buckets?: number[];
}

interface MinorVersion {
  major: number;
  minor: number;
}

/** Parses `1.35`, `v1.35.2` or `1.35.0-alpha.1` to its major and minor release. */
export function parseMinorVersion(v: string): MinorVersion {
  const m = /^v?(\d+)\.(\d+)(?:\.\d+)?(?:[-+].*)?$/.exec(v.trim());
  if (!m) throw new Error(`invalid version ${JSON.stringify(v)}: expected <major>.<minor>`);
  return { major: Number(m[1]), minor: Number(m[2]) };
}

function releasesBetween(from: MinorVersion, to: MinorVersion): number {
  if (from.major !== to.major) return to.major > from.major ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
  return to.minor - from.minor;
}

/** True when a metric deprecated in `deprecatedVersion` is hidden in release `current`. */
export function isHidden(level: StabilityLevel, deprecatedVersion: string | undefined, current: string): boolean {
  if (!deprecatedVersion) return false;
  return releasesBetween(parseMinorVersion(deprecatedVersion), parseMinorVersion(current)) >= DEPRECATION_WINDOW[level];
}

/** The help text as printed: `[STABLE] (Deprecated since 1.32.0) help`. */
export function annotatedHelp(help: string, level: StabilityLevel, deprecatedVersion?: string): string {
  return deprecatedVersion ? `[${level}] (Deprecated since ${deprecatedVersion}) ${help}` : `[${level}] ${help}`;
}

export interface MetricsOptions {
  /** The running release (`1.35`). */
  currentVersion: string;
  /** `--show-hidden-metrics-for-version`: only the previous release is accepted. */
  showHiddenMetricsForVersion?: string;
  /** Also collect the process and runtime metrics of prom-client. */
  defaultMetrics?: boolean;
  /** Called once per deprecated metric that is declared (the platform logs a warning). */
  onDeprecated?: (name: string, deprecatedVersion: string) => void;
  /** `--disabled-metrics`: fully qualified names never registered. */
  disabledMetrics?: readonly string[];
  /** `--allow-metric-labels`, parsed. */
  allowMetricLabels?: LabelAllowList;
}

/** Checks `--show-hidden-metrics-for-version` against the running release. */
export function validateShowHiddenMetricsVersion(value: string, currentVersion: string): void {
  const v = parseMinorVersion(value);
  const cur = parseMinorVersion(currentVersion);
  if (v.major !== cur.major || v.minor !== cur.minor - 1) {
    throw new Error(`--show-hidden-metrics-for-version must be omitted or have the value '${cur.major}.${cur.minor - 1}'. Only the previous minor version is allowed`);
  }
}

/** A registry that declares metrics with stability classes and hides deprecated ones. */
export class MetricsRegistry {
  readonly registry = new Registry();
  readonly currentVersion: string;
  private readonly showHidden?: string;
  private readonly onDeprecated?: (name: string, deprecatedVersion: string) => void;
  private readonly declared = new Map<string, StabilityLevel>();
  private readonly hidden = new Set<string>();
  private readonly disabled: ReadonlySet<string>;
  private readonly allowLabels?: LabelAllowList;
  private readonly registeredTotal: Counter<"stability_level" | "deprecated_version">;
  private readonly hiddenTotal: Counter<string>;

  constructor(opts: MetricsOptions) {
    parseMinorVersion(opts.currentVersion);
    if (opts.showHiddenMetricsForVersion) validateShowHiddenMetricsVersion(opts.showHiddenMetricsForVersion, opts.currentVersion);
    this.currentVersion = opts.currentVersion;
    this.showHidden = opts.showHiddenMetricsForVersion;
    this.onDeprecated = opts.onDeprecated;
    this.disabled = new Set(opts.disabledMetrics ?? []);
    this.allowLabels = opts.allowMetricLabels;
    // The bookkeeping metrics go first so that they count themselves.
    const registered = new Counter<"stability_level" | "deprecated_version">({
      name: "registered_metrics_total",
      help: annotatedHelp("Metrics registered on this endpoint, by stability class and the release that deprecated them.", "BETA"),
      labelNames: ["stability_level", "deprecated_version"],
      registers: [this.registry],
    });
    this.registeredTotal = registered;
    const disabledTotal = this.counter({ name: "disabled_metrics_total", help: "Metrics turned off with --disabled-metrics.", stabilityLevel: "BETA" });
    this.hiddenTotal = this.counter({ name: "hidden_metrics_total", help: "Deprecated metrics hidden because their deprecation window has passed.", stabilityLevel: "BETA" });
    this.declared.set("registered_metrics_total", "BETA");
    registered.inc({ stability_level: "BETA", deprecated_version: "" });
    disabledTotal.inc(this.disabled.size);
    if (opts.defaultMetrics) collectDefaultMetrics({ register: this.registry });
  }

  /** Whether the metric is registered on the endpoint; decided once per name. */
  private visible(d: MetricDeclaration<string>): boolean {
    if (this.declared.has(d.name)) throw new Error(`metric ${d.name} is already declared`);
    if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(d.name)) throw new Error(`invalid metric name ${JSON.stringify(d.name)}`);
    const level = d.stabilityLevel ?? "ALPHA";
    this.declared.set(d.name, level);
    if (this.disabled.has(d.name)) return false;
    if (d.deprecatedVersion) this.onDeprecated?.(d.name, d.deprecatedVersion);
    const hiddenNow = isHidden(level, d.deprecatedVersion, this.currentVersion);
    const shownByFlag = this.showHidden !== undefined && !isHidden(level, d.deprecatedVersion, this.showHidden);
    if (hiddenNow && !shownByFlag) {
      this.hidden.add(d.name);
      this.hiddenTotal.inc();
      return false;
    }
    this.registeredTotal.inc({ stability_level: level, deprecated_version: d.deprecatedVersion ?? "" });
    return true;
  }

  private common<L extends string>(d: MetricDeclaration<L>) {
    const registers = this.visible(d) ? [this.registry] : [];
    return {
      name: d.name,
      help: annotatedHelp(d.help, d.stabilityLevel ?? "ALPHA", d.deprecatedVersion),
      labelNames: [...(d.labelNames ?? [])] as L[],
      registers,
    };
  }

  private bounded<M extends object>(metric: M, d: MetricDeclaration<string>): M {
    return constrainLabels(metric, d.labelNames ?? [], this.allowLabels?.get(d.name));
  }

  /** A counter; `series(labels)` holds one label tuple for a hot path (series.ts). */
  counter<L extends string>(d: MetricDeclaration<L>): SeriesCounter<L> {
    return this.bounded(new SeriesCounter<L>(this.common(d)), d);
  }

  /** A gauge; `series(labels)` holds one label tuple whose deltas a hot path records (series.ts). */
  gauge<L extends string>(d: MetricDeclaration<L>): SeriesGauge<L> {
    return this.bounded(new SeriesGauge<L>(this.common(d)), d);
  }

  /** A histogram; `series(labels)` holds one label tuple for a hot path (series.ts). */
  histogram<L extends string>(d: HistogramDeclaration<L>): SeriesHistogram<L> {
    const c = this.common(d);
    return this.bounded(new SeriesHistogram<L>(d.buckets ? { ...c, buckets: d.buckets } : c), d);
  }

  /** Names declared but hidden from the endpoint (deprecated past their window). */
  hiddenMetrics(): string[] {
    return [...this.hidden].sort();
  }

  /** Names declared but turned off by `--disabled-metrics`. */
  disabledMetrics(): string[] {
    return [...this.declared.keys()].filter((n) => this.disabled.has(n)).sort();
  }

  stabilityOf(name: string): StabilityLevel | undefined {
    return this.declared.get(name);
  }

  /** The exposition text for `/metrics`. */
  async text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

// ---------------------------------------------------------------------------
// The API server's metrics

const REQUEST_DURATION_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];
const STORE_DURATION_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 10, 15, 20, 30, 60];

export type RequestLabel = "verb" | "group" | "version" | "resource" | "subresource" | "scope" | "component" | "code";
export type RequestDurationLabel = Exclude<RequestLabel, "code">;

export interface ApiserverMetrics {
  requestTotal: SeriesCounter<RequestLabel>;
  requestDuration: SeriesHistogram<RequestDurationLabel>;
  currentInflightRequests: Gauge<"request_kind">;
  requestedDeprecatedApis: Gauge<"group" | "version" | "resource" | "subresource" | "removed_release">;
  storageObjects: Gauge<"resource">;
  resourceObjects: Gauge<"group" | "resource">;
  etcdRequestDuration: SeriesHistogram<"operation" | "type">;
  watchEventsTotal: Counter<"group" | "version" | "resource">;
  requestTerminations: SeriesCounter<RequestLabel>;
}

/** Declares the API server's metrics with the platform's names, labels and classes. */
export function declareApiserverMetrics(m: MetricsRegistry): ApiserverMetrics {
  return {
    requestTotal: m.counter({
      name: "apiserver_request_total",
      help: "Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.",
      labelNames: ["verb", "group", "version", "resource", "subresource", "scope", "component", "code"],
      stabilityLevel: "STABLE",
    }),
    requestDuration: m.histogram({
      name: "apiserver_request_duration_seconds",
      help: "Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.",
      labelNames: ["verb", "group", "version", "resource", "subresource", "scope", "component"],
      stabilityLevel: "STABLE",
      buckets: REQUEST_DURATION_BUCKETS,
    }),
    currentInflightRequests: m.gauge({
      name: "apiserver_current_inflight_requests",
      help: "Maximal number of currently used inflight request limit of this apiserver per request kind in last second.",
      labelNames: ["request_kind"],
      stabilityLevel: "STABLE",
    }),
    requestedDeprecatedApis: m.gauge({
      name: "apiserver_requested_deprecated_apis",
      help: "Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.",
      labelNames: ["group", "version", "resource", "subresource", "removed_release"],
      stabilityLevel: "STABLE",
    }),
    // Deprecated in 1.34 for apiserver_resource_objects; STABLE, so still shown until 1.37.
    storageObjects: m.gauge({
      name: "apiserver_storage_objects",
      help: "[DEPRECATED, consider using apiserver_resource_objects instead] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.",
      labelNames: ["resource"],
      stabilityLevel: "STABLE",
      deprecatedVersion: "1.34.0",
    }),
    resourceObjects: m.gauge({
      name: "apiserver_resource_objects",
      help: "Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.",
      labelNames: ["group", "resource"],
      stabilityLevel: "ALPHA",
    }),
    etcdRequestDuration: m.histogram({
      name: "etcd_request_duration_seconds",
      help: "Etcd request latency in seconds for each operation and object type.",
      labelNames: ["operation", "type"],
      stabilityLevel: "ALPHA",
      buckets: STORE_DURATION_BUCKETS,
    }),
    watchEventsTotal: m.counter({
      name: "apiserver_watch_events_total",
      help: "Number of events sent in watch clients",
      labelNames: ["group", "version", "resource"],
      stabilityLevel: "ALPHA",
    }),
    requestTerminations: m.counter({
      name: "apiserver_request_terminations_total",
      help: "Number of requests which apiserver terminated in self-defense.",
      labelNames: ["verb", "group", "version", "resource", "subresource", "scope", "component", "code"],
      stabilityLevel: "ALPHA",
    }),
  };
}
