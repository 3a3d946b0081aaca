import { describe, expect, it } from "vitest";
import { parseFlagSet } from "../../../shared/cli/flags.ts";
import { VERSIONING_FLAGS, versioningOptionsFrom } from "./version-options.ts";

const from = (argv: string[]) => versioningOptionsFrom(parseFlagSet(argv, VERSIONING_FLAGS).values);

describe("versioning flags", () => {
  it.each([
    [["--feature-gates", "kube:NoSuchGate=true"], "invalid argument for --feature-gates: unrecognized feature gate: NoSuchGate"],
    // ServiceAppProtocol went GA in 1.20 and was removed in 1.22: a removed gate is unknown to release 1.35.
    [["--feature-gates=ServiceAppProtocol=true"], "invalid argument for --feature-gates: unrecognized feature gate: ServiceAppProtocol"],
    [["--feature-gates=WatchList=yes"], 'invalid argument for --feature-gates: invalid value of WatchList=yes, err: strconv.ParseBool: parsing "yes": invalid syntax'],
    [["--emulated-version=kube=1.31"], "invalid argument for --emulated-version: emulation version 1.31 is not between [1.32, 1.35]"],
    [["--emulated-version=1.33", "--feature-gates=ListFromCacheSnapshot=true,StructuredAuthenticationConfigurationEgressSelector=true"], "cannot set feature gate StructuredAuthenticationConfigurationEgressSelector to true, feature is PreAlpha at emulated version 1.33"],
    [["--show-hidden-metrics-for-version=1.33"], "--show-hidden-metrics-for-version must be omitted or have the value '1.34'. Only the previous minor version is allowed"],
    [["--allow-metric-labels", "apiserver_request_total"], "invalid argument for --allow-metric-labels: apiserver_request_total must be formatted as key=value"],
  ])("%j → %s", (argv, message) => {
    expect(() => from(argv)).toThrow(message);
  });

  it("resolves the gates at the emulated release", () => {
    const o = from(["--emulated-version=1.33", "--feature-gates=MutatingAdmissionPolicy=true", "--disabled-metrics=a_total,b_total", "--show-hidden-metrics-for-version=1.34"]);
    expect(o.effectiveVersion.emulation).toEqual({ major: 1, minor: 33 });
    expect(o.gates.enabled("MutatingAdmissionPolicy")).toBe(true);
    expect(o.gates.enabled("ListFromCacheSnapshot")).toBe(false);
    expect(o.metrics).toMatchObject({ disabledMetrics: ["a_total", "b_total"], showHiddenMetricsForVersion: "1.34" });
  });
});
