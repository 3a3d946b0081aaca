import { describe, expect, it } from "vitest";
import { flowNestingDepth, MAX_FLOW_NESTING } from "./yaml-nesting.ts";

describe("flowNestingDepth", () => {
  it.each([
    ["", 0],
    ["a: b", 0],
    ["a: [1, 2]", 1],
    ["a: {b: [c, {d: e}]}", 3],
    ["a: '[[[['", 0],
    ['a: "[[\\"[["', 0],
    ["a: 'it''s [ fine'", 0],
    ["a: b # [[[[", 0],
    ["# [[[[\na: [x]", 1],
    ["a: [x]]]]", 1],
    ["[[]] [[[]]]", 3],
  ])("%j → %i", (text, depth) => {
    expect(flowNestingDepth(text, 100)).toBe(depth);
  });

  it("stops counting past the limit", () => {
    expect(flowNestingDepth("[".repeat(100_000), 10)).toBe(11);
    expect(flowNestingDepth("[".repeat(MAX_FLOW_NESTING + 1))).toBeGreaterThan(MAX_FLOW_NESTING);
  });
});

describe("a client configuration file nested too deeply", () => {
  it("is refused with one line before the YAML parser sees it", async () => {
    const { KubeconfigError, mergeKubeconfigText } = await import("./kubeconfig.ts");
    const merged = { clusters: new Map(), users: new Map(), contexts: new Map(), sources: [] };
    const attempt = () => mergeKubeconfigText(merged, `clusters: ${"[".repeat(5000)}`, "deep.yaml", "/tmp");
    expect(attempt).toThrow(KubeconfigError);
    expect(attempt).toThrow(`deep.yaml: not a valid configuration file: nesting deeper than ${MAX_FLOW_NESTING} levels`);
  });
});
