/**
 * `--runtime-config=<key>[=<value>],...`: which built-in group versions and resources a
 * replica serves. Keys: `api/all`, `api/ga`, `api/beta`, `api/alpha`, `api/legacy` (the
 * core group), `<group>/<version>` (`api/v1` or `v1` for the core group) and
 * `<group>/<version>/<resource>`; an omitted value means true, others are read as
 * booleans (1, t, true, 0, f, false in any case the platform accepts). The more specific
 * key wins: a resource over its version, a version over its stability level, a level
 * over `api/all`. Without a key, alpha versions are off, betas introduced after 1.22
 * are off and every other version is on. A key that names nothing this server knows,
 * or a value that is not a boolean, fails start-up with one line.
 * Under `--emulated-version`, group versions introduced after the emulated release (or
 * removed by it) are not served (served-versions.ts), whatever the flag says.
 * Pure: kinds in, served kinds out.
 */
import type { PlatformProfile } from "../../../shared/platform/index.ts";
import type { KindDefinition } from "../../../shared/schema/types.ts";
import { allKnownKinds, LATE_BETAS } from "./served-versions.ts";

export { availableAt } from "./served-versions.ts";

export type Stability = "alpha" | "beta" | "ga";

const TRUE = new Set(["1", "t", "T", "TRUE", "true", "True"]);
const FALSE = new Set(["0", "f", "F", "FALSE", "false", "False"]);
const LEVEL_KEYS: Readonly<Record<string, Stability | "all">> = { "api/all": "all", "api/ga": "ga", "api/beta": "beta", "api/alpha": "alpha" };

export class RuntimeConfigError extends Error {}

export function stabilityOf(version: string): Stability {
  if (/^v\d+alpha\d+$/.test(version)) return "alpha";
  if (/^v\d+beta\d+$/.test(version)) return "beta";
  return "ga";
}

export interface RuntimeConfig {
  all?: boolean;
  levels: Map<Stability, boolean>;
  /** Keyed by apiVersion (`v1`, `batch/v1`). */
  versions: Map<string, boolean>;
  /** Keyed by `<apiVersion>/<plural>`. */
  resources: Map<string, boolean>;
}

function parseBool(key: string, raw: string | undefined): boolean {
  if (raw === undefined) return true;
  if (TRUE.has(raw)) return true;
  if (FALSE.has(raw)) return false;
  throw new RuntimeConfigError(`invalid value of --runtime-config key ${key}: ${JSON.stringify(raw)} is not a boolean`);
}

/** Parses the flag's entries against the kinds this server knows (served or not). */
export function parseRuntimeConfig(entries: readonly string[], known: readonly KindDefinition[], profile: PlatformProfile): RuntimeConfig {
  const versions = new Set(known.map((k) => profile.apiVersion(k.group, k.version)));
  const resources = new Set(known.map((k) => `${profile.apiVersion(k.group, k.version)}/${k.plural}`));
  const cfg: RuntimeConfig = { levels: new Map(), versions: new Map(), resources: new Map() };
  for (const entry of entries) {
    const eq = entry.indexOf("=");
    const key = eq < 0 ? entry : entry.slice(0, eq);
    const value = parseBool(key, eq < 0 ? undefined : entry.slice(eq + 1));
    const level = LEVEL_KEYS[key];
    if (level === "all") cfg.all = value;
    else if (level) cfg.levels.set(level, value);
    else {
      // The core group answers to `api/v1`, `api/legacy` and `v1`.
      const name = key === "api/legacy" ? "v1" : key.replace(/^api\/(?=v1(\/|$))/, "");
      if (versions.has(name)) cfg.versions.set(name, value);
      else if (resources.has(name)) cfg.resources.set(name, value);
      else throw new RuntimeConfigError(`invalid --runtime-config key ${JSON.stringify(key)}: no such group version or resource is served by this server`);
    }
  }
  return cfg;
}

/** Whether a group version is on before its resources are looked at. */
export function versionEnabled(cfg: RuntimeConfig, apiVersion: string, groupKey: string, version: string): boolean {
  const explicit = cfg.versions.get(apiVersion);
  if (explicit !== undefined) return explicit;
  const level = cfg.levels.get(stabilityOf(version));
  if (level !== undefined) return level;
  if (cfg.all !== undefined) return cfg.all;
  const stability = stabilityOf(version);
  return stability === "ga" || (stability === "beta" && !LATE_BETAS.has(`${groupKey}/${version}`));
}

/** The kinds a replica serves under the flag's entries; throws a RuntimeConfigError on a bad entry. */
export function applyRuntimeConfig(kinds: readonly KindDefinition[], entries: readonly string[], profile: PlatformProfile, known: readonly KindDefinition[] = kinds): KindDefinition[] {
  const cfg = parseRuntimeConfig(entries, known, profile);
  return kinds.filter((k) => {
    const apiVersion = profile.apiVersion(k.group, k.version);
    return cfg.resources.get(`${apiVersion}/${k.plural}`) ?? versionEnabled(cfg, apiVersion, k.group, k.version);
  });
}

/** Checks the flag's entries against every built-in kind, before anything starts (throws a RuntimeConfigError). */
export function validateRuntimeConfig(entries: readonly string[], profile: PlatformProfile): void {
  parseRuntimeConfig(entries, allKnownKinds(profile), profile);
}
