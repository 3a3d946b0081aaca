import { describe, expect, it } from "vitest";
import {
  decodeManagedFields,
  encodeManagedFields,
  isResetManagedFields,
  managerIdentifier,
  printManager,
  validateFieldManager,
  validateManagedFields,
} from "./managed-fields.ts";
import { fieldPaths } from "./index.ts";
import { toFieldsV1 } from "./fieldpath.ts";

const entry = (over: Record<string, unknown>) => ({ manager: "m", operation: "Update", apiVersion: "v1", fieldsType: "FieldsV1", fieldsV1: {}, ...over });

describe("manager identity", () => {
  it("appliers are identified without their version, updaters with it", () => {
    expect(managerIdentifier({ manager: "m", operation: "Apply", apiVersion: "apps/v1" })).toBe('{"manager":"m","operation":"Apply"}');
    expect(managerIdentifier({ manager: "m", operation: "Update", apiVersion: "apps/v1", subresource: "status" })).toBe(
      '{"manager":"m","operation":"Update","apiVersion":"apps/v1","subresource":"status"}',
    );
  });

  it("prints managers as conflicts name them", () => {
    expect(printManager(managerIdentifier({ manager: "kubectl", operation: "Apply" }))).toBe('"kubectl"');
    expect(printManager(managerIdentifier({ manager: "kcm", operation: "Update", apiVersion: "apps/v1" }))).toBe('"kcm" using apps/v1');
    expect(printManager(managerIdentifier({ manager: "kcm", operation: "Update", apiVersion: "v1", subresource: "status" }))).toBe('"kcm" with subresource "status" using v1');
  });
});

describe("decoding", () => {
  it.each([
    [entry({ operation: "Patch" }), "operation must be `Apply` or `Update`"],
    [entry({ apiVersion: "" }), "apiVersion must not be empty"],
    [entry({ fieldsType: undefined }), "missing fieldsType in managed fields entry 0"],
    [entry({ fieldsType: "FieldsV2" }), 'invalid fieldsType "FieldsV2" in managed fields entry 0'],
    [entry({ fieldsV1: { "f:a": 3 } }), "error decoding set: parsing JSON: f:a: expected an object, got number"],
  ])("rejects %j with the platform's message", (e, message) => {
    expect(() => decodeManagedFields([e])).toThrow(message);
  });

  it("decodes sets, versions, times; missing fieldsV1 is an empty set", () => {
    const m = decodeManagedFields([entry({ time: "2024-01-01T00:00:00Z", fieldsV1: { "f:data": { "f:a": {} } } }), entry({ manager: "n", operation: "Apply", fieldsV1: undefined })]);
    expect([...m.fields.keys()]).toEqual(['{"manager":"m","operation":"Update","apiVersion":"v1"}', '{"manager":"n","operation":"Apply"}']);
    expect(m.fields.get('{"manager":"n","operation":"Apply"}')?.set.empty()).toBe(true);
    expect(m.times.get('{"manager":"m","operation":"Update","apiVersion":"v1"}')).toBe("2024-01-01T00:00:00Z");
  });
});

describe("encoding", () => {
  it("sorts by operation, time, manager, version, subresource and keeps the platform's field order", () => {
    const m = decodeManagedFields([
      entry({ manager: "z", time: "2024-01-01T00:00:01Z", fieldsV1: { "f:data": {} } }),
      entry({ manager: "a", time: "2024-01-01T00:00:05Z", fieldsV1: { "f:data": {} } }),
      entry({ manager: "b", operation: "Apply", time: "2024-01-01T00:00:09Z", fieldsV1: { "f:data": {} } }),
      entry({ manager: "a", time: "2024-01-01T00:00:01Z", subresource: "status", fieldsV1: { "f:status": {} } }),
    ]);
    const out = encodeManagedFields(m)!;
    expect(out.map((e) => `${e.manager} ${e.operation} ${e.subresource ?? ""}`.trim())).toEqual(["b Apply", "a Update status", "z Update", "a Update"]);
    expect(Object.keys(out[1])).toEqual(["manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1", "subresource"]);
    expect(encodeManagedFields({ fields: new Map(), times: new Map() })).toBeUndefined();
    expect(toFieldsV1(fieldPaths("data.a"))).toEqual({ "f:data": { "f:a": {} } });
  });
});

describe("validation", () => {
  it("reports entries like object metadata validation does", () => {
    const errs = validateManagedFields([entry({ operation: "Nope", fieldsType: "FieldsV9", manager: "bad\u0007", subresource: "s".repeat(257) })]);
    expect(errs.map((e) => `${e.field}: ${e.message}`)).toEqual([
      'metadata.managedFields[0].operation: Invalid value: "Nope": must be `Apply` or `Update`',
      'metadata.managedFields[0].fieldsType: Invalid value: "FieldsV9": must be `FieldsV1`',
      'metadata.managedFields[0].manager: Invalid value: "bad\\u0007": invalid character U+0007 (at position 3)',
      "metadata.managedFields[0].subresource: Too long: may not be longer than 256",
    ]);
    expect(validateManagedFields([entry({})])).toEqual([]);
  });

  it("limits field manager names to 128 printable characters", () => {
    expect(validateFieldManager("kubectl-client-side-apply", "fieldManager")).toEqual([]);
    expect(validateFieldManager("x".repeat(129), "fieldManager").map((e) => e.message)).toEqual(["Too long: may not be longer than 128"]);
  });

  it("only [{}] resets", () => {
    expect(isResetManagedFields([{}])).toBe(true);
    expect(isResetManagedFields([])).toBe(false);
    expect(isResetManagedFields([{ manager: "x" }])).toBe(false);
    expect(isResetManagedFields([{}, {}])).toBe(false);
  });
});
