/**
 * The versions a replica runs at (compatibility versions): the binary's release, the
 * release it emulates (`--emulated-version`, default the binary's) and the minimum
 * release it stays compatible with (one below the emulated one, never below the floor).
 *
 * `--emulated-version` takes `kube=<major.minor>` or `<major.minor>` entries; the only
 * component is `kube`. The allowed range is the binary release and the three before it,
 * as on the platform; anything else fails start-up with the platform's wording.
 * Pure: strings in, versions out.
 */
import { parseMinorVersion } from "../../../shared/observability/metrics.ts";
import { SERVER_VERSION } from "../endpoints/version.ts";

export interface MinorVersion {
  major: number;
  minor: number;
}

export interface EffectiveVersion {
  binary: MinorVersion;
  emulation: MinorVersion;
  minCompatibility: MinorVersion;
}

export const BINARY_VERSION: MinorVersion = { major: Number(SERVER_VERSION.major), minor: Number(SERVER_VERSION.minor) };
/** How many releases back a replica can emulate. */
export const EMULATION_RANGE = 3;

export class EmulatedVersionError extends Error {}

export function parseMinor(v: string): MinorVersion {
  return parseMinorVersion(v);
}

export function formatMinor(v: MinorVersion): string {
  return `${v.major}.${v.minor}`;
}

/** Negative when a < b, 0 when equal, positive when a > b. */
export function compareMinor(a: MinorVersion, b: MinorVersion): number {
  return a.major !== b.major ? a.major - b.major : a.minor - b.minor;
}

function minusMinor(v: MinorVersion, n: number): MinorVersion {
  return { major: v.major, minor: v.minor - n };
}

/** The lowest release `--emulated-version` accepts for a binary. */
export function emulationFloor(binary: MinorVersion = BINARY_VERSION): MinorVersion {
  return minusMinor(binary, EMULATION_RANGE);
}

/** The `--emulated-version` help, listing the accepted range as the platform does. */
export function emulatedVersionHelp(binary: MinorVersion = BINARY_VERSION): string {
  return [
    "The release whose capabilities (APIs, feature gate stages) the server emulates instead of its own.",
    `Format major.minor, optionally prefixed with the component: '--emulated-version=kube=${formatMinor(minusMinor(binary, 1))}'. Options are:`,
    `kube=${formatMinor(emulationFloor(binary))}..${formatMinor(binary)}(default:${formatMinor(binary)})`,
    'If the component is not specified, defaults to "kube"',
  ].join("\n");
}

/** Resolves the flag's entries (already comma-split) against the binary release; throws an EmulatedVersionError. */
export function resolveEffectiveVersion(entries: readonly string[], binary: MinorVersion = BINARY_VERSION): EffectiveVersion {
  let emulation = binary;
  for (const raw of entries) {
    const entry = raw.trim();
    if (entry === "") continue;
    const eq = entry.indexOf("=");
    const component = eq < 0 ? "kube" : entry.slice(0, eq).trim();
    const value = eq < 0 ? entry : entry.slice(eq + 1).trim();
    if (component !== "kube") throw new EmulatedVersionError(`component not registered: ${component}`);
    if (!/^v?\d+\.\d+$/.test(value)) throw new EmulatedVersionError(`illegal version string ${JSON.stringify(value)}: the emulated version must be major.minor`);
    emulation = parseMinor(value);
  }
  const floor = emulationFloor(binary);
  if (compareMinor(emulation, binary) > 0 || compareMinor(emulation, floor) < 0) {
    throw new EmulatedVersionError(`emulation version ${formatMinor(emulation)} is not between [${formatMinor(floor)}, ${formatMinor(binary)}]`);
  }
  const below = minusMinor(emulation, 1);
  return { binary, emulation, minCompatibility: compareMinor(below, floor) < 0 ? floor : below };
}
