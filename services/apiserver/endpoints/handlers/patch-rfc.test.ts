import { describe, expect, it } from "vitest";
import { StatusError } from "../../../../shared/api/status.ts";
import { applyJsonPatch, mergePatch } from "./patch.ts";

/** RFC 7386, Appendix A: target, patch, result. */
const RFC7386: Array<[unknown, unknown, unknown]> = [
  [{ a: "b" }, { a: "c" }, { a: "c" }],
  [{ a: "b" }, { b: "c" }, { a: "b", b: "c" }],
  [{ a: "b" }, { a: null }, {}],
  [{ a: "b", b: "c" }, { a: null }, { b: "c" }],
  [{ a: ["b"] }, { a: "c" }, { a: "c" }],
  [{ a: "c" }, { a: ["b"] }, { a: ["b"] }],
  [{ a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
  [{ a: [{ b: "c" }] }, { a: [1] }, { a: [1] }],
  [["a", "b"], ["c", "d"], ["c", "d"]],
  [{ a: "b" }, ["c"], ["c"]],
  [{ a: "foo" }, null, null],
  [{ a: "foo" }, "bar", "bar"],
  [{ e: null }, { a: 1 }, { e: null, a: 1 }],
  [[1, 2], { a: "b", c: null }, { a: "b" }],
  [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
];

describe("JSON merge patch: RFC 7386 Appendix A", () => {
  it.each(RFC7386.map((c, i) => [i + 1, ...c] as const))("example %i", (_n, target, patch, result) => {
    const before = JSON.stringify(target);
    expect(mergePatch(target, patch)).toEqual(result);
    expect(JSON.stringify(target)).toBe(before);
  });
});

/** RFC 6902, Appendix A: document, patch, result (or the error for the failing examples). */
const RFC6902: Array<[string, unknown, unknown[], unknown]> = [
  ["A.1 adding an object member", { foo: "bar" }, [{ op: "add", path: "/baz", value: "qux" }], { baz: "qux", foo: "bar" }],
  ["A.2 adding an array element", { foo: ["bar", "baz"] }, [{ op: "add", path: "/foo/1", value: "qux" }], { foo: ["bar", "qux", "baz"] }],
  ["A.3 removing an object member", { baz: "qux", foo: "bar" }, [{ op: "remove", path: "/baz" }], { foo: "bar" }],
  ["A.4 removing an array element", { foo: ["bar", "qux", "baz"] }, [{ op: "remove", path: "/foo/1" }], { foo: ["bar", "baz"] }],
  ["A.5 replacing a value", { baz: "qux", foo: "bar" }, [{ op: "replace", path: "/baz", value: "boo" }], { baz: "boo", foo: "bar" }],
  [
    "A.6 moving a value",
    { foo: { bar: "baz", waldo: "fred" }, qux: { corge: "grault" } },
    [{ op: "move", from: "/foo/waldo", path: "/qux/thud" }],
    { foo: { bar: "baz" }, qux: { corge: "grault", thud: "fred" } },
  ],
  ["A.7 moving an array element", { foo: ["all", "grass", "cows", "eat"] }, [{ op: "move", from: "/foo/1", path: "/foo/3" }], { foo: ["all", "cows", "eat", "grass"] }],
  [
    "A.8 testing a value: success",
    { baz: "qux", foo: ["a", 2, "c"] },
    [
      { op: "test", path: "/baz", value: "qux" },
      { op: "test", path: "/foo/1", value: 2 },
    ],
    { baz: "qux", foo: ["a", 2, "c"] },
  ],
  ["A.9 testing a value: error", { baz: "qux" }, [{ op: "test", path: "/baz", value: "bar" }], 422],
  ["A.10 adding a nested member object", { foo: "bar" }, [{ op: "add", path: "/child", value: { grandchild: {} } }], { foo: "bar", child: { grandchild: {} } }],
  ["A.11 ignoring unrecognized elements", { foo: "bar" }, [{ op: "add", path: "/baz", value: "qux", xyz: 123 }], { foo: "bar", baz: "qux" }],
  ["A.12 adding to a nonexistent target", { foo: "bar" }, [{ op: "add", path: "/baz/bat", value: "qux" }], 422],
  ["A.14 ~ escape ordering", { "/": 9, "~1": 10 }, [{ op: "test", path: "/~01", value: 10 }], { "/": 9, "~1": 10 }],
  ["A.15 comparing strings and numbers", { "/": 9, "~1": 10 }, [{ op: "test", path: "/~01", value: "10" }], 422],
  ["A.16 adding an array value", { foo: ["bar"] }, [{ op: "add", path: "/foo/-", value: ["abc", "def"] }], { foo: ["bar", ["abc", "def"]] }],
];

describe("JSON patch: RFC 6902 Appendix A", () => {
  it.each(RFC6902)("%s", async (_name, doc, patch, expected) => {
    const before = JSON.stringify(doc);
    if (typeof expected === "number") {
      let err: unknown;
      try {
        await applyJsonPatch(doc, patch);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(StatusError);
      expect((err as StatusError).code).toBe(expected);
    } else {
      expect(await applyJsonPatch(doc, patch)).toEqual(expected);
    }
    expect(JSON.stringify(doc)).toBe(before);
  });

  it("leaves the document unchanged when a later operation fails after earlier ones applied", async () => {
    const doc = { a: 1, b: 2 };
    await expect(
      applyJsonPatch(doc, [
        { op: "replace", path: "/a", value: 5 },
        { op: "test", path: "/b", value: 3 },
      ]),
    ).rejects.toThrow(StatusError);
    expect(doc).toEqual({ a: 1, b: 2 });
  });
});
