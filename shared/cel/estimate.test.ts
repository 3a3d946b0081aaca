import { describe, expect, it } from "vitest";
import type { Schema } from "../schema/types.ts";
import { costErrorMessage, createEnvironment, requestBoundedSize, STATIC_ESTIMATED_COST_LIMIT, type CostSizes } from "./index.ts";

const str = (maxLength?: number): Schema => ({ type: "string", ...(maxLength ? { maxLength } : {}) });
const self: Schema = {
  type: "object",
  properties: {
    name: str(63),
    image: str(256),
    desc: str(),
    n: { type: "integer" },
    tags: { type: "array", maxItems: 10, items: str(20) },
    ports: { type: "array", maxItems: 100, items: { type: "object", properties: { port: { type: "integer" }, name: str(15) } } },
    labels: { type: "object", maxProperties: 20, additionalProperties: str(63) },
    free: { type: "array", items: str() },
  },
};
const sizes: CostSizes = { variables: { self }, unbounded: requestBoundedSize };
const env = createEnvironment({ variables: { self: "dyn", authorizer: "kubernetes.authorization.Authorizer" } });
const estimate = (source: string): number => env.compile(source).estimateCost(sizes);

/** An input at every declared bound: the largest strings, lists and maps the schema allows (1,000 / 100 when unbounded). */
function atBounds(s: Schema | undefined): unknown {
  switch (s?.type) {
    case "string":
      return "a".repeat(s.maxLength ?? 1000);
    case "integer":
      return 5;
    case "array":
      return Array.from({ length: s.maxItems ?? 100 }, () => atBounds(s.items));
    case "object":
      if (s.properties) return Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, atBounds(v)]));
      return Object.fromEntries(Array.from({ length: s.maxProperties ?? 100 }, (_, i) => [`k${String(i).padStart(62, "0")}`, atBounds(s.additionalProperties)]));
    default:
      return 1;
  }
}
const input = { self: atBounds(self) };

describe("static cost estimate", () => {
  // name ≤ 63, image ≤ 256, tags ≤ 10 × ≤ 20, ports ≤ 100 × {port, name ≤ 15}, labels ≤ 20 × ≤ 63
  // (a maxLength counts 4 bytes a character, as on the platform). Each row is also evaluated on
  // an input at the bounds (ASCII: a quarter of the bytes): where neither sizes nor a branch
  // make a difference, the runtime meter arrives at the estimate exactly. "platform+1": the
  // platform's estimator sizes a number reached through the schema 0, so `==` on it is
  // estimated 0 where the runtime charges 1; kept, as it is in the published estimates.
  const rows: [string, number, "exact" | "bound" | "platform+1"][] = [
    ["self.n > 0", 3, "exact"],
    ["self.name == 'x'", 3, "exact"],
    ["self.name.size() <= 63", 4, "exact"],
    // startsWith is O(1) in cel-go
    ["self.image.startsWith('registry.example.com/')", 3, "exact"],
    ["self.name.matches('^[a-z0-9-]+$')", 80, "bound"],
    // all: result 1, per element loop condition 2 + step 1 + predicate
    ["self.ports.all(p, p.port > 0 && p.port < 65536)", 903, "exact"],
    ["self.ports.exists(p, p.name == 'http')", 703, "exact"],
    // map: the empty list literal 40, result 1, per element `__result__ + [e]` 42 + transform
    ["self.ports.map(p, p.port).all(x, x > 0)", 4944, "exact"],
    ["self.tags.filter(t, t.startsWith('a')).size() > 0", 495, "exact"],
    ["self.ports.filter(p, p.port > 0).map(p, p.name).exists(n, n == 'x')", 9685, "exact"],
    ["self.labels.all(k, k.size() < 64)", 123, "exact"],
    ["self.labels.exists(k, self.labels[k] == 'x')", 183, "exact"],
    ["'app' in self.labels", 3, "exact"],
    ["'a' in self.tags", 12, "exact"],
    ["self.image.contains(self.name)", 2682, "bound"],
    ["self.desc.size() < 100", 4, "exact"],
    ["[1, 2, 3].all(x, x > 0)", 56, "exact"],
    ["{'a': 1}.size() == 1", 32, "exact"],
    ["self.name + '-' + self.image", 158, "bound"],
    ["has(self.name) ? self.name.lowerAscii() == self.name : true", 58, "bound"],
    ["self.tags.join(',').size() < 100", 85, "bound"],
    ["self.image.split('/').size() <= 3", 209, "bound"],
    ["self.ports[0].port == 80", 4, "platform+1"],
    // short-circuits at runtime: the estimate is the worst case
    ["self.tags.all(t, t.size() < 10)", 63, "bound"],
    ["self.tags.all(a, self.tags.exists_one(b, a == b))", 1273, "bound"],
    // an unbounded list of unbounded strings is sized by what fits into one request
    ["self.free.all(x, x.matches('^a+$'))", 329_857_577_778, "bound"],
    // each authorizer check costs 350,000
    ["authorizer.group('').resource('pods').check('get').allowed()", 350_004, "bound"],
  ];
  it.each(rows)("%s costs at most %d", (source, expected, kind) => {
    expect(estimate(source)).toBe(expected);
    if (source.includes("authorizer")) return;
    const actual = env.compile(source).evaluate(input, { costBudget: 1e13 }).cost;
    if (kind === "exact") expect(actual).toBe(expected);
    else expect(actual).toBeLessThanOrEqual(kind === "platform+1" ? expected + 1 : expected);
  });

  it("sizes unbounded values by the request size, as the platform does", () => {
    expect(requestBoundedSize({ type: "string" })).toBe(3 * 1024 * 1024 - 2);
    // each string element is at least `""` plus a comma
    expect(requestBoundedSize({ type: "array", items: { type: "string" } })).toBe(Math.floor((3 * 1024 * 1024 - 2) / 3));
    expect(requestBoundedSize({ type: "array", items: { type: "integer" } })).toBe(Math.floor((3 * 1024 * 1024 - 2) / 2));
  });

  it("prints the platform's message with the factor, capped at 'more than 100x'", () => {
    const hint = "(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)";
    expect(costErrorMessage("estimated rule cost", 18_100_000, STATIC_ESTIMATED_COST_LIMIT)).toBe(`estimated rule cost exceeds budget by factor of 1.8x ${hint}`);
    expect(costErrorMessage("estimated rule cost", 10_500_000, STATIC_ESTIMATED_COST_LIMIT)).toBe(`estimated rule cost exceeds budget by factor of 1.050000x ${hint}`);
    expect(costErrorMessage("estimated rule cost", 329_855_480_627, STATIC_ESTIMATED_COST_LIMIT)).toBe(`estimated rule cost exceeds budget by factor of more than 100x ${hint}`);
  });
});
