import { describe, expect, it } from "vitest";
import { FlagError, formatDuration, mergeSections, parseDuration, parseFlags, parseFlagSet, parseGoDuration, parseKnownFlags, usage, type FlagSpec } from "./flags.ts";

const specs: Record<string, FlagSpec> = {
  name: { kind: "string", help: "" },
  port: { kind: "number", default: 6443, help: "" },
  verbose: { kind: "boolean", default: false, help: "" },
  timeout: { kind: "duration", default: 1000, help: "" },
  key: { kind: "list", help: "" },
};

describe("flags", () => {
  it.each([
    [["--name=x"], { name: "x" }],
    [["--name", "x"], { name: "x" }],
    [["--verbose"], { verbose: true }],
    [["--verbose=false"], { verbose: false }],
    [["--port", "8443"], { port: 8443 }],
    [["--timeout=1m30s"], { timeout: 90_000 }],
    [["--key=a", "--key", "b,c"], { key: ["a", "b", "c"] }],
  ])("parses %j", (argv, expected) => {
    expect(parseFlags(argv, specs)).toMatchObject(expected);
  });

  it("keeps defaults", () => {
    expect(parseFlags([], specs)).toMatchObject({ port: 6443, verbose: false, timeout: 1000, key: [] });
  });

  it.each([[["--nope"]], [["--port", "x"]], [["--verbose=yes"]], [["--name"]], [["stray"]], [["--timeout=5 minutes"]]])("rejects %j", (argv) => {
    expect(() => parseFlags(argv, specs)).toThrow(FlagError);
  });

  it("reads Go durations", () => {
    expect(parseDuration("250ms")).toBe(250);
    expect(parseDuration("2h")).toBe(7_200_000);
    expect(parseDuration("30")).toBe(30_000);
  });
});

describe("flag sets", () => {
  const set: Record<string, FlagSpec> = {
    mode: { kind: "list", default: ["AlwaysAllow"], help: "modes" },
    file: { kind: "array", help: "files" },
    anon: { kind: "boolean", default: true, help: "anonymous" },
    ttl: { kind: "duration", default: 300_000, help: "ttl" },
  };

  it("tells given flags from defaults", () => {
    const p = parseFlagSet(["--mode=RBAC,Node", "--file", "a,b", "--file=c", "--anon", "false"], set);
    expect(p.values).toMatchObject({ mode: ["RBAC", "Node"], file: ["a,b", "c"], anon: false, ttl: 300_000 });
    expect([...p.changed].sort()).toEqual(["anon", "file", "mode"]);
  });

  it("accepts Go's boolean spellings and refuses others", () => {
    for (const [raw, v] of [["1", true], ["t", true], ["TRUE", true], ["0", false], ["F", false], ["False", false]] as const) {
      expect(parseFlagSet([`--anon=${raw}`], set).values.anon).toBe(v);
    }
    expect(() => parseFlagSet(["--anon=yes"], set)).toThrow(/must be a boolean/);
  });

  it("skips other components' flags and bare values when parsing only its own", () => {
    const p = parseKnownFlags(["--profile", "plat", "--mode=Webhook", "--other=1", "stray"], set);
    expect(p.values.mode).toEqual(["Webhook"]);
    expect([...p.changed]).toEqual(["mode"]);
    expect(() => parseFlagSet(["--other=1"], set)).toThrow(/unknown flag: --other/);
  });

  it("prints every flag of every section once, with Go-style defaults", () => {
    const text = usage([
      { title: "First", flags: set },
      { title: "Second", flags: { ttl: set.ttl, port: { kind: "number", default: 6443, help: "port" } } },
    ]);
    expect(text).toContain("First flags:");
    expect(text).toContain("(default [AlwaysAllow])");
    expect(text).toContain("(default 5m0s)");
    expect(text).toContain("(default true)");
    expect(text).toContain("(default 6443)");
    expect(text.match(/--ttl /g)).toHaveLength(1);
    expect(text).not.toMatch(/--file stringArray\n.*default/);
  });

  it("refuses one flag declared twice differently", () => {
    expect(() => mergeSections([{ title: "a", flags: set }, { title: "b", flags: { ttl: { kind: "string", help: "" } } }])).toThrow(/--ttl/);
    expect(Object.keys(mergeSections([{ title: "a", flags: set }, { title: "b", flags: { ttl: set.ttl } }]))).toHaveLength(4);
  });

  it("formats and parses durations as Go does", () => {
    expect(formatDuration(90_000)).toBe("1m30s");
    expect(formatDuration(3_600_000)).toBe("1h0m0s");
    expect(formatDuration(250)).toBe("250ms");
    expect(parseGoDuration("0")).toBe(0);
    expect(parseGoDuration("10us")).toBeCloseTo(0.01);
    expect(() => parseGoDuration("30")).toThrow(/missing unit/);
  });
});
