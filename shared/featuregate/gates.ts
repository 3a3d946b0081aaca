/**
 * Feature gates with versioned stages, as every service of the platform declares
 * them (one registry and one parser; each service passes its own gate table).
 *
 * Contract:
 * - Each gate lists its stage transitions (`since` release, stage, default, lock). The
 *   spec in force is the last one whose release is not after the emulated version; a gate
 *   with none yet is PRE-ALPHA there: unknown to `--help`, absent from the metric, and
 *   refusing to be set.
 * - `--feature-gates` takes `Name=bool` pairs, optionally `kube:Name=bool`. An unknown name
 *   stops at once ("unrecognized feature gate: X"); a value that is not a boolean, a
 *   missing value, a locked gate set against its lock are errors with the platform's
 *   wording; several errors are reported together as `[a, b]`.
 * - `AllAlpha` / `AllBeta` set every alpha / beta gate that is not set by name.
 * - Setting a GA or deprecated gate is allowed (when not locked) and yields a warning.
 * - `enabled(name)` of a name this table does not know throws: it is a programming error.
 */
import type { Gauge } from "prom-client";
import { parseMinorVersion, type MetricsRegistry } from "../observability/metrics.ts";

/** A `major.minor` release. */
export interface MinorVersion {
  major: number;
  minor: number;
}

export type GateStage = "PRE-ALPHA" | "ALPHA" | "BETA" | "GA" | "DEPRECATED";

export interface GateSpec {
  stage: GateStage;
  default: boolean;
  /** The value cannot be changed (GA gates about to be removed, some deprecated ones). */
  lockToDefault?: boolean;
}

export interface VersionedGateSpec extends GateSpec {
  /** `major.minor` release from which this spec holds. */
  since: string;
}

export const alpha = (since: string): VersionedGateSpec => ({ since, stage: "ALPHA", default: false });
export const beta = (since: string, on = true): VersionedGateSpec => ({ since, stage: "BETA", default: on });
export const gaLocked = (since: string): VersionedGateSpec => ({ since, stage: "GA", default: true, lockToDefault: true });
export const deprecated = (since: string, on: boolean, lockToDefault = false): VersionedGateSpec => ({ since, stage: "DEPRECATED", default: on, lockToDefault });

/** The two gates every table has: they set every alpha / beta gate not set by name. */
export const ALL_ALPHA_BETA: Readonly<Record<string, readonly VersionedGateSpec[]>> = {
  AllAlpha: [{ since: "0.0", stage: "ALPHA", default: false }],
  AllBeta: [{ since: "0.0", stage: "BETA", default: false }],
};

const formatMinor = (v: MinorVersion): string => `${v.major}.${v.minor}`;
const compareMinor = (a: MinorVersion, b: MinorVersion): number => (a.major !== b.major ? a.major - b.major : a.minor - b.minor);

const SPECIAL: Readonly<Record<string, GateStage>> = { AllAlpha: "ALPHA", AllBeta: "BETA" };
const PRE_ALPHA: GateSpec = { stage: "PRE-ALPHA", default: false };
const TRUE = /^(1|t|T|TRUE|true|True)$/;
const FALSE = /^(0|f|F|FALSE|false|False)$/;

/** The spec of a gate in force at `at` (PRE-ALPHA before its first entry). Pure. */
export function specAt(history: readonly VersionedGateSpec[], at: MinorVersion): GateSpec {
  let found: GateSpec = PRE_ALPHA;
  for (const spec of history) if (compareMinor(parseMinorVersion(spec.since), at) <= 0) found = spec;
  return found;
}

export class FeatureGateError extends Error {}

export interface FeatureGateOptions {
  /** The release whose gate stages apply (`--emulated-version`; the binary's by default). */
  emulationVersion: MinorVersion;
  /** The service's gate table (with AllAlpha and AllBeta). */
  known: Readonly<Record<string, readonly VersionedGateSpec[]>>;
}

/** The gate states of one process, resolved at its emulated version. */
export class FeatureGates {
  readonly emulationVersion: MinorVersion;
  private readonly specs = new Map<string, GateSpec>();
  private readonly explicit = new Map<string, boolean>();
  private readonly warningsSeen: string[] = [];

  constructor(opts: FeatureGateOptions) {
    this.emulationVersion = opts.emulationVersion;
    for (const [name, history] of Object.entries(opts.known)) this.specs.set(name, specAt(history, this.emulationVersion));
  }

