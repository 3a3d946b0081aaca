import { describe, expect, it } from "vitest";
import type { ApiObject } from "../../../shared/client/object-client.ts";
import { aggregatedRules, ruleListsEqual, rulesOf, type PolicyRule } from "./rules.ts";

const role = (name: string, labels: Record<string, string>, rules: PolicyRule[], aggregationRule?: unknown): ApiObject => ({
  apiVersion: "x/v1",
  kind: "ClusterRole",
  metadata: { name, labels },
  rules,
  ...(aggregationRule === undefined ? {} : { aggregationRule }),
});
const get = (r: string): PolicyRule => ({ verbs: ["get"], apiGroups: [""], resources: [r] });
const sel = (...labels: Array<Record<string, string>>) => ({ clusterRoleSelectors: labels.map((matchLabels) => ({ matchLabels })) });

describe("aggregatedRules", () => {
  const cases: Array<{ name: string; target: ApiObject; others: ApiObject[]; want: PolicyRule[] }> = [
    { name: "no contributor: no rules", target: role("agg", {}, [], sel({ a: "1" })), others: [role("x", { b: "1" }, [get("pods")])], want: [] },
    { name: "contributors in name order", target: role("agg", {}, [], sel({ a: "1" })), others: [role("z", { a: "1" }, [get("z")]), role("m", { a: "1" }, [get("m")])], want: [get("m"), get("z")] },
    { name: "a rule given twice is taken once", target: role("agg", {}, [], sel({ a: "1" })), others: [role("p", { a: "1" }, [get("pods")]), role("q", { a: "1" }, [get("pods"), get("svc")])], want: [get("pods"), get("svc")] },
    { name: "any selector matches (OR)", target: role("agg", {}, [], sel({ a: "1" }, { b: "1" })), others: [role("p", { a: "1" }, [get("p")]), role("q", { b: "1" }, [get("q")]), role("r", { c: "1" }, [get("r")])], want: [get("p"), get("q")] },
    { name: "the aggregated role never contributes to itself", target: role("agg", { a: "1" }, [get("stale")], sel({ a: "1" })), others: [role("p", { a: "1" }, [get("p")])], want: [get("p")] },
    { name: "empty selector list: nothing", target: role("agg", {}, [], { clusterRoleSelectors: [] }), others: [role("p", { a: "1" }, [get("p")])], want: [] },
    { name: "matchExpressions select too", target: role("agg", {}, [], { clusterRoleSelectors: [{ matchExpressions: [{ key: "a", operator: "Exists" }] }] }), others: [role("p", { a: "x" }, [get("p")])], want: [get("p")] },
  ];
  for (const c of cases) it(c.name, () => expect(aggregatedRules(c.target, [c.target, ...c.others])).toEqual(c.want));

  it("an invalid selector throws instead of emptying the role", () => {
    const bad = role("agg", {}, [], { clusterRoleSelectors: [{ matchExpressions: [{ key: "a", operator: "Near" }] }] });
    expect(() => aggregatedRules(bad, [bad])).toThrow(/not a valid label selector operator/);
  });
});

describe("rule comparison", () => {
  const cases: Array<{ name: string; a: unknown[]; b: PolicyRule[]; equal: boolean }> = [
    { name: "unset and empty lists are equal", a: [{ verbs: ["get"], resources: ["pods"], resourceNames: [] }], b: [{ verbs: ["get"], resources: ["pods"] }], equal: true },
    { name: "order of values matters", a: [{ verbs: ["get", "list"] }], b: [{ verbs: ["list", "get"] }], equal: false },
    { name: "order of rules matters", a: [{ verbs: ["get"] }, { verbs: ["list"] }], b: [{ verbs: ["list"] }, { verbs: ["get"] }], equal: false },
    { name: "another length differs", a: [{ verbs: ["get"] }], b: [], equal: false },
  ];
  for (const c of cases) it(c.name, () => expect(ruleListsEqual(rulesOf(role("r", {}, c.a as PolicyRule[])), c.b)).toBe(c.equal));
});
