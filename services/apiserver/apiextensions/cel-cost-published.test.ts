/**
 * The estimator against the platform's own published estimates: each row is a case of
 * the platform's CRD rule cost-estimation test table (schema shape, rule, the estimate
 * with no declared bounds and with maxItems/maxProperties/maxLength set to a value).
 * Left out: the table's rows whose expected cost is 0 (not checked there: `has(self.x)`),
 * and its `index of …` rows over dates and durations (they call timestamp and
 * duration methods on values this environment types as strings).
 */
import { describe, expect, it } from "vitest";
import { getProfile } from "../../../shared/platform/index.ts";
import { estimateRuleCost } from "./cel-cost.ts";
import { convertNode } from "./schema.ts";

const x = getProfile("plat").ext;
type Raw = Record<string, unknown>;
type Gen = (max?: number) => Raw;

/** A scalar of the test table's type names: "number", "string", "date", "int-or-string", ... */
function scalar(type: string): Raw {
  switch (type) {
    case "int-or-string":
      return { [x.intOrString]: true };
    case "duration":
    case "date":
    case "date-time":
      return { type: "string", format: type };
    default:
      return { type };
  }
}
const withMax = (key: string, max?: number): Raw => (max === undefined ? {} : { [key]: max });
const arrayOf = (item: Raw): Gen => (max) => ({ type: "array", items: item, ...withMax("maxItems", max) });
const mapOf = (item: Raw): Gen => (max) => ({ type: "object", additionalProperties: item, ...withMax("maxProperties", max) });
const requiredObject: Raw = { type: "object", required: ["required"], properties: { required: { type: "string" }, optional: { type: "string" } } };
const stringOf: Gen = (max) => ({ type: "string", ...withMax("maxLength", max) });
const nestedStrings: Gen = (max) => ({ type: "object", additionalProperties: stringOf(max), ...withMax("maxProperties", max) });

// name, schema generator, rule, estimate without bounds, bound, estimate with it
const rows: Array<[string, Gen, string, number, number, number]> = [
  ["number array with all", arrayOf(scalar("number")), "self.all(x, true)", 4718591, 10, 32],
  ["string array with all", arrayOf(scalar("string")), "self.all(x, true)", 3145727, 20, 62],
  ["boolean array with all", arrayOf(scalar("boolean")), "self.all(x, true)", 1887437, 5, 17],
  ["array of number arrays with all", arrayOf({ type: "array", items: scalar("number") }), "self.all(x, true)", 3145727, 100, 302],
  ["array of objects with all", arrayOf(requiredObject), "self.all(x, true)", 555128, 50, 152],
  ["map of numbers with all", mapOf(scalar("number")), "self.all(x, true)", 1348169, 10, 32],
  ["map of strings with all", mapOf(scalar("string")), "self.all(x, true)", 1179647, 3, 11],
  ["map of booleans with all", mapOf(scalar("boolean")), "self.all(x, true)", 943718, 100, 302],
  ["string with contains", stringOf, "self.contains('test')", 314574, 10, 5],
  ["string with startsWith", stringOf, "self.startsWith('test')", 2, 15, 2],
  ["string with endsWith", stringOf, "self.endsWith('test')", 2, 30, 2],
  ["concat string", stringOf, `size(self + "hello") > size("hello")`, 314578, 4, 7],
  ["index of array with numbers", arrayOf(scalar("number")), "self[1] == 0.0", 2, 5000, 2],
  ["index of array with strings", arrayOf(scalar("string")), "self[1] == self[1]", 314577, 8, 314577],
  ["O(n^2) loop with numbers (bounded)", arrayOf(scalar("number")), "self.all(x, self.all(y, true))", NaN, 10, 352],
  ["O(n^3) loop with numbers (bounded)", arrayOf(scalar("number")), "self.all(x, self.all(y, self.all(z, true)))", NaN, 10, 3552],
  ["regex matches simple", stringOf, `self.matches("x")`, 314574, 50, 22],
  ["regex matches empty string", stringOf, `"".matches("(((((((((())))))))))[0-9]")`, 7, 10, 7],
  ["regex matches empty regex", stringOf, `self.matches("")`, 1, 100, 1],
  ["map of strings with value length", nestedStrings, "self.all(x, x.contains(self[x]))", 2752507, 10, 72],
  ["int-or-string array with all", arrayOf(scalar("int-or-string")), "self.all(x, true)", 4718591, 10, 32],
  ["index of array with int-or-strings", arrayOf(scalar("int-or-string")), "self[0] == 5", 3, 10, 3],
  ["array of number maps with all", arrayOf({ type: "object", additionalProperties: scalar("number") }), "self.all(x, x.y == 25.2)", 6291452, 12, 74],
  ["date array with all", arrayOf(scalar("date")), "self.all(x, true)", 725936, 15, 47],
  ["date-time array with all", arrayOf(scalar("date-time")), "self.all(x, true)", 428963, 25, 77],
  ["map of int-or-strings with all", mapOf(scalar("int-or-string")), "self.all(x, true)", 1348169, 15, 47],
  ["map of objects with all", mapOf(requiredObject), "self.all(x, true)", 428963, 20, 62],
  ["map of number maps with all", mapOf({ type: "object", additionalProperties: { type: "number" } }), "self.all(x, true)", 1179647, 10, 32],
  ["map of number arrays with all", mapOf({ type: "array", items: { type: "number" } }), "self.all(x, true)", 1179647, 25, 77],
  ["map of dates with all", mapOf(scalar("date")), "self.all(x, true)", 524288, 10, 32],
  ["map of date-times with all", mapOf(scalar("date-time")), "self.all(x, true)", 349526, 25, 77],
  ["duration array with all", arrayOf(scalar("duration")), "self.all(x, true)", 2359295, 5, 17],
  ["map of durations with all", mapOf(scalar("duration")), "self.all(x, true)", 1048577, 5, 17],
  ["extended library regex find", stringOf, "self.find('[0-9]+') == ''", 629147, 10, 11],
  ["extended library lowerAscii", stringOf, "self.lowerAscii() == 'lower!'", 314575, 10, 6],
  ["check cost of size call", mapOf({ type: "integer" }), "oldSelf.size() == self.size()", 5, 10, 5],
  ["check cost of timestamp comparison", mapOf(scalar("date-time")), `self["a"] == self["b"]`, 8, 7, 8],
  ["check cost of duration comparison", mapOf(scalar("duration")), `self["c"] == self["d"]`, 8, 42, 8],
];

describe("estimates as the platform publishes them", () => {
  it.each(rows)("%s", (_name, gen, rule, unbounded, max, bounded) => {
    if (!Number.isNaN(unbounded)) expect(estimateRuleCost(rule, convertNode(gen(), x))).toBe(unbounded);
    expect(estimateRuleCost(rule, convertNode(gen(max), x))).toBe(bounded);
  });
});
