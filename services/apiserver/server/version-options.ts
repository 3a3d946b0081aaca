/**
 * The apiserver's flags about versions and lifecycle: `--feature-gates`,
 * `--emulated-version`, `--runtime-config`, and the metric lifecycle flags
 * (`--show-hidden-metrics-for-version`, `--disabled-metrics`, `--allow-metric-labels`).
 * `versioningOptionsFrom` completes and checks them together (the gates are resolved at
 * the emulated release); every bad value is a FlagError naming the flag.
 */
import { FlagError, type FlagSpec, type FlagValues } from "../../../shared/cli/flags.ts";
import { parseAllowMetricLabels } from "../../../shared/observability/metric-label-allowlist.ts";
import { validateShowHiddenMetricsVersion, type MetricsOptions } from "../../../shared/observability/metrics.ts";
import { BINARY_VERSION, emulatedVersionHelp, formatMinor, resolveEffectiveVersion, type EffectiveVersion } from "./effective-version.ts";
import { FeatureGates, featureGatesHelp } from "./feature-gates.ts";

export const VERSIONING_FLAGS: Record<string, FlagSpec> = {
  "feature-gates": { kind: "list", help: featureGatesHelp() },
  "emulated-version": { kind: "list", help: emulatedVersionHelp() },
  "runtime-config": { kind: "list", help: "<key>[=<value>] pairs enabling or disabling built-in APIs: api/all, api/ga, api/beta, api/alpha, <group>/<version>, <group>/<version>/<resource>; an omitted value means true" },
  "show-hidden-metrics-for-version": { kind: "string", help: `The previous release (${formatMinor({ major: BINARY_VERSION.major, minor: BINARY_VERSION.minor - 1 })}) whose hidden metrics are shown again; only the previous minor release is accepted` },
  "disabled-metrics": { kind: "list", help: "Fully qualified names of metrics to turn off (wins over --show-hidden-metrics-for-version)" },
  "allow-metric-labels": { kind: "array", help: "Allowed values of a metric's label, as <MetricName>,<LabelName>='<value>,<value>'; other values are recorded as 'unexpected'" },
};

export type LifecycleMetricsOptions = Pick<MetricsOptions, "showHiddenMetricsForVersion" | "disabledMetrics" | "allowMetricLabels">;

export interface VersioningOptions {
  effectiveVersion: EffectiveVersion;
  gates: FeatureGates;
  runtimeConfig: string[];
  metrics: LifecycleMetricsOptions;
}

function flagFailure(flag: string, err: unknown): FlagError {
  return new FlagError(`invalid argument for --${flag}: ${err instanceof Error ? err.message : String(err)}`);
}

/** Completes the versioning flags; throws a FlagError naming the flag at fault. */
export function versioningOptionsFrom(flags: FlagValues): VersioningOptions {
  let effectiveVersion: EffectiveVersion;
  try {
    effectiveVersion = resolveEffectiveVersion((flags["emulated-version"] as string[] | undefined) ?? []);
  } catch (err) {
    throw flagFailure("emulated-version", err);
  }
  const gates = new FeatureGates({ emulationVersion: effectiveVersion.emulation });
  try {
    gates.set((flags["feature-gates"] as string[] | undefined) ?? []);
  } catch (err) {
    throw flagFailure("feature-gates", err);
  }
  const metrics: LifecycleMetricsOptions = { disabledMetrics: (flags["disabled-metrics"] as string[] | undefined) ?? [] };
  const showHidden = flags["show-hidden-metrics-for-version"];
  if (typeof showHidden === "string" && showHidden !== "") {
    try {
      validateShowHiddenMetricsVersion(showHidden, formatMinor(effectiveVersion.binary));
    } catch (err) {
      throw new FlagError(err instanceof Error ? err.message : String(err));
    }
    metrics.showHiddenMetricsForVersion = showHidden;
  }
  try {
    metrics.allowMetricLabels = parseAllowMetricLabels((flags["allow-metric-labels"] as string[] | undefined) ?? []);
  } catch (err) {
    throw flagFailure("allow-metric-labels", err);
  }
  return { effectiveVersion, gates, runtimeConfig: (flags["runtime-config"] as string[] | undefined) ?? [], metrics };
}