  /**
   * Applies `Name=bool` entries (the flag's comma-split values). Throws a FeatureGateError
   * with the platform's wording; nothing changes when it throws.
   */
  set(entries: readonly string[]): void {
    const parsed = new Map<string, boolean>();
    for (const raw of entries) {
      const entry = raw.trim().replace(/^kube:/, "");
      if (entry === "") continue;
      const eq = entry.indexOf("=");
      const name = (eq < 0 ? entry : entry.slice(0, eq)).trim();
      if (eq < 0) throw new FeatureGateError(`missing bool value for ${name}`);
      const value = entry.slice(eq + 1).trim();
      if (TRUE.test(value)) parsed.set(name, true);
      else if (FALSE.test(value)) parsed.set(name, false);
      else throw new FeatureGateError(`invalid value of ${name}=${value}, err: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
    }
    const errors: string[] = [];
    const warnings: string[] = [];
    for (const [name, value] of parsed) {
      const spec = this.specs.get(name);
      if (!spec) throw new FeatureGateError(`unrecognized feature gate: ${name}`);
      if (spec.lockToDefault && spec.default !== value) {
        errors.push(`cannot set feature gate ${name} to ${value}, feature is locked to ${spec.default}`);
        continue;
      }
      if (spec.stage === "PRE-ALPHA") {
        const v = formatMinor(this.emulationVersion);
        errors.push(`cannot set feature gate ${name} to ${value}, feature is PreAlpha at emulated version ${v}, min compatibility version ${formatMinor({ major: this.emulationVersion.major, minor: this.emulationVersion.minor - 1 })}`);
        continue;
      }
      if (spec.stage === "DEPRECATED") warnings.push(`Setting deprecated feature gate ${name}=${value}. It will be removed in a future release.`);
      else if (spec.stage === "GA" && !Object.hasOwn(SPECIAL, name)) warnings.push(`Setting GA feature gate ${name}=${value}. It will be removed in a future release.`);
    }
    if (errors.length === 1) throw new FeatureGateError(errors[0]);
    if (errors.length > 1) throw new FeatureGateError(`[${errors.join(", ")}]`);
    for (const [name, value] of parsed) this.explicit.set(name, value);
    this.warningsSeen.push(...warnings);
  }

  /** Warnings of the gates set so far (GA and deprecated gates), once each. */
  warnings(): readonly string[] {
    return [...this.warningsSeen];
  }

  enabled(name: string): boolean {
    const spec = this.specs.get(name);
    if (!spec) throw new Error(`feature ${JSON.stringify(name)} is not registered in the feature gates`);
    const explicit = this.explicit.get(name);
    if (explicit !== undefined) return explicit;
    if (spec.stage === "ALPHA" || spec.stage === "BETA") {
      const all = this.explicit.get(spec.stage === "ALPHA" ? "AllAlpha" : "AllBeta");
      if (all !== undefined && !Object.hasOwn(SPECIAL, name)) return all;
    }
    return spec.default;
  }

  /** Every gate known at the emulated version (PRE-ALPHA ones left out), sorted by name. */
  known(): Array<{ name: string } & GateSpec> {
    return [...this.specs]
      .filter(([, s]) => s.stage !== "PRE-ALPHA")
      .map(([name, s]) => ({ name, ...s }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * Declares `<profile id>_feature_enabled{name,stage}` (BETA) and records every known gate:
   * 1 when on. GA gates have an empty stage, as on the platform.
   */
  recordMetric(metrics: MetricsRegistry, profileId: string): Gauge<"name" | "stage"> {
    const gauge = metrics.gauge({
      name: `${profileId}_feature_enabled`,
      help: "Whether each feature gate is on (1) or off (0), with the gate's stage at the emulated version.",
      labelNames: ["name", "stage"],
      stabilityLevel: "BETA",
    });
    for (const gate of this.known()) gauge.set({ name: gate.name, stage: gate.stage === "GA" ? "" : gate.stage }, this.enabled(gate.name) ? 1 : 0);
    return gauge;
  }
}

/**
 * The `--feature-gates` help: the settable gates as `Name=true|false (STAGE - default=x)`,
 * then the GA and deprecated ones with whether setting them still has an effect.
 */
export function featureGatesHelp(gates: FeatureGates): string {
  const lines = ["Comma-separated Name=true|false pairs (an optional 'kube:' prefix is accepted) that turn features on or off. Options are:"];
  const settled: string[] = [];
  for (const g of gates.known()) {
    if (g.stage === "ALPHA" || g.stage === "BETA") lines.push(`${g.name}=true|false (${g.stage} - default=${g.default})`);
    else settled.push(`${g.name} (${g.stage}${g.lockToDefault ? `, locked to ${g.default}: setting it has no effect` : `, default=${g.default}`})`);
  }
  lines.push(`GA and deprecated gates: ${settled.join(", ")}`);
  return lines.join("\n");
}

/** The platform release whose gates the services implement: their gates resolve here unless a service emulates another. */
export const PLATFORM_RELEASE: MinorVersion = { major: 1, minor: 35 };

/** The gates of `known` at `emulationVersion` with the flag's entries applied; throws a FeatureGateError. */
export function gatesFromFlag(known: Readonly<Record<string, readonly VersionedGateSpec[]>>, entries: readonly string[] = [], emulationVersion: MinorVersion = PLATFORM_RELEASE): FeatureGates {
  const gates = new FeatureGates({ known, emulationVersion });
  gates.set(entries);
  return gates;
}

/** The `--feature-gates` flag of a service whose gates are `known`: its help lists them. */
export function featureGatesFlag(known: Readonly<Record<string, readonly VersionedGateSpec[]>>): { kind: "list"; help: string } {
  return { kind: "list", help: featureGatesHelp(gatesFromFlag(known)) };
}
