import { describe, expect, it } from "vitest";
import { callCost, operatorCost, regexCost, sizeOf } from "./cost-model.ts";
import { CostMeter } from "./meter.ts";
import { CelCostLimitError, COST_LIMIT_EXCEEDED, createEnvironment, PER_CALL_LIMIT } from "./index.ts";

const env = createEnvironment({ variables: { x: "dyn", s: "string", l: "list" } });
const s100 = "a".repeat(100);
const act = { x: { y: { z: 1 } }, s: s100, l: [1, 2, 3] };
const costOf = (source: string, activation: Record<string, unknown> = act): number => env.compile(source).evaluate(activation).cost;

function costFailure(source: string, activation: Record<string, unknown>, costBudget?: number): CelCostLimitError {
  try {
    env.compile(source).evaluate(activation, { costBudget });
  } catch (err) {
    if (err instanceof CelCostLimitError) return err;
    throw err;
  }
  throw new Error(`expected ${JSON.stringify(source)} to exceed the budget`);
}

describe("cost of one evaluation", () => {
  // s is 100 characters, l is [1, 2, 3]
  const cases: [string, string, number][] = [
    ["a scalar comparison costs 1", "1 == 1", 1],
    ["a short string comparison costs 1", "'abc' == 'abd'", 1],
    ["a string comparison costs ceil(min length × 0.1), plus 1 per variable read", "s == s", 12],
    ["a list literal costs a fixed 40", "[1, 2, 3]", 40],
    ["an empty list literal costs 40 too", "[]", 40],
    ["a map literal costs 30", "{'a': 1}", 30],
    ["constants cost nothing; a conditional has no cost of its own", "true ? 1 : 2", 0],
    ["a variable read costs 1", "x", 1],
    ["each field selection costs 1", "x.y.z", 3],
    ["an index costs 1", "l[0]", 2],
    ["a unary operator costs 1", "!true", 1],
    ["integer arithmetic costs 1", "1 + 2", 1],
    ["string concatenation costs ceil(total length × 0.1)", "s + s", 22],
    ["list membership costs the list's length", "2 in [1, 2, 3]", 43],
    ["matches costs ceil((1 + |s|) × 0.1) × ceil(|regex| × 0.25)", "s.matches('a+b')", 12],
    ["a longer regex costs proportionally more", "s.matches('(a+)+$')", 23],
    ["find and findAll are priced like matches", "s.find('a+') + s.findAll('a+')[0]", 1 + 11 + 1 + 11 + 1 + 20],
    ["contains costs the product of both traversals", "s.contains('aa')", 11],
    ["startsWith is O(1) (cel-go)", "s.startsWith('a')", 2],
    ["split costs two traversals", "s.split('b')", 21],
    ["join is priced from its result", "['a', 'b'].join('-')", 41],
    ["size is constant", "s.size()", 2],
    ["has() is a selection", "has(x.y)", 2],
    // cel-go's expansion: result `__result__` 1; per element condition `@not_strictly_false(__result__)` 2, step `__result__ && p` 1
    ["all: 3 per iteration plus its body, 1 for the result", "l.all(i, i > 0)", 1 + 1 + 3 * (3 + 2)],
    ["exists stops at the first match (condition `!__result__` one more)", "l.exists(i, i == 1)", 1 + 1 + (4 + 2)],
    ["map starts from an empty list literal, then `__result__ + [e]` (42) per iteration plus its body", "l.map(i, i * 2)", 1 + 40 + 1 + 3 * (42 + 2)],
    ["filter pays its predicate per element, `__result__ + [x]` per kept one, `__result__` per other", "l.filter(i, i > 1)", 1 + 40 + 1 + 3 * 2 + 2 * 43 + 1],
    ["cel.bind evaluates its value and body", "cel.bind(v, 1, v + v)", 3],
  ];
  it.each(cases)("%s: %s = %i", (_name, source, want) => {
    expect(costOf(source)).toBe(want);
  });

  it("is deterministic across evaluations", () => {
    const p = env.compile("l.map(i, s.matches('a+')).size() > 0");
    expect(p.evaluate(act).cost).toBe(p.evaluate(act).cost);
  });
});

