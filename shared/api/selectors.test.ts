import { describe, expect, it } from "vitest";
import {
  FieldSelector,
  ParsedLabelSelector,
  SelectorError,
  escapeFieldValue,
  fieldSelectorFromSet,
  labelSelectorFromObject,
  labelSelectorFromSet,
  newLabelRequirement,
  parseFieldSelector,
  parseLabelSelector,
  unescapeFieldValue,
  type LabelSelector,
} from "./selectors.ts";

type R = [string, string, string[]];
const reqs = (s: ParsedLabelSelector | FieldSelector): R[] => s.requirements.map((r) => [r.key, r.operator, [...r.values]]);

const QN_RULE =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LV_RULE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe("label selector parsing", () => {
  const ok: Array<[string, R[]]> = [
    ["", []],
    ["   ", []],
    ["x=a", [["x", "=", ["a"]]]],
    ["x==a", [["x", "==", ["a"]]]],
    ["x!=a", [["x", "!=", ["a"]]]],
    ["x", [["x", "exists", []]]],
    ["!x", [["x", "!", []]]],
    ["x=", [["x", "=", [""]]]],
    ["x in (a,b)", [["x", "in", ["a", "b"]]]],
    ["x in (b,a,b)", [["x", "in", ["a", "b"]]]],
    ["x notin (z)", [["x", "notin", ["z"]]]],
    ["x in ()", [["x", "in", [""]]]],
    ["x in (foo,,baz)", [["x", "in", ["", "baz", "foo"]]]],
    ["x in (,)", [["x", "in", [""]]]],
    ["x in (,a)", [["x", "in", ["", "a"]]]],
    ["x in (a,)", [["x", "in", ["", "a"]]]],
    ["x in (in)", [["x", "in", ["in"]]]],
    ["in=notin", [["in", "=", ["notin"]]]],
    [" x = a , y ", [["x", "=", ["a"]], ["y", "exists", []]]],
    ["x>1", [["x", "gt", ["1"]]]],
    ["x<2", [["x", "lt", ["2"]]]],
    ["z=b,a=c", [["a", "=", ["c"]], ["z", "=", ["b"]]]],
    ["example.com/app=web", [["example.com/app", "=", ["web"]]]],
    [
      "a=b,c!=d,e in (x,y),f notin (z),g,!h",
      [
        ["a", "=", ["b"]],
        ["c", "!=", ["d"]],
        ["e", "in", ["x", "y"]],
        ["f", "notin", ["z"]],
        ["g", "exists", []],
        ["h", "!", []],
      ],
    ],
    [
      "x=a,x!=b",
      [
        ["x", "=", ["a"]],
        ["x", "!=", ["b"]],
      ],
    ],
  ];
  it.each(ok)("parses %j", (text, expected) => {
    expect(reqs(parseLabelSelector(text))).toEqual(expected);
  });

  const bad: Array<[string, string]> = [
    ["x=a b", "found 'b', expected: ',' or 'end of string'"],
    ["x=a,", "found '', expected: identifier after ','"],
    ["x in (a),", "found '', expected: identifier after ','"],
    [",x", "found ',', expected: !, identifier, or 'end of string'"],
    ["=a", "found '=', expected: !, identifier, or 'end of string'"],
    ["x y", "unable to parse requirement: found 'y', expected: in, notin, =, ==, !=, gt, lt"],
    ["x in a", "unable to parse requirement: found 'a' expected: '('"],
    ["x in (a", "unable to parse requirement: found '', expected: ',' or ')'"],
    ["x in (a b)", "unable to parse requirement: found 'b', expected: ',' or ')'"],
    ["x in (=)", "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
    ["x=(", "unable to parse requirement: found '(', expected: identifier"],
    ["!", "unable to parse requirement: found '', expected: identifier"],
    ["!x=a", "found '=', expected: ',' or 'end of string'"],
    ["a/b/c=d", `unable to parse requirement: <nil>: Invalid value: "a/b/c": a qualified name ${QN_RULE} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`],
    ["-x=a", `unable to parse requirement: <nil>: Invalid value: "-x": name part ${QN_RULE}`],
    ["x=a@b", `unable to parse requirement: values[0][x]: Invalid value: "a@b": ${LV_RULE}`],
    [`x=${"v".repeat(64)}`, `unable to parse requirement: values[0][x]: Invalid value: "${"v".repeat(64)}": must be no more than 63 characters`],
    ["x<-2", `unable to parse requirement: values[0][x]: Invalid value: "-2": ${LV_RULE}`],
    ["x>a", `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`],
  ];
  it.each(bad)("rejects %j", (text, message) => {
    let err: unknown;
    try {
      parseLabelSelector(text);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SelectorError);
    expect((err as Error).message).toBe(message);
  });
});

describe("label selector matching", () => {
  const labels = { app: "web", tier: "fe", env: "", n: "10", word: "abc" };
  const cases: Array<[string, boolean]> = [
    ["", true],
    ["app=web", true],
    ["app==web", true],
    ["app=db", false],
    ["app!=db", true],
    ["app!=web", false],
    ["missing!=x", true],
    ["app in (web,db)", true],
    ["app in (db)", false],
    ["app notin (web)", false],
    ["missing notin (x)", true],
    ["missing in (x)", false],
    ["app", true],
    ["missing", false],
    ["!missing", true],
    ["!app", false],
    ["env=", true],
    ["env", true],
    ["missing=", false],
    ["app in (web),tier=fe", true],
    ["app in (web),tier=be", false],
    ["n>5", true],
    ["n<5", false],
    ["n>10", false],
    ["word>5", false],
    ["missing<5", false],
  ];
  it.each(cases)("%j → %s", (text, expected) => {
    expect(parseLabelSelector(text).matches(labels)).toBe(expected);
  });

  it("undefined labels are an empty map", () => {
    expect(parseLabelSelector("!a").matches(undefined)).toBe(true);
    expect(parseLabelSelector("a").matches(undefined)).toBe(false);
  });

  it("does not see inherited properties as labels", () => {
    expect(parseLabelSelector("constructor").matches({})).toBe(false);
    expect(parseLabelSelector("!toString").matches({})).toBe(true);
  });
});

describe("label selector output", () => {
  it("prints a canonical string", () => {
    expect(parseLabelSelector("b in (z,y), a==x, !c, d,e>3").toString()).toBe("a==x,b in (y,z),!c,d,e>3");
    expect(parseLabelSelector("").toString()).toBe("");
  });

  it("reparses its own string", () => {
    const s = parseLabelSelector("a=b,c!=d,e in (x,y),f notin (z),g,!h");
    expect(reqs(parseLabelSelector(s.toString()))).toEqual(reqs(s));
  });

  it("requiresExactMatch", () => {
    expect(parseLabelSelector("a=b").requiresExactMatch("a")).toBe("b");
    expect(parseLabelSelector("a==b").requiresExactMatch("a")).toBe("b");
    expect(parseLabelSelector("a in (b)").requiresExactMatch("a")).toBe("b");
    expect(parseLabelSelector("a in (b,c)").requiresExactMatch("a")).toBeUndefined();
    expect(parseLabelSelector("a!=b").requiresExactMatch("a")).toBeUndefined();
    expect(parseLabelSelector("c=d").requiresExactMatch("a")).toBeUndefined();
  });

  it("gives authorizer requirements", () => {
    expect(parseLabelSelector("a=b,c!=d,e in (x,y),f notin (z),g,!h,n>1,k==v").toRequirements()).toEqual([
      { key: "a", operator: "In", values: ["b"] },
      { key: "c", operator: "NotIn", values: ["d"] },
      { key: "e", operator: "In", values: ["x", "y"] },
      { key: "f", operator: "NotIn", values: ["z"] },
      { key: "g", operator: "Exists" },
      { key: "h", operator: "DoesNotExist" },
      { key: "k", operator: "In", values: ["v"] },
    ]);
  });

  it("converts to a LabelSelector object", () => {
    expect(parseLabelSelector("a=b,c in (x,y),!d,e,f notin (z),g!=h").toObject()).toEqual({
      matchLabels: { a: "b" },
      matchExpressions: [
        { key: "c", operator: "In", values: ["x", "y"] },
        { key: "d", operator: "DoesNotExist" },
        { key: "e", operator: "Exists" },
        { key: "f", operator: "NotIn", values: ["z"] },
        { key: "g", operator: "NotIn", values: ["h"] },
      ],
    });
    expect(parseLabelSelector("").toObject()).toEqual({});
    expect(ParsedLabelSelector.nothing().toObject()).toBeNull();
    expect(() => parseLabelSelector("n>1").toObject()).toThrow(`"gt" isn't supported in label selectors`);
  });
});

describe("LabelSelector object", () => {
  it("null selects nothing, empty selects everything", () => {
    const nothing = labelSelectorFromObject(null);
    expect(nothing.matches({})).toBe(false);
    expect(nothing.empty()).toBe(false);
    expect(labelSelectorFromObject(undefined).matches({ a: "b" })).toBe(false);
    const all = labelSelectorFromObject({});
    expect(all.matches({})).toBe(true);
    expect(all.empty()).toBe(true);
  });

  it("converts matchLabels and matchExpressions", () => {
    const obj: LabelSelector = {
      matchLabels: { a: "b" },
      matchExpressions: [
        { key: "c", operator: "In", values: ["x", "y"] },
        { key: "d", operator: "DoesNotExist" },
        { key: "e", operator: "Exists" },
        { key: "f", operator: "NotIn", values: ["z"] },
      ],
    };
    const s = labelSelectorFromObject(obj);
    expect(s.toString()).toBe("a=b,c in (x,y),!d,e,f notin (z)");
    expect(s.matches({ a: "b", c: "y", e: "1" })).toBe(true);
    expect(s.matches({ a: "b", c: "y", e: "1", d: "" })).toBe(false);
    expect(s.matches({ a: "b", c: "y", e: "1", f: "z" })).toBe(false);
    expect(s.toObject()).toEqual(obj);
  });

  const bad: Array<[string, LabelSelector, string]> = [
    ["unknown operator", { matchExpressions: [{ key: "a", operator: "Foo", values: ["x"] }] }, `"Foo" is not a valid label selector operator`],
    ["lowercase operator", { matchExpressions: [{ key: "a", operator: "in", values: ["x"] }] }, `"in" is not a valid label selector operator`],
    ["In without values", { matchExpressions: [{ key: "a", operator: "In", values: [] }] }, `values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty`],
    [
      "Exists with values",
      { matchExpressions: [{ key: "a", operator: "Exists", values: ["x"] }] },
      `values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist`,
    ],
    ["bad key", { matchLabels: { "a b": "c" } }, `key: Invalid value: "a b": name part ${QN_RULE}`],
    ["bad value", { matchLabels: { a: "b c" } }, `values[0][a]: Invalid value: "b c": ${LV_RULE}`],
    [
      "several errors",
      { matchExpressions: [{ key: "-a", operator: "NotIn" }] },
      `[key: Invalid value: "-a": name part ${QN_RULE}, values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty]`,
    ],
  ];
  it.each(bad)("rejects %s", (_n, obj, message) => {
    expect(() => labelSelectorFromObject(obj)).toThrow(new SelectorError(message));
  });

  it("newLabelRequirement checks exact-match arity", () => {
    expect(() => newLabelRequirement("a", "=", ["x", "y"])).toThrow(`values: Invalid value: []string{"x", "y"}: exact-match compatibility requires one single value`);
    expect(newLabelRequirement("a", "notin", ["x"])).toEqual({ key: "a", operator: "notin", values: ["x"] });
  });

  it("fromSet", () => {
    const s = labelSelectorFromSet({ b: "2", a: "1" });
    expect(s.toString()).toBe("a=1,b=2");
    expect(s.matches({ a: "1", b: "2", c: "3" })).toBe(true);
    expect(s.matches({ a: "1" })).toBe(false);
  });
});

describe("field selector parsing", () => {
  const ok: Array<[string, R[]]> = [
    ["", []],
    [",,", []],
    ["metadata.name=x", [["metadata.name", "=", ["x"]]]],
    ["metadata.name==x", [["metadata.name", "==", ["x"]]]],
    ["status.phase!=Running", [["status.phase", "!=", ["Running"]]]],
    [
      "status.phase!=Running,metadata.name=x",
      [
        ["metadata.name", "=", ["x"]],
        ["status.phase", "!=", ["Running"]],
      ],
    ],
    ["metadata.name=a\\,b", [["metadata.name", "=", ["a,b"]]]],
    ["x=a\\=b", [["x", "=", ["a=b"]]]],
    ["x=a\\\\b", [["x", "=", ["a\\b"]]]],
    [
      "y=c,x=a\\,b",
      [
        ["x", "=", ["a,b"]],
        ["y", "=", ["c"]],
      ],
    ],
    ["x=!b", [["x", "=", ["!b"]]]],
    ["a==", [["a", "==", [""]]]],
    ["spec.nodeName=", [["spec.nodeName", "=", [""]]]],
  ];
  it.each(ok)("parses %j", (text, expected) => {
    expect(reqs(parseFieldSelector(text))).toEqual(expected);
  });

  const bad: Array<[string, string]> = [
    ["x", "invalid selector: 'x'; can't understand 'x'"],
    ["a=b,c", "invalid selector: 'a=b,c'; can't understand 'c'"],
    ["x=a\\b", "invalid field selector: invalid escape sequence: \\b"],
    ["x=a\\", "invalid field selector: invalid escape sequence: \\"],
    ["x=a=b", "invalid field selector: unescaped character in value: ="],
    ["x!==b", "invalid field selector: unescaped character in value: ="],
  ];
  it.each(bad)("rejects %j", (text, message) => {
    expect(() => parseFieldSelector(text)).toThrow(new SelectorError(message));
  });
});

describe("field selector matching and output", () => {
  const fields = { "metadata.name": "x", "metadata.namespace": "ns", "status.phase": "Running" };
  const cases: Array<[string, boolean]> = [
    ["", true],
    ["metadata.name=x", true],
    ["metadata.name==x", true],
    ["metadata.name=y", false],
    ["status.phase!=Running", false],
    ["status.phase!=Pending", true],
    ["spec.nodeName=", true],
    ["spec.nodeName!=", false],
    ["metadata.name=x,metadata.namespace=ns", true],
    ["metadata.name=x,metadata.namespace=other", false],
  ];
  it.each(cases)("%j → %s", (text, expected) => {
    expect(parseFieldSelector(text).matches(fields)).toBe(expected);
  });

  it("escapes on output and round-trips", () => {
    expect(parseFieldSelector("x=a\\,b\\=c\\\\d").toString()).toBe("x=a\\,b\\=c\\\\d");
    expect(parseFieldSelector("b!=2,a==1").toString()).toBe("a=1,b!=2");
    expect(escapeFieldValue("a,b=c\\")).toBe("a\\,b\\=c\\\\");
    expect(unescapeFieldValue(escapeFieldValue("a,b=c\\"))).toBe("a,b=c\\");
    expect(unescapeFieldValue("plain")).toBe("plain");
  });

  it("requiresExactMatch, requirements, transform", () => {
    const s = parseFieldSelector("metadata.name=x,status.phase!=Running");
    expect(s.requiresExactMatch("metadata.name")).toBe("x");
    expect(s.requiresExactMatch("status.phase")).toBeUndefined();
    expect(s.toRequirements()).toEqual([
      { key: "metadata.name", operator: "In", values: ["x"] },
      { key: "status.phase", operator: "NotIn", values: ["Running"] },
    ]);
    const t = s.transform((key, value) => ({ key: key === "status.phase" ? "phase" : key, value: value.toLowerCase() }));
    expect(t.toString()).toBe("metadata.name=x,phase!=running");
    expect(s.empty()).toBe(false);
    expect(FieldSelector.everything().empty()).toBe(true);
  });

  it("fromSet", () => {
    expect(fieldSelectorFromSet({ "metadata.name": "a,b" }).toString()).toBe("metadata.name=a\\,b");
  });
});
