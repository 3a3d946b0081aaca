import { describe, expect, it } from "vitest";
import { FeatureGates } from "./feature-gates.ts";

describe("feature gates", () => {
  it("have the stage defaults: alpha off, beta and GA on", () => {
    const g = new FeatureGates();
    expect(g.enabled("CBORServingAndStorage")).toBe(false);
    expect(g.enabled("APIResponseCompression")).toBe(true);
    expect(g.enabled("AuthorizeWithSelectors")).toBe(true);
  });

  it("take Name=bool pairs", () => {
    const g = new FeatureGates();
    g.set(["APIResponseCompression=false", "CBORServingAndStorage=true"]);
    expect(g.enabled("APIResponseCompression")).toBe(false);
    expect(g.enabled("CBORServingAndStorage")).toBe(true);
  });

  it.each([
    ["Nope=true", /unrecognized feature gate: Nope/],
    ["AuthorizeWithSelectors=false", /locked to true/],
    ["APIResponseCompression=maybe", /invalid value/],
    ["APIResponseCompression", /missing bool value/],
  ])("rejects %s", (pair, message) => {
    expect(() => new FeatureGates().set([pair])).toThrow(message);
  });
});
