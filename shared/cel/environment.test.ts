import { describe, expect, it } from "vitest";
import { Environment } from "@marcbachmann/cel-js";
import { CelCompileError, CelEvaluationError, createEnvironment } from "./index.ts";

const env = createEnvironment({ variables: { x: "dyn", s: "string", n: "int", m: "map", l: "list" } });

function compileFailure(source: string, e = env): string {
  try {
    e.compile(source);
  } catch (err) {
    if (err instanceof CelCompileError) return err.message;
    throw err;
  }
  throw new Error(`expected ${JSON.stringify(source)} not to compile`);
}

function runtimeFailure(source: string, activation: Record<string, unknown>): string {
  try {
    env.compile(source).evaluate(activation);
  } catch (err) {
    if (err instanceof CelEvaluationError) return err.message;
    throw err;
  }
  throw new Error(`expected ${JSON.stringify(source)} to fail`);
}

describe("compile", () => {
  const failures: [string, string, RegExp][] = [
    ["an empty expression", "  ", /^compilation failed: expression is empty$/],
    ["a syntax error, with its position", "1 +", /^compilation failed: Unexpected token: EOF at 1:4$/],
    ["an undeclared variable", "y == 1", /^compilation failed: Unknown variable: y/],
    ["operands without an overload", '1 + "a"', /^compilation failed: no such overload: int \+ string/],
    ["a function with wrong argument types", "s.matches(1)", /^compilation failed: found no matching overload/],
    ["a declared type used wrongly", "n.size()", /^compilation failed: found no matching overload/],
    ["a mixed-type list literal by default", "[1, 'a']", /^compilation failed: List elements must have the same type/],
  ];
  it.each(failures)("rejects %s", (_name, source, want) => {
    const msg = compileFailure(source);
    expect(msg).toMatch(want);
    expect(msg).not.toContain("\n");
  });

  const types: [string, string][] = [
    ["n > 1", "bool"],
    ["s + 'x'", "string"],
    ["x", "dyn"],
    ["[1, 2]", "list<int>"],
    ["l.map(i, i)", "list"],
  ];
  it.each(types)("reports the result type of %s as %s", (source, want) => {
    expect(env.compile(source).resultType).toBe(want);
  });

  const limited = createEnvironment({ variables: {}, limits: { maxAstNodes: 10, maxDepth: 3, maxListElements: 2, maxMapEntries: 1, maxCallArguments: 1 } });
  const limits: [string, string, RegExp][] = [
    ["AST nodes", "1 + 1 + 1 + 1 + 1 + 1", /maxAstNodes \(10\)/],
    ["nesting depth", "((((1))))", /maxDepth \(3\)/],
    ["list literal elements", "[1, 2, 3]", /maxListElements \(2\)/],
    ["map literal entries", "{1: 1, 2: 2}", /maxMapEntries \(1\)/],
    ["call arguments", "'a'.substring(0, 1)", /maxCallArguments \(1\)/],
  ];
  it.each(limits)("enforces the limit on %s", (_name, source, want) => {
    expect(compileFailure(source, limited)).toMatch(want);
  });

  it("allows mixed-type literals and optional access when enabled", () => {
    const loose = createEnvironment({ variables: { c: "map" }, mixedTypeLiterals: true, optionalTypes: true });
    expect(loose.compile("[1, 'a']").evaluate({}).value).toEqual([1, "a"]);
    expect(loose.compile("c.?missing.orValue('d')").evaluate({ c: {} }).value).toBe("d");
  });
});

describe("evaluate", () => {
  const cases: [string, Record<string, unknown>, unknown][] = [
    ["n + 1", { n: 5 }, 6],
    ["x.replicas * 2", { x: { replicas: 3 } }, 6],
    ["x.ratio > 0.25", { x: { ratio: 0.5 } }, true],
    ["n + 0", { n: 9007199254740993n }, 9007199254740993n],
    ["m.labels.app", { m: { labels: { app: "web" } } }, "web"],
    ["l.filter(i, i > 1)", { l: [1, 2, 3] }, [2, 3]],
    ["{'a': n}", { n: 1 }, { a: 1 }],
    ["has(m.a) ? m.a : 'none'", { m: {} }, "none"],
    ["s.startsWith('ab') && s.endsWith('yz')", { s: "abxyz" }, true],
    ["'abc 123'.find('[0-9]+')", {}, "123"],
    ["matches('abc', 'b')", {}, true],
    ["x.matches('^a')", { x: "abc" }, true],
    ["duration('1h30m')", {}, "5400s"],
  ];
  it.each(cases)("%s", (source, activation, want) => {
    expect(env.compile(source).evaluate(activation).value).toEqual(want);
  });

  it("ignores activation entries that are not declared", () => {
    expect(env.compile("n == 1").evaluate({ n: 1, other: "x" }).value).toBe(true);
  });
});

describe("runtime errors never quote activation values", () => {
  const SECRET = "SECRET-7f3a";
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ["int(s)", { s: SECRET }, /^int\(\) conversion error at 1:1$/],
    ["bool(s)", { s: SECRET }, /^bool\(\) conversion error/],
    ["m[s]", { m: {}, s: SECRET }, /^no such key at 1:1$/],
    ["m.missing", { m: { a: SECRET } }, /^no such key: missing at 1:3$/],
    ["l[n]", { l: [SECRET], n: 4 }, /^index out of bounds/],
    ["n + 9223372036854775807", { n: 1 }, /^integer overflow/],
    ["duration(s)", { s: SECRET }, /^invalid duration$/],
    ["timestamp(s)", { s: `${SECRET}-0000000000000000` }, /^invalid timestamp/],
    ["'a'.matches(s)", { s: `(${SECRET}` }, /^invalid regular expression$/],
    ["s.substring(99)", { s: SECRET }, /^index out of range/],
    ["x.y", { x: SECRET }, /^no such key: y at 1:3$/],
    ["x > 1", { x: SECRET }, /^no such overload: dyn<string> > int at 1:1$/],
    ["n == 1", { n: SECRET }, /^Variable 'n' is not of type 'int', got 'string'/],
    ["n == 1", {}, /^Unknown variable: n at 1:1$/],
  ];
  it.each(cases)("%s", (source, activation, want) => {
    const msg = runtimeFailure(source, activation);
    expect(msg).toMatch(want);
    expect(msg).not.toContain("SECRET");
    expect(msg).not.toContain("\n");
  });
});

describe("the evaluator hook", () => {
  it("leaves evaluations outside this module unmetered and unchanged", () => {
    const plain = new Environment().registerVariable("l", "list");
    expect(plain.evaluate("l.map(i, i * 2)", { l: [1n, 2n] })).toEqual([2n, 4n]);
  });
});
