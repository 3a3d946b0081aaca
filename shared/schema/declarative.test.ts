/**
 * The declarative rule vocabulary: tag parsing, evaluation over objects (errors by
 * path, type and message), and which concrete fields a rule path covers.
 */
import { describe, expect, it } from "vitest";
import { coveredErrors, coveredPaths, evaluateDeclarative, parseDeclarations, parseTag } from "./declarative.ts";
import { fieldErrors, formatFieldError } from "./field-errors.ts";

describe("parseTag", () => {
  it.each([
    ["+k8s:optional", { kind: "optional" }],
    ["+k8s:required", { kind: "required" }],
    ["+k8s:immutable", { kind: "immutable" }],
    ["+k8s:minimum=0", { kind: "minimum", value: 0 }],
    ["+k8s:minimum=-3", { kind: "minimum", value: -3 }],
    ["+k8s:maxLength=253", { kind: "maxLength", value: 253 }],
    ["+k8s:maxItems=8", { kind: "maxItems", value: 8 }],
    ["+k8s:enum=Approved,Denied", { kind: "enum", values: ["Approved", "Denied"] }],
    ["+k8s:format=k8s-short-name", { kind: "format", name: "k8s-short-name", format: "dns1123-label" }],
    ["+k8s:listType=set", { kind: "listSet" }],
    ["+k8s:listMapKey=type", { kind: "listMapKey", key: "type" }],
    ['+k8s:item(type: "Approved")=+k8s:zeroOrOneOfMember', { kind: "item", match: { type: "Approved" }, then: { kind: "zeroOrOneOfMember" } }],
    ['+k8s:item(name: "a", priority: 10, enabled: true)=+k8s:immutable', { kind: "item", match: { name: "a", priority: 10, enabled: true }, then: { kind: "immutable" } }],
  ])("%s", (text, rule) => {
    expect(parseTag(text)).toEqual(rule);
  });

  it.each(["k8s:minimum=0", "+k8s:minimum", "+k8s:minimum=x", "+k8s:maxItems=1.5", "+k8s:format=k8s-nonsense", "+k8s:optional=1", "+k8s:unknownTag", "+k8s:listType=bag",
    "+k8s:item(type)=+k8s:immutable",
    "+k8s:item(type: Approved)=+k8s:immutable",
    '+k8s:item(type: "A")=+k8s:optional',
    '+k8s:item(type: "A")=+k8s:item(type: "B")=+k8s:immutable',
    '+k8s:item(type: "A")=+k8s:nonsense',
  ])("refuses %s", (text) => {
    expect(() => parseTag(text)).toThrow();
  });

  it("refuses union membership outside +k8s:item", () => {
    expect(() => parseDeclarations({ "spec.a": ["+k8s:zeroOrOneOfMember"] })).toThrow(/under \+k8s:item/);
  });
});

/** The CertificateSigningRequest union: Approved and Denied conditions are mutually exclusive. */
function unionCases(): Array<{ name: string; decl: Record<string, string[]>; obj: unknown; old?: unknown; errors: string[] }> {
  const decl = { "status.conditions": ['+k8s:item(type: "Approved")=+k8s:zeroOrOneOfMember', '+k8s:item(type: "Denied")=+k8s:zeroOrOneOfMember'] };
  const csr = (...types: string[]) => ({ status: { conditions: types.map((type) => ({ type, status: "True" })) } });
  const both = 'status.conditions: Invalid value: "{conditions[{\\"type\\": \\"Approved\\"}], conditions[{\\"type\\": \\"Denied\\"}]}": must specify at most one of: conditions[{"type": "Approved"}], conditions[{"type": "Denied"}]';
  return [
    { name: "union: none", decl, obj: csr(), errors: [] },
    { name: "union: one member and another item", decl, obj: csr("Approved", "Failed"), errors: [] },
    { name: "union: both members", decl, obj: csr("Denied", "Failed", "Approved"), errors: [both] },
    { name: "union: both, unchanged on update (ratchets)", decl, obj: csr("Denied", "Approved", "Failed"), old: csr("Approved", "Denied"), errors: [] },
    { name: "union: the second added on update", decl, obj: csr("Approved", "Denied"), old: csr("Approved"), errors: [both] },
  ];
}

