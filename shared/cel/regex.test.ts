import { describe, expect, it } from "vitest";
import { CelEvaluationError, createEnvironment } from "./index.ts";
import { regexFind, regexFindAll, regexMatches } from "./regex.ts";

describe("matches (RE2 semantics)", () => {
  const cases: [string, string, boolean][] = [
    ["abc", "b", true],
    ["abc", "^b", false],
    ["abc", "^abc$", true],
    ["ABC", "(?i)abc", true],
    ["a.b", "a\\.b", true],
    ["axb", "a\\.b", false],
    ["x", "", true],
    ["", "a*", true],
    ["héllo", "^h\\pLllo$", true],
    ["2024-01-02", "^\\d{4}-\\d{2}-\\d{2}$", true],
    // catastrophic backtracking for a backtracking engine; RE2 answers in linear time
    ["a".repeat(50) + "b", "(a+)+$", false],
    ["a".repeat(5000) + "!", "^(a|aa)*$", false],
    ["a".repeat(5000), "^(a|aa)*$", true],
  ];
  it.each(cases)("%j matches %j: %s", (input, pattern, want) => {
    expect(regexMatches(input, pattern)).toBe(want);
  });

  const invalid: [string, string][] = [
    ["lookahead (not RE2)", "(?=a)"],
    ["backreference (not RE2)", "(a)\\1"],
    ["an unclosed group", "(a"],
    ["a repeat count over 1000", "a{1001}"],
  ];
  it.each(invalid)("rejects %s without quoting the pattern", (_name, pattern) => {
    expect(() => regexMatches("a", pattern)).toThrow(CelEvaluationError);
    expect(() => regexMatches("a", pattern)).toThrow(/^invalid regular expression$/);
  });
});

describe("find and findAll", () => {
  const finds: [string, string, string][] = [
    ["abc 123", "[0-9]+", "123"],
    ["abc 123", "xyz", ""],
    ["abc", "", ""],
  ];
  it.each(finds)("%j.find(%j) = %j", (input, pattern, want) => {
    expect(regexFind(input, pattern)).toBe(want);
  });

  const all: [string, string, number, string[]][] = [
    ["123 abc 456", "[0-9]+", -1, ["123", "456"]],
    ["123 abc 456", "[0-9]+", 1, ["123"]],
    ["123 abc 456", "[0-9]+", 0, []],
    ["123 abc 456", "xyz", -1, []],
    ["abc", "", -1, ["", "", "", ""]],
    ["aaa", "a*", -1, ["aaa"]],
    ["baaac", "a*", -1, ["", "aaa", ""]],
    ["a😀b", "", -1, ["", "", "", ""]],
    ["a😀b", ".", -1, ["a", "😀", "b"]],
  ];
  it.each(all)("%j.findAll(%j, %i) = %j", (input, pattern, limit, want) => {
    expect(regexFindAll(input, pattern, limit)).toEqual(want);
  });
});

describe("regex functions in expressions", () => {
  const env = createEnvironment({ variables: { s: "string", x: "dyn" } });
  const cases: [string, Record<string, unknown>, unknown][] = [
    ["s.matches('(a+)+$')", { s: "a".repeat(50) + "b" }, false],
    ["x.matches('(a+)+$')", { x: "a".repeat(50) + "b" }, false],
    ["matches(s, '^a+b$')", { s: "a".repeat(50) + "b" }, true],
    ["'123 abc 456'.findAll('[0-9]+')", {}, ["123", "456"]],
    ["'123 abc 456'.findAll('[0-9]+', 1)", {}, ["123"]],
    ["'abc 123'.find('[0-9]*')", {}, ""],
  ];
  it.each(cases)("%s", (source, activation, want) => {
    expect(env.compile(source).evaluate(activation).value).toEqual(want);
  });

  const literals: [string, RegExp][] = [
    ["s.matches('(a')", /^compilation failed: invalid regular expression "\(a" at 1:11$/],
    ["s.find('(?=x)')", /^compilation failed: invalid regular expression "\(\?=x\)" at 1:8$/],
    ["s.findAll('a{1001}', 2)", /^compilation failed: invalid regular expression/],
    ["matches(s, '[')", /^compilation failed: invalid regular expression/],
    ["[s].exists(i, i.matches(')'))", /^compilation failed: invalid regular expression/],
  ];
  it.each(literals)("rejects the invalid literal pattern of %s at compile time", (source, want) => {
    expect(() => env.compile(source)).toThrow(want);
  });

  it("refuses matches on a dynamic non-string receiver", () => {
    expect(() => env.compile("x.matches('a')").evaluate({ x: 5 })).toThrow(/no matching overload for 'matches'/);
  });
});

describe("duration() input guard", () => {
  const env = createEnvironment({ variables: { s: "string" } });
  const cases: [string, string | RegExp][] = [
    ["1h30m", "5400s"],
    ["+1.5s", "1.5s"],
    ["300ms", "0.3s"],
    ["1x", /^invalid duration$/],
    // a long digit run: the evaluator's own backtracking parser is polynomial on it
    ["1".repeat(5000), /^invalid duration$/],
    ["1s" + "1".repeat(5000), /^invalid duration$/],
  ];
  it.each(cases)("duration(%j)", (input, want) => {
    const run = () => env.compile("duration(s)").evaluate({ s: input }).value;
    if (typeof want === "string") expect(run()).toBe(want);
    else expect(run).toThrow(want);
  });
});
