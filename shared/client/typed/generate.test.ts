import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { builtinKinds } from "../../api/groups/index.ts";
import { getProfile } from "../../platform/index.ts";
import type { Schema } from "../../schema/types.ts";
import { accessorName, generateTypedFiles, TYPED_DIR } from "./generate.ts";
import { typeEmitter } from "./schema-to-ts.ts";

describe("generated typed-client files", () => {
  it.each(["plat", "kubernetes"] as const)("the committed table and types equal the generator's output from the %s profile's built-in kinds", (id) => {
    const files = generateTypedFiles(builtinKinds(getProfile(id)));
    expect(files.size).toBeGreaterThan(20);
    for (const [rel, text] of files) expect(readFileSync(join(TYPED_DIR, rel), "utf8"), `${rel} is stale: run npx tsx shared/client/typed/generate.ts`).toBe(text);
  });
});

describe("accessorName", () => {
  it.each([
    ["ConfigMap", "configmaps", "configMaps"],
    ["Endpoints", "endpoints", "endpoints"],
    ["NetworkPolicy", "networkpolicies", "networkPolicies"],
    ["Ingress", "ingresses", "ingresses"],
    ["ComponentStatus", "componentstatuses", "componentStatuses"],
    ["CSIDriver", "csidrivers", "csiDrivers"],
    ["CSIStorageCapacity", "csistoragecapacities", "csiStorageCapacities"],
    ["APIService", "apiservices", "apiServices"],
    ["HorizontalPodAutoscaler", "horizontalpodautoscalers", "horizontalPodAutoscalers"],
    ["Pod", "pods", "pods"],
  ])("%s (%s) → %s", (kind, plural, expected) => {
    expect(accessorName(kind, plural)).toBe(expected);
  });
});

describe("schema to TypeScript", () => {
  const named = (name: string, schema: Schema): Schema => ({ ...schema, definition: { group: "core", version: "v1", name } });
  const cases: Array<[string, Schema, string]> = [
    ["string", { type: "string" }, "string"],
    ["integer", { type: "integer", format: "int32" }, "number"],
    ["enum", { type: "string", enum: ["Always", "Never"] }, '"Always" | "Never"'],
    ["int-or-string", { intOrString: true }, "number | string"],
    ["nullable array of a named type", { type: "array", nullable: true, items: named("Container", { type: "object", properties: { name: { type: "string" } } }) }, "CoreV1Container[] | null"],
    ["map", { type: "object", additionalProperties: { type: "string" } }, "Record<string, string>"],
    ["object with required and optional fields", { type: "object", required: ["a"], properties: { a: { type: "string" }, "b-c": { type: "boolean" } } }, '{\n  a: string;\n  "b-c"?: boolean;\n}'],
    ["schema extensions, whatever their prefix", { type: "object", properties: { [getProfile().ext.listType]: { type: "string" }, type: { type: "string" } } }, "{\n  type?: string;\n  [extension: `x-${string}`]: unknown;\n}"],
    ["kept unknown fields", { type: "object", preserveUnknownFields: true }, "Record<string, unknown>"],
    ["no type", {}, "unknown"],
  ];
  it.each(cases)("%s", (_name, schema, expected) => {
    const seen: string[] = [];
    const text = typeEmitter((ref) => seen.push(ref.name)).typeOf(schema);
    expect(text).toBe(expected);
    if (text.includes("CoreV1Container")) expect(seen).toEqual(["Container"]);
  });

  it("a recursive named definition is referred to by name, not expanded", () => {
    const props: Schema = named("JSONSchemaProps", { type: "object", properties: {} });
    props.properties = { items: props, not: props };
    const emitter = typeEmitter(() => {});
    expect(emitter.bodyOf(props)).toBe("{\n  items?: CoreV1JSONSchemaProps;\n  not?: CoreV1JSONSchemaProps;\n}");
  });
});