describe("evaluateDeclarative", () => {
  const cases: Array<{ name: string; decl: Record<string, string[]>; obj: unknown; old?: unknown; errors: string[] }> = [
    { name: "minimum met", decl: { "spec.replicas": ["+k8s:optional", "+k8s:minimum=0"] }, obj: { spec: { replicas: 0 } }, errors: [] },
    { name: "minimum broken", decl: { "spec.replicas": ["+k8s:minimum=0"] }, obj: { spec: { replicas: -1 } }, errors: ["spec.replicas: Invalid value: -1: must be greater than or equal to 0"] },
    { name: "optional and absent", decl: { "spec.replicas": ["+k8s:optional", "+k8s:minimum=1"] }, obj: { spec: {} }, errors: [] },
    { name: "null counts as absent", decl: { "spec.replicas": ["+k8s:minimum=1"] }, obj: { spec: { replicas: null } }, errors: [] },
    { name: "required and absent", decl: { "spec.signerName": ["+k8s:required"] }, obj: { spec: {} }, errors: ["spec.signerName: Required value"] },
    { name: "required under a missing parent", decl: { "spec.signerName": ["+k8s:required"] }, obj: {}, errors: ["spec.signerName: Required value"] },
    { name: "forbidden and set", decl: { "spec.x": ["+k8s:forbidden"] }, obj: { spec: { x: 1 } }, errors: ["spec.x: Forbidden"] },
    { name: "forbidden and absent", decl: { "spec.x": ["+k8s:forbidden"] }, obj: { spec: {} }, errors: [] },
    { name: "maxLength in bytes", decl: { "spec.s": ["+k8s:maxLength=3"] }, obj: { spec: { s: "ééx" } }, errors: ["spec.s: Too long: must have at most 3 bytes"] },
    { name: "maxLength met", decl: { "spec.s": ["+k8s:maxLength=3"] }, obj: { spec: { s: "abc" } }, errors: [] },
    { name: "maxItems", decl: { "spec.l": ["+k8s:maxItems=2"] }, obj: { spec: { l: [1, 2, 3] } }, errors: ["spec.l: Too many: 3: must have at most 2 items"] },
    { name: "enum", decl: { "status.phase": ["+k8s:enum=A,B"] }, obj: { status: { phase: "C" } }, errors: ['status.phase: Unsupported value: "C": supported values: "A", "B"'] },
    {
      name: "format of every list item",
      decl: { "spec.items[*].name": ["+k8s:format=k8s-short-name"] },
      obj: { spec: { items: [{ name: "ok" }, { name: "Not_OK" }] } },
      errors: ['spec.items[1].name: Invalid value: "Not_OK": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')'],
    },
    { name: "set uniqueness", decl: { "spec.l": ["+k8s:listType=set"] }, obj: { spec: { l: ["a", "b", "a"] } }, errors: ['spec.l[2]: Duplicate value: "a"'] },
    {
      name: "map keys, two of them, one report",
      decl: { "status.conditions": ["+k8s:listType=map", "+k8s:listMapKey=type", "+k8s:listMapKey=status"] },
      obj: { status: { conditions: [{ type: "A", status: "True" }, { type: "A", status: "False" }, { type: "A", status: "True" }] } },
      errors: ['status.conditions[2]: Duplicate value: {"type":"A","status":"True"}'],
    },
    { name: "immutable on create", decl: { "spec.x": ["+k8s:immutable"] }, obj: { spec: { x: 1 } }, errors: [] },
    { name: "immutable changed", decl: { "spec.x": ["+k8s:immutable"] }, obj: { spec: { x: 2 } }, old: { spec: { x: 1 } }, errors: ["spec.x: Invalid value: 2: field is immutable"] },
    { name: "immutable kept", decl: { "spec.x": ["+k8s:immutable"] }, obj: { spec: { x: 1 } }, old: { spec: { x: 1 } }, errors: [] },
    { name: "unchanged on update is not checked again", decl: { "spec.replicas": ["+k8s:minimum=0"], "spec.x": ["+k8s:required"] }, obj: { spec: { replicas: -1 } }, old: { spec: { replicas: -1 } }, errors: [] },
    { name: "changed on update is checked", decl: { "spec.replicas": ["+k8s:minimum=0"] }, obj: { spec: { replicas: -2 } }, old: { spec: { replicas: -1 } }, errors: ["spec.replicas: Invalid value: -2: must be greater than or equal to 0"] },
    { name: "wrong type is not this layer's", decl: { "spec.replicas": ["+k8s:minimum=0"] }, obj: { spec: { replicas: "many" } }, errors: [] },
    { name: "not an object at all", decl: { "spec.items[*].name": ["+k8s:required"] }, obj: "text", errors: [] },
    ...unionCases(),
    {
      name: "item tag on the selected item only, the old item found by its key",
      decl: { "spec.ports": ['+k8s:item(name: "http")=+k8s:immutable'] },
      obj: { spec: { ports: [{ name: "grpc", port: 2 }, { name: "http", port: 81 }] } },
      old: { spec: { ports: [{ name: "http", port: 80 }, { name: "grpc", port: 1 }] } },
      errors: ['spec.ports[1]: Invalid value: {"name":"http","port":81}: field is immutable'],
    },
  ];
  it.each(cases)("$name", ({ decl, obj, old, errors }) => {
    expect(evaluateDeclarative(parseDeclarations(decl), obj, old).map(formatFieldError)).toEqual(errors);
  });
});

describe("coveredPaths", () => {
  const covered = coveredPaths(parseDeclarations({ "spec.replicas": ["+k8s:minimum=0"], "spec.items[*].name": ["+k8s:required"], "status.conditions": ["+k8s:listMapKey=type"] }));
  it.each([
    ["spec.replicas", true],
    ["spec.replicasX", false],
    ["spec", false],
    ["spec.items[3].name", true],
    ["spec.items[*].name", false],
    ["spec.items[3].image", false],
    ["status.conditions[1]", true],
    ["status.conditions[1].type", false],
  ])("%s → %s", (field, expected) => {
    expect(covered(field)).toBe(expected);
  });
});

describe("coveredErrors", () => {
  const covered = coveredErrors(parseDeclarations({ "spec.replicas": ["+k8s:optional", "+k8s:minimum=0"], "status.conditions": ['+k8s:item(type: "Approved")=+k8s:zeroOrOneOfMember'], roleRef: ["+k8s:required", "+k8s:immutable"] }));
  it.each([
    ["a minimum's Invalid", fieldErrors.invalid("spec.replicas", -1), true],
    ["another type on the same field", fieldErrors.required("spec.replicas"), false],
    ["the union's Invalid on the list", fieldErrors.invalid("status.conditions", [], "mutually exclusive"), true],
    ["a transition rule's Forbidden on the list", fieldErrors.forbidden("status.conditions", "may not remove"), false],
    ["an item's field", fieldErrors.invalid("status.conditions[0].status", "x"), false],
    ["required and immutable of one field", fieldErrors.required("roleRef"), true],
    ["immutable", fieldErrors.invalid("roleRef", {}, "field is immutable"), true],
    ["an undeclared field", fieldErrors.invalid("spec.paused", 1), false],
  ])("%s", (_name, error, expected) => {
    expect(covered(error)).toBe(expected);
  });
});
