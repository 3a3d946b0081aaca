import { describe, expect, it } from "vitest";
import { compileMatchConditions } from "./match-conditions.ts";

const SECRET = "SECRET-51c2";
const request = (extra: Record<string, unknown> = {}) => ({ user: "jane", groups: ["dev"], resourceAttributes: { namespace: "ns", verb: "get" }, ...extra });

describe("authorization webhook match conditions", () => {
  const cases: [string, string[], Record<string, unknown>, { result: string; error?: string | RegExp }][] = [
    ["all true: match", ["request.user == 'jane'", "'dev' in request.groups"], request(), { result: "match" }],
    ["one false: skip", ["request.user == 'jane'", "request.resourceAttributes.namespace == 'other'"], request(), { result: "skip" }],
    ["a false wins over an error", ["request.missing == 1", "request.user == 'bob'"], request(), { result: "skip" }],
    ["an error without a false: error", ["request.missing == 1"], request(), { result: "error", error: "no such key: missing at 1:9" }],
    ["a catastrophic pattern answers at once with RE2", ["request.user.matches('(a+)+$')"], request({ user: "a".repeat(50) + "b" }), { result: "skip" }],
    [
      "a condition over its cost budget is an error",
      ["request.groups.all(a, request.groups.all(b, request.groups.all(c, c != '')))"],
      request({ groups: Array.from({ length: 200 }, (_, i) => `g${i}`) }),
      { result: "error", error: "operation cancelled: actual cost limit exceeded" },
    ],
    ["error texts never quote request values", ["int(request.user) == 1"], request({ user: SECRET }), { result: "error", error: /^int\(\) conversion error at 1:1$/ }],
  ];
  it.each(cases)("%s", (_name, expressions, req, want) => {
    const out = compileMatchConditions(expressions.map((expression) => ({ expression }))).evaluate(req);
    expect(out.result).toBe(want.result);
    if (out.result === "error") {
      expect(out.error).toMatch(want.error ?? /./);
      expect(out.error).not.toContain(SECRET);
    }
  });

  it("rejects an invalid literal regular expression at load", () => {
    expect(() => compileMatchConditions([{ expression: "request.user.matches('(')" }])).toThrow(/matchConditions\[0\]\.expression: Invalid value: .*compilation failed: invalid regular expression/);
  });
});
