import { describe, expect, it } from "vitest";
import { FlagError, parseDuration, parseFlags, type FlagSpec } from "./flags.ts";

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
