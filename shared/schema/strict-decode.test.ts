import { describe, expect, it } from "vitest";
import { DecodeError, decodeJsonStrict, decodeYamlStrict, duplicateFieldMessage } from "./strict-decode.ts";

function jsonError(text: string, maxDepth?: number): DecodeError {
  try {
    decodeJsonStrict(text, maxDepth === undefined ? {} : { maxDepth });
  } catch (e) {
    if (e instanceof DecodeError) return e;
    throw e;
  }
  throw new Error(`no error for ${text}`);
}

function yamlError(text: string, opts = {}): DecodeError {
  try {
    decodeYamlStrict(text, opts);
  } catch (e) {
    if (e instanceof DecodeError) return e;
    throw e;
  }
  throw new Error(`no error for ${text}`);
}

describe("decodeJsonStrict", () => {
  it.each<[string, unknown]>([
    ['{"a":1,"b":[true,false,null],"c":{"d":"e"}}', { a: 1, b: [true, false, null], c: { d: "e" } }],
    [" [ ] ", []],
    ["{}", {}],
    ['"x"', "x"],
    ["-0", 0],
    ["1.5e3", 1500],
    ["-12.25E-2", -0.1225],
    ['"\\u00e9\\n\\t\\"\\\\\\/"', 'é\n\t"\\/'],
    ['"\\ud83d\\ude00"', "😀"],
    ["9007199254740991", 9007199254740991],
    ["9007199254740993", 9007199254740993n],
    ["-9223372036854775808", -9223372036854775808n],
    ["123456789012.5e3", 123456789012500],
  ])("parses %s", (text, expected) => {
    const res = decodeJsonStrict(text);
    expect(res.value).toEqual(expected);
    expect(res.duplicates).toEqual([]);
  });

  it("can round big integers instead", () => {
    expect(decodeJsonStrict("9007199254740993", { bigIntegers: "number" }).value).toBe(9007199254740992);
  });

  it("agrees with JSON.parse on ordinary documents", () => {
    const doc = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", labels: { a: "b" } }, spec: { containers: [{ name: "c", ports: [{ containerPort: 80 }] }], x: [1.25, -3, "s", null, true] } };
    const text = JSON.stringify(doc, null, 2);
    expect(decodeJsonStrict(text).value).toEqual(JSON.parse(text));
  });

  it("reports duplicates with their paths at any depth, keeping the last value", () => {
    const text = '{"spec":{"replicas":1,"paused":true,"replicas":2,"template":{"spec":{"containers":[{"name":"a","image":"x","image":"y"}]}}},"kind":"K","kind":"L"}';
    const res = decodeJsonStrict(text);
    expect(res.duplicates).toEqual(["spec.replicas", "spec.template.spec.containers[0].image", "kind"]);
    expect(res.messages).toEqual(['duplicate field "spec.replicas"', 'duplicate field "spec.template.spec.containers[0].image"', 'duplicate field "kind"']);
    expect(res.value).toEqual({ spec: { replicas: 2, paused: true, template: { spec: { containers: [{ name: "a", image: "y" }] } } }, kind: "L" });
    expect(duplicateFieldMessage("a.b")).toBe('duplicate field "a.b"');
  });

  it("keeps hostile keys as own properties", () => {
    const v = decodeJsonStrict('{"__proto__":{"polluted":1},"constructor":2}').value as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.keys(v)).toEqual(["__proto__", "constructor"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each<[string, string, number, number]>([
    ["", "unexpected end of JSON input", 1, 1],
    ['{"a":1', "unexpected end of JSON input", 1, 7],
    ['{"a" 1}', "invalid character '1' after object key", 1, 6],
    ['{"a":1 "b":2}', "invalid character '\"' after object key:value pair", 1, 8],
    ["[1 2]", "invalid character '2' after array element", 1, 4],
    ["{a:1}", "invalid character 'a' looking for beginning of object key string", 1, 2],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string", 1, 8],
    ["[1,]", "invalid character ']' looking for beginning of value", 1, 4],
    ["{}\n{}", "invalid character '{' after top-level value", 2, 1],
    ["01", "invalid character '1' after top-level value", 1, 2],
    ["-", "unexpected end of JSON input", 1, 2],
    ["-x", "invalid character 'x' in numeric literal", 1, 2],
    ["1.", "unexpected end of JSON input", 1, 3],
    ["1.e5", "invalid character 'e' after decimal point in numeric literal", 1, 3],
    ["1e+", "unexpected end of JSON input", 1, 4],
    ["tru", "unexpected end of JSON input", 1, 4],
    ["nul!", "invalid character '!' in literal null (expecting 'l')", 1, 4],
    ['"a\nb"', "invalid character '\\n' in string literal", 1, 3],
    ['"\\x"', "invalid character 'x' in string escape code", 1, 3],
    ['"\\u12G4"', "invalid character 'G' in \\u hexadecimal character escape", 1, 6],
    ["\uFEFF{}", "invalid character '\uFEFF' looking for beginning of value", 1, 1],
    ["NaN", "invalid character 'N' looking for beginning of value", 1, 1],
    ["1e400", "cannot unmarshal number 1e400 into a float64 value", 1, 1],
  ])("rejects %j: %s", (text, message, line, column) => {
    const e = jsonError(text);
    expect(e.message).toBe(message);
    expect([e.line, e.column]).toEqual([line, column]);
  });

  it("enforces the nesting limit without recursion", () => {
    expect(decodeJsonStrict("[".repeat(1000) + "]".repeat(1000)).value).toBeInstanceOf(Array);
    expect(jsonError("[".repeat(1001) + "]".repeat(1001)).message).toBe("exceeded max depth of 1000 nesting levels");
    expect(jsonError('{"a":'.repeat(3) + "1" + "}".repeat(3), 2).message).toBe("exceeded max depth of 2 nesting levels");
    const deep = "[".repeat(200_000) + "]".repeat(200_000);
    expect(() => decodeJsonStrict(deep, { maxDepth: 300_000 })).not.toThrow();
  });
});

describe("decodeYamlStrict", () => {
  it("parses a manifest, keeping big integers exact and the rest as numbers", () => {
    const res = decodeYamlStrict("apiVersion: v1\nkind: Pod\nspec:\n  n: 3\n  big: 9223372036854775807\n  f: 1.5\n  list: [a, 1, true, null]\n");
    expect(res.value).toEqual({ apiVersion: "v1", kind: "Pod", spec: { n: 3, big: 9223372036854775807n, f: 1.5, list: ["a", 1, true, null] } });
    expect(res.duplicates).toEqual([]);
  });

  it("accepts JSON, which is YAML", () => {
    expect(decodeYamlStrict('{"a": [1, {"b": "c"}]}').value).toEqual({ a: [1, { b: "c" }] });
  });

  it("reports duplicates with paths and the platform's line wording", () => {
    const text = ["metadata:", "  name: a", "spec:", "  foo: foo1", "  foo: foo2", "  ports:", "  - name: x", "    port: 1", "    port: 2", "kind: K"].join("\n");
    const res = decodeYamlStrict(text);
    expect(res.duplicates).toEqual(["spec.foo", "spec.ports[0].port"]);
    expect(res.messages).toEqual(['line 5: key "foo" already set in map', 'line 9: key "port" already set in map']);
    expect(res.value).toEqual({ metadata: { name: "a" }, spec: { foo: "foo2", ports: [{ name: "x", port: 2 }] }, kind: "K" });
  });

  it("merges `<<` keys without calling them duplicates; explicit keys win", () => {
    const res = decodeYamlStrict("base: &b {cpu: 1, mem: 2}\nx:\n  <<: *b\n  mem: 3\n");
    expect(res.value).toEqual({ base: { cpu: 1, mem: 2 }, x: { cpu: 1, mem: 3 } });
    expect(res.duplicates).toEqual([]);
  });

  it("limits alias expansion", () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    const names = "bcdefghi";
    let prev = "a";
    for (const n of names) {
      lines.push(`${n}: &${n} [*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev},*${prev}]`);
      prev = n;
    }
    expect(yamlError(lines.join("\n")).message).toMatch(/alias/i);
    expect(decodeYamlStrict("a: &x {k: v}\nb: *x\n").value).toEqual({ a: { k: "v" }, b: { k: "v" } });
  });

  it.each<[string, RegExp]>([
    ["a: [1, 2", /flow sequence|end/i],
    ["a: b\n---\nc: d", /multiple documents/i],
    ["a: .inf", /unsupported value/],
    ["\ta: 1", /tab/i],
  ])("rejects %j", (text, pattern) => {
    expect(yamlError(text).message).toMatch(pattern);
  });

  it("enforces the nesting limit", () => {
    expect(yamlError("a:\n  b:\n    c: 1", { maxDepth: 2 }).message).toBe("exceeded max depth of 2 nesting levels");
    expect(decodeYamlStrict("a:\n  b: 1", { maxDepth: 2 }).value).toEqual({ a: { b: 1 } });
  });

  it("keeps hostile keys as own properties", () => {
    const v = decodeYamlStrict("__proto__:\n  polluted: 1\n").value as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("reports errors with a line", () => {
    const e = yamlError("a: 1\nb: [\n");
    expect(e.line).toBeGreaterThanOrEqual(2);
  });
});
