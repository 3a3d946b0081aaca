import { describe, expect, it } from "vitest";
import { MetricsRegistry } from "../../../shared/observability/metrics.ts";
import { FeatureGates, featureGatesHelp, specAt, VERSIONED_GATES } from "./feature-gates.ts";

const at = (minor: number) => ({ major: 1, minor });

describe("feature gate stages by release", () => {
  const cases: Array<[string, number, string, boolean, boolean]> = [
    // gate, emulated minor, stage, default, locked
    ["MutatingAdmissionPolicy", 35, "BETA", false, false],
    ["MutatingAdmissionPolicy", 33, "ALPHA", false, false],
    ["AuthorizeWithSelectors", 35, "GA", true, true],
    ["AuthorizeWithSelectors", 33, "BETA", true, false],
    ["ListFromCacheSnapshot", 32, "PRE-ALPHA", false, false],
    ["ListFromCacheSnapshot", 33, "ALPHA", false, false],
    ["WatchList", 33, "BETA", false, false],
    ["WatchList", 34, "BETA", true, false],
    ["AggregatedDiscoveryRemoveBetaType", 34, "DEPRECATED", true, false],
    ["AggregatedDiscoveryRemoveBetaType", 35, "DEPRECATED", true, true],
    ["WatchFromStorageWithoutResourceVersion", 35, "DEPRECATED", false, true],
    ["APIResponseCompression", 32, "BETA", true, false],
  ];
  it.each(cases)("%s at 1.%i is %s default=%s locked=%s", (name, minor, stage, def, locked) => {
    const spec = specAt(VERSIONED_GATES[name], at(minor));
    expect(spec.stage).toBe(stage);
    expect(spec.default).toBe(def);
    expect(spec.lockToDefault ?? false).toBe(locked);
  });
});

describe("--feature-gates", () => {
  it("has the stage defaults: alpha off, beta per gate, GA on", () => {
    const g = new FeatureGates();
    expect(g.enabled("CBORServingAndStorage")).toBe(false);
    expect(g.enabled("APIResponseCompression")).toBe(true);
    expect(g.enabled("DeclarativeValidationTakeover")).toBe(false);
    expect(g.enabled("AuthorizeWithSelectors")).toBe(true);
  });

  it("takes Name=bool pairs, with or without the kube: prefix", () => {
    const g = new FeatureGates();
    g.set(["APIResponseCompression=false", "kube:CBORServingAndStorage=true"]);
    expect(g.enabled("APIResponseCompression")).toBe(false);
    expect(g.enabled("CBORServingAndStorage")).toBe(true);
  });

  it("AllAlpha and AllBeta set the gates not named", () => {
    const g = new FeatureGates();
    g.set(["AllAlpha=true", "CBORServingAndStorage=false", "AllBeta=false"]);
    expect(g.enabled("AllowUnsafeMalformedObjectDeletion")).toBe(true);
    expect(g.enabled("CBORServingAndStorage")).toBe(false);
    expect(g.enabled("APIResponseCompression")).toBe(false);
    expect(g.enabled("AuthorizeWithSelectors")).toBe(true);
  });

  it.each([
    [["Nope=true"], "unrecognized feature gate: Nope"],
    [["AuthorizeWithSelectors=false"], "cannot set feature gate AuthorizeWithSelectors to false, feature is locked to true"],
    [["AuthorizeWithSelectors=false", "ConsistentListFromCache=false"], "[cannot set feature gate AuthorizeWithSelectors to false, feature is locked to true, cannot set feature gate ConsistentListFromCache to false, feature is locked to true]"],
    [["APIResponseCompression=maybe"], 'invalid value of APIResponseCompression=maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax'],
    [["APIResponseCompression"], "missing bool value for APIResponseCompression"],
  ])("refuses %j", (pairs, message) => {
    const g = new FeatureGates();
    expect(() => g.set(pairs)).toThrow(message);
    expect(g.enabled("APIResponseCompression")).toBe(true);
  });

  it("refuses a gate that does not exist yet at the emulated release", () => {
    expect(() => new FeatureGates({ emulationVersion: at(32) }).set(["ListFromCacheSnapshot=true"])).toThrow(
      "cannot set feature gate ListFromCacheSnapshot to true, feature is PreAlpha at emulated version 1.32, min compatibility version 1.31",
    );
  });

  it("resolves gates at the emulated release: a gate locked at 1.35 is settable at 1.33", () => {
    const g = new FeatureGates({ emulationVersion: at(33) });
    g.set(["AuthorizeWithSelectors=false"]);
    expect(g.enabled("AuthorizeWithSelectors")).toBe(false);
    expect(g.enabled("MutatingAdmissionPolicy")).toBe(false);
  });

  it("warns when a deprecated or GA gate is set", () => {
    const g = new FeatureGates({ emulationVersion: at(34) });
    g.set(["AggregatedDiscoveryRemoveBetaType=false", "AuthorizeWithSelectors=true"]);
    expect(g.warnings()).toEqual([
      "Setting deprecated feature gate AggregatedDiscoveryRemoveBetaType=false. It will be removed in a future release.",
      "Setting GA feature gate AuthorizeWithSelectors=true. It will be removed in a future release.",
    ]);
  });

  it("help lists settable gates with stage and default, and the locked ones as without effect", () => {
    const help = featureGatesHelp();
    expect(help).toContain("MutatingAdmissionPolicy=true|false (BETA - default=false)");
    expect(help).toContain("AllowUnsafeMalformedObjectDeletion=true|false (ALPHA - default=false)");
    expect(help).toContain("AuthorizeWithSelectors (GA, locked to true: setting it has no effect)");
    expect(help).not.toContain("AuthorizeWithSelectors=true|false");
  });

  it("records <profile>_feature_enabled with the stage label (empty for GA)", async () => {
    const m = new MetricsRegistry({ currentVersion: "1.35" });
    const g = new FeatureGates();
    g.set(["CBORServingAndStorage=true"]);
    g.recordMetric(m, "plat");
    const text = await m.text();
    expect(text).toContain("# HELP plat_feature_enabled [BETA] ");
    expect(text).toContain('plat_feature_enabled{name="CBORServingAndStorage",stage="ALPHA"} 1');
    expect(text).toContain('plat_feature_enabled{name="WatchList",stage="BETA"} 1');
    expect(text).toContain('plat_feature_enabled{name="AuthorizeWithSelectors",stage=""} 1');
    expect(text).toContain('plat_feature_enabled{name="WatchFromStorageWithoutResourceVersion",stage="DEPRECATED"} 0');
  });
});
