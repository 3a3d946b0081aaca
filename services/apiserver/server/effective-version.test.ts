import { describe, expect, it } from "vitest";
import { emulatedVersionHelp, resolveEffectiveVersion } from "./effective-version.ts";

const v = (minor: number) => ({ major: 1, minor });

describe("--emulated-version", () => {
  it.each([
    [[], 35, 34],
    [["1.34"], 34, 33],
    [["kube=1.33"], 33, 32],
    [["kube=1.32"], 32, 32],
  ])("%j emulates 1.%i, compatible with 1.%i", (entries, emulation, minCompat) => {
    expect(resolveEffectiveVersion(entries)).toEqual({ binary: v(35), emulation: v(emulation), minCompatibility: v(minCompat) });
  });

  it.each([
    [["1.31"], "emulation version 1.31 is not between [1.32, 1.35]"],
    [["kube=1.36"], "emulation version 1.36 is not between [1.32, 1.35]"],
    [["wardle=1.2"], "component not registered: wardle"],
    [["kube=1.34.1"], 'illegal version string "1.34.1"'],
  ])("refuses %j", (entries, message) => {
    expect(() => resolveEffectiveVersion(entries)).toThrow(message);
  });

  it("help states the range", () => {
    expect(emulatedVersionHelp()).toContain("kube=1.32..1.35(default:1.35)");
  });
});
