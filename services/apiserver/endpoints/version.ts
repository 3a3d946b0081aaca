/**
 * /version: the release this server implements (clients check skew against it). With
 * `--emulated-version`, `major`/`minor`/`gitVersion` stay the binary's release and
 * `emulationMajor`/`emulationMinor`/`minCompatibility*` report the emulation, as the
 * platform's server does.
 */

// The release whose API this server implements (the specification's). kubectl 1.34 is within
// the supported skew; kubectl 1.32 only warns about the skew in `kubectl version`.
export const SERVER_VERSION = { major: "1", minor: "35", patch: "0" };

interface VersionPair {
  major: number;
  minor: number;
}

/** The emulated and minimum compatibility releases (default: the binary's and the one before). */
export interface EmulationInfo {
  emulation: VersionPair;
  minCompatibility: VersionPair;
}

const DEFAULT_EMULATION: EmulationInfo = {
  emulation: { major: Number(SERVER_VERSION.major), minor: Number(SERVER_VERSION.minor) },
  minCompatibility: { major: Number(SERVER_VERSION.major), minor: Number(SERVER_VERSION.minor) - 1 },
};

export function versionInfo(emulation: EmulationInfo = DEFAULT_EMULATION) {
  return {
    major: SERVER_VERSION.major,
    minor: SERVER_VERSION.minor,
    emulationMajor: String(emulation.emulation.major),
    emulationMinor: String(emulation.emulation.minor),
    minCompatibilityMajor: String(emulation.minCompatibility.major),
    minCompatibilityMinor: String(emulation.minCompatibility.minor),
    gitVersion: `v${SERVER_VERSION.major}.${SERVER_VERSION.minor}.${SERVER_VERSION.patch}`,
    gitCommit: "0000000000000000000000000000000000000000",
    gitTreeState: "clean",
    buildDate: "2026-01-01T00:00:00Z",
    goVersion: `node${process.versions.node}`,
    compiler: "tsc",
    platform: `${process.platform}/${process.arch === "x64" ? "amd64" : process.arch}`,
  };
}
