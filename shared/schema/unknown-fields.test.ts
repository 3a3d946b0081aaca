import { describe, expect, it } from "vitest";
import { obj, str } from "./build.ts";
import { findUnknownFields, unknownFieldMessage } from "./unknown-fields.ts";
import { kindSchema, UNKNOWN_CASES } from "./testing/unknown-fields.fixtures.ts";

describe("findUnknownFields", () => {
  it.each(UNKNOWN_CASES)("%s", (_name, value, expected) => {
    expect(findUnknownFields(kindSchema, value)).toEqual(expected);
  });

  it("prefixes a base path and prints the platform's warning", () => {
    expect(findUnknownFields(obj({ a: str() }), { b: 1 }, "spec")).toEqual(["spec.b"]);
    expect(unknownFieldMessage("spec.foo")).toBe('unknown field "spec.foo"');
  });
});
