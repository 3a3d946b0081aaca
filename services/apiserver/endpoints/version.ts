/** /version: the release this server implements (clients check skew against it). */

// The release whose API this server implements (the specification's). kubectl 1.34 is within
// the supported skew; kubectl 1.32 only warns about the skew in `kubectl version`.
export const SERVER_VERSION = { major: "1", minor: "35", patch: "0" };

export function versionInfo() {
  return {
    major: SERVER_VERSION.major,
    minor: SERVER_VERSION.minor,
    emulationMajor: SERVER_VERSION.major,
    emulationMinor: SERVER_VERSION.minor,
    minCompatibilityMajor: SERVER_VERSION.major,
    minCompatibilityMinor: String(Number(SERVER_VERSION.minor) - 1),
    gitVersion: `v${SERVER_VERSION.major}.${SERVER_VERSION.minor}.${SERVER_VERSION.patch}`,
    gitCommit: "0000000000000000000000000000000000000000",
    gitTreeState: "clean",
    buildDate: "2026-01-01T00:00:00Z",
    goVersion: `node${process.versions.node}`,
    compiler: "tsc",
    platform: `${process.platform}/${process.arch === "x64" ? "amd64" : process.arch}`,
  };
}