describe("cost budget", () => {
  const big = { l: Array.from({ length: 200 }, (_, i) => i) };

  it("defaults to the platform's per-call limit", () => {
    expect(PER_CALL_LIMIT).toBe(1_000_000);
    expect(costFailure("l.map(a, l.map(b, l.map(c, 1)))", big).message).toBe(COST_LIMIT_EXCEEDED);
  });

  const cases: [string, string, Record<string, unknown>, number][] = [
    ["a budget below a list literal", "[1]", {}, 39],
    ["nested comprehensions", "l.map(a, l.map(b, 1)).size() > 0", big, 10_000],
    ["an overrun swallowed by ||", "l.map(a, l.map(b, 1)).size() > 0 || true", big, 10_000],
    ["an overrun swallowed by exists", "l.exists(a, l.map(b, 1).size() < 0 || a == 199)", big, 10_000],
    ["a regex too costly for the budget", "s.matches('(a+)+$')", { s: "a".repeat(10_000) }, 1000],
    ["doubling strings", "cel.bind(a, s + s, cel.bind(b, a + a, cel.bind(c, b + b, c + c))).size() > 0", { s: s100 }, 100],
  ];
  it.each(cases)("stops %s with the platform's error", (_name, source, activation, budget) => {
    const err = costFailure(source, activation, budget);
    expect(err).toBeInstanceOf(CelCostLimitError);
    expect(err.message).toBe("operation cancelled: actual cost limit exceeded");
  });

  it("allows an evaluation that uses exactly its budget", () => {
    expect(env.compile("[1]").evaluate({}, { costBudget: 40 }).cost).toBe(40);
  });

  it("gives each evaluation a fresh budget", () => {
    const p = env.compile("[1]");
    expect(p.evaluate({}, { costBudget: 40 }).cost).toBe(40);
    expect(p.evaluate({}, { costBudget: 40 }).cost).toBe(40);
  });

  it("takes the environment's default budget", () => {
    const small = createEnvironment({ variables: {}, costBudget: 10 });
    expect(() => small.compile("[1]").evaluate({})).toThrow(COST_LIMIT_EXCEEDED);
  });
});

describe("cost model functions", () => {
  const sizes: [string, unknown, number][] = [
    ["string", "abc", 3],
    ["bytes", new Uint8Array(4), 4],
    ["list", [1, 2], 2],
    ["map", { a: 1, b: 2 }, 2],
    ["scalar", 5n, 1],
    ["null", null, 1],
  ];
  it.each(sizes)("sizeOf(%s)", (_name, v, want) => expect(sizeOf(v)).toBe(want));

  const operators: [string, unknown, unknown, number][] = [
    ["==", 1n, 2n, 1],
    ["<", "a".repeat(55), "b".repeat(99), 6],
    ["==", "", "", 0],
    ["in", 1n, [1n, 2n, 3n, 4n], 4],
    ["in", "k", { k: 1 }, 1],
    ["+", "ab", "cd", 1],
    ["+", [1n], new Array(30).fill(1n), 1],
    ["*", 2n, 3n, 1],
  ];
  it.each(operators)("operatorCost(%s)", (op, l, r, want) => expect(operatorCost(op, l, r)).toBe(want));

  it("prices regexes as ceil((1 + |input|) × 0.1) × ceil(|regex| × 0.25)", () => {
    expect(regexCost("", "abcd")).toBe(1);
    expect(regexCost("x".repeat(99), "x".repeat(40))).toBe(10 * 10);
    expect(callCost("matches", ["x".repeat(99), "x".repeat(40)])).toBe(100);
  });

  it("prices a call without a specific rule at 1", () => {
    expect(callCost("size", ["abc"])).toBe(1);
    expect(callCost("int", ["123"])).toBe(1);
  });
});

describe("meter", () => {
  it("adds charges and throws once the total passes the budget, and on every charge after", () => {
    const m = new CostMeter(10);
    m.charge(4);
    m.charge(6);
    expect(m.used).toBe(10);
    expect(m.exceeded).toBe(false);
    expect(() => m.charge(1)).toThrow(CelCostLimitError);
    expect(m.exceeded).toBe(true);
    expect(() => m.charge(0)).toThrow(CelCostLimitError);
  });
});
