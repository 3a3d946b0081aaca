import { describe, expect, it } from "vitest";
import { getProfile } from "../../../shared/platform/index.ts";
import { STATIC_ESTIMATED_COST_LIMIT as RULE_COST_LIMIT } from "../../../shared/cel/index.ts";
import { estimateRuleCost, ruleCostErrors } from "./cel-cost.ts";
import { convertNode } from "./schema.ts";

const x = getProfile("plat").ext;
const unboundedStrings = { type: "array", items: { type: "string" } };
const boundedStrings = { type: "array", maxItems: 10, items: { type: "string", maxLength: 10 } };
const numbers = { type: "object", properties: { replicas: { type: "integer" }, maxReplicas: { type: "integer" } } };

describe("estimated cost of one evaluation", () => {
  it.each([
    ["scalar comparison", "self.replicas <= self.maxReplicas", numbers, 1, 10],
    ["string equality over an unbounded string", "self == oldSelf", { type: "string" }, 300_000, 400_000],
    ["equality over a bounded string", "self == oldSelf", { type: "string", maxLength: 100 }, 42, 42], // 2 reads + ceil(100 × 4 bytes × 0.1)
    ["regex over an unbounded string", "self.matches('^[a-z]+$')", { type: "string" }, 500_000, 1_000_000],
    ["one pass over an unbounded list", "self.all(x, x.size() < 5)", unboundedStrings, 1_000_000, RULE_COST_LIMIT],
    ["nested passes over an unbounded list", "self.all(x, self.exists(y, x == y))", unboundedStrings, 100 * RULE_COST_LIMIT, Infinity],
    ["nested passes over a bounded list", "self.all(x, self.exists(y, x == y))", boundedStrings, 1052, 1052], // 1 + 1 + 10 × (3 + 1 + 1 + 10 × (4 + 1 + 1 + 4))
    ["map of a map (additionalProperties)", "self.all(k, self[k].size() > 0)", { type: "object", maxProperties: 5, additionalProperties: { type: "string", maxLength: 8 } }, 5, 100],
  ] as const)("%s", (_name, rule, schema, low, high) => {
    const cost = estimateRuleCost(rule, convertNode(schema, x)) ?? NaN;
    expect(cost).toBeGreaterThanOrEqual(low);
    expect(cost).toBeLessThanOrEqual(high);
  });
  it("is undefined for a rule that does not parse", () => {
    expect(estimateRuleCost("self.(", convertNode({ type: "string" }, x))).toBeUndefined();
  });
});

describe("ruleCostErrors", () => {
  const base = "spec.versions[0].schema.openAPIV3Schema";
  const schema = (itemRules: unknown[], list: Record<string, unknown> = {}, name: Record<string, unknown> = {}) => ({
    type: "object",
    properties: { spec: { type: "object", properties: { list: { type: "array", ...list, items: { type: "object", properties: { name: { type: "string", ...name } }, [x.validations]: itemRules } } } } },
  });
  const at = `${base}.properties[spec].properties[list].items.${x.validations}[0]`;

  it("multiplies by the lists above a rule, and refuses the rule and the schema's total", () => {
    const errs = ruleCostErrors(schema([{ rule: "self.name.matches('^[a-z]+$')" }]), base, x);
    expect(errs.map((e) => [e.type, e.field])).toEqual([
      ["FieldValueForbidden", `${at}.rule`],
      ["FieldValueForbidden", `${at}.rule`],
      ["FieldValueForbidden", base],
    ]);
    expect(errs[0].message).toContain("estimated rule cost exceeds budget by factor of more than 100x");
    expect(errs[1].message).toContain("contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema");
    expect(errs[2].message).toContain(`${x.validations} estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x`);
  });
  it("accepts the same rule with bounds on the list and the string, not with the list's alone", () => {
    const rule = [{ rule: "self.name.matches('^[a-z]+$')" }];
    expect(ruleCostErrors(schema(rule, { maxItems: 100 }, { maxLength: 64 }), base, x)).toEqual([]);
    const listOnly = ruleCostErrors(schema(rule, { maxItems: 100 }), base, x);
    expect(listOnly.map((e) => e.field)).toEqual([`${at}.rule`]);
    expect(listOnly[0].message).toMatch(/exceeds budget by factor of \d+\.\dx/);
  });
  it("checks messageExpression too", () => {
    const errs = ruleCostErrors(schema([{ rule: "true", messageExpression: "self.name.lowerAscii() + self.name.upperAscii()" }]), base, x);
    expect(errs[0]).toMatchObject({ field: `${at}.messageExpression` });
    expect(errs[0].message).toContain("estimated messageExpression cost exceeds budget by factor of");
  });
});
