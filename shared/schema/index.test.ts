import { describe, expect, it } from "vitest";
import { objectKind } from "../api/groups/meta-v1.ts";
import { int32, obj, str, withOpts } from "./build.ts";
import { applyDefaults, decodeJsonStrict, findUnknownFields, formatFieldError, prune, unknownFieldMessage, duplicateFieldMessage, validate, validateImmutable, validateObjectMeta } from "./index.ts";

const schema = objectKind({
  spec: obj({ replicas: int32({ default: 1, minimum: 0 }), selector: withOpts(str(), { immutable: true }) }, { required: ["selector"] }),
});

describe("the public API, end to end", () => {
  it("decodes, reports, prunes, defaults and validates one request body", () => {
    const body = '{"apiVersion":"v1","kind":"K","metadata":{"name":"a","namespace":"default"},"spec":{"selector":"x","selector":"y","foo":1}}';
    const { value, duplicates } = decodeJsonStrict(body);
    const warnings = [...duplicates.map(duplicateFieldMessage), ...findUnknownFields(schema, value).map(unknownFieldMessage)];
    expect(warnings).toEqual(['duplicate field "spec.selector"', 'unknown field "spec.foo"']);
    const obj1 = applyDefaults(schema, prune(schema, value).value);
    expect(obj1).toEqual({ apiVersion: "v1", kind: "K", metadata: { name: "a", namespace: "default" }, spec: { selector: "y", replicas: 1 } });
    expect(validate(schema, obj1)).toEqual([]);
    expect(validateObjectMeta((obj1 as { metadata: unknown }).metadata, { namespaced: true })).toEqual([]);
    const changed = { ...(obj1 as object), spec: { selector: "z", replicas: -1 } };
    expect([...validate(schema, changed), ...validateImmutable(schema, obj1, changed)].map(formatFieldError)).toEqual([
      "spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0",
      'spec.selector: Invalid value: "z": field is immutable',
    ]);
  });
});
