import { describe, expect, it } from "vitest";
import { getProfile } from "../../platform/index.ts";
import { openapiV3, prune } from "../../schema/index.ts";
import type { KindDefinition } from "../../schema/types.ts";
import { admit, defaultObject, deleteAt, getAt, loadSample, mutate, paths, sampleFile, setAt } from "../testing/sample-harness.ts";
import { makeKinds } from "./apiextensions-v1.ts";

type Obj = Record<string, unknown>;

const profile = getProfile();
const ext = profile.ext;
const def: KindDefinition = makeKinds(profile)[0];
const sample = () => loadSample("apiextensions-v1", sampleFile(def));
const errorPaths = (obj: Obj) => paths(admit(def, obj).errors);
const V0 = "spec.versions[0]";
const ROOT = `${V0}.schema.openAPIV3Schema`;
const SPEC = `${ROOT}.properties.spec`;
/** The error path of a node below `openAPIV3Schema` (map keys print as `[key]`). */
const errPath = (...keys: string[]) => `${ROOT}${keys.map((k) => `.properties[${k}]`).join("")}`;

/** Renames extension keys (`<prefix>xyz`) throughout a value, for another profile. */
function renameExtensions(v: unknown, from: string, to: string): unknown {
  if (Array.isArray(v)) return v.map((x) => renameExtensions(x, from, to));
  if (typeof v !== "object" || v === null) return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k.startsWith(from) ? to + k.slice(from.length) : k, renameExtensions(x, from, to)]));
}

describe("apiextensions/v1 kinds", () => {
  it("declares CustomResourceDefinition", () => {
    expect([def.kind, def.plural, def.namespaced]).toEqual(["CustomResourceDefinition", "customresourcedefinitions", false]);
    expect(def.shortNames).toEqual(["crd", "crds"]);
    expect(def.categories).toEqual(["api-extensions"]);
    expect(def.subresources).toEqual(["status"]);
    expect(def.tableColumns?.map((c) => [c.name, c.type])).toEqual([["Created At", "date"]]);
  });

  it("uses the platform's protobuf field numbers, with the profile's extension keys", () => {
    const spec = def.schema.properties?.spec.properties ?? {};
    expect([spec.group, spec.names, spec.scope, spec.versions, spec.conversion, spec.preserveUnknownFields].map((s) => s.protoTag)).toEqual([1, 3, 4, 7, 9, 10]);
    const version = spec.versions.items?.properties ?? {};
    expect(Object.fromEntries(Object.entries(version).map(([k, s]) => [k, s.protoTag]))).toEqual({
      name: 1,
      served: 2,
      storage: 3,
      deprecated: 7,
      deprecationWarning: 8,
      schema: 4,
      subresources: 5,
      additionalPrinterColumns: 6,
      selectableFields: 9,
    });
    const props = version.schema.properties?.openAPIV3Schema.properties ?? {};
    expect(props.$ref.protoTag).toBe(3);
    expect(props.properties.protoTag).toBe(29);
    expect(props[ext.preserveUnknownFields].protoTag).toBe(38);
    expect(props[ext.validations].protoTag).toBe(44);
    const k8s = getProfile("kubernetes");
    const k8sProps = makeKinds(k8s)[0].schema.properties?.spec.properties?.versions.items?.properties?.schema.properties?.openAPIV3Schema.properties ?? {};
    expect(Object.keys(k8sProps)).toContain(k8s.ext.preserveUnknownFields);
    expect(Object.keys(k8sProps)).not.toContain(ext.preserveUnknownFields);
  });

  it("JSONSchemaProps is one recursive definition: the engine and the OpenAPI output terminate", () => {
    const node = def.schema.properties?.spec.properties?.versions.items?.properties?.schema.properties?.openAPIV3Schema;
    expect(node?.definition?.name).toBe("JSONSchemaProps");
    // properties.<x> is the same definition again (a cycle through the shared properties record).
    expect(node?.properties?.properties.additionalProperties?.properties).toBe(node?.properties);
    const doc = openapiV3([def], profile, "apiextensions", "v1") as { components: { schemas: Record<string, Obj> } };
    const name = profile.definitionName("apiextensions", "v1", "JSONSchemaProps");
    const body = doc.components.schemas[name] as { properties: Record<string, Obj> };
    expect(body.properties.items).toEqual({ allOf: [{ $ref: `#/components/schemas/${name}` }], description: expect.any(String) });
    expect(body.properties.properties).toEqual({ type: "object", additionalProperties: { $ref: `#/components/schemas/${name}` } });
    // A deep schema validates, defaults and prunes without running away.
    let deep: Obj = { type: "string" };
    for (let i = 0; i < 60; i++) deep = { type: "object", properties: { [`l${i}`]: deep } };
    const obj = mutate(sample(), (o) => setAt(o, `${ROOT}.properties.deep`, deep));
    expect(admit(def, obj).errors).toEqual([]);
    expect(prune(def.schema, obj).pruned).toEqual([]);
  });
});

describe("apiextensions/v1 sample", () => {
  it("decodes with no unknown fields and no errors; defaulting is idempotent", () => {
    const obj = sample();
    expect(obj.apiVersion).toBe(profile.apiVersion("apiextensions", "v1"));
    const { unknown, defaulted, errors } = admit(def, obj);
    expect(unknown).toEqual([]);
    expect(errors).toEqual([]);
    expect(defaultObject(def, defaulted)).toEqual(defaulted);
  });

  it("fills conversion strategy None, listKind, singular and storedVersions; leaves the CR schema's defaults alone", () => {
    const d = defaultObject(
      def,
      mutate(sample(), (o) => deleteAt(o, "spec.names.singular")),
    );
    expect(getAt(d, "spec.conversion")).toEqual({ strategy: "None" });
    expect(getAt(d, "spec.names.listKind")).toBe("CronTabList");
    expect(getAt(d, "spec.names.singular")).toBe("crontab");
    expect(getAt(d, "status.storedVersions")).toEqual(["v1"]);
    expect(getAt(d, `${SPEC}.properties.replicas`)).toEqual({ type: "integer", minimum: 0, maximum: 10, default: 1 });
    const webhook = mutate(sample(), (o) =>
      setAt(o, "spec.conversion", {
        strategy: "Webhook",
        webhook: { clientConfig: { service: { namespace: "crontab-system", name: "converter" } }, conversionReviewVersions: ["v1"] },
      }),
    );
    const dw = defaultObject(def, webhook);
    expect(getAt(dw, "spec.conversion.webhook.clientConfig.service.port")).toBe(443);
    expect(admit(def, webhook).errors).toEqual([]);
  });

  it("under the kubernetes profile the plat extension keys are unknown, and the renamed sample is clean", () => {
    const k8s = getProfile("kubernetes");
    const k8sDef = makeKinds(k8s)[0];
    expect(admit(k8sDef, sample()).unknown.length).toBeGreaterThan(0);
    const renamed = renameExtensions(sample(), profile.extensionPrefix, k8s.extensionPrefix) as Obj;
    expect(admit(k8sDef, renamed).unknown).toEqual([]);
    expect(admit(k8sDef, renamed).errors).toEqual([]);
  });
});

describe("apiextensions/v1 rejects bad objects with the platform's field paths", () => {
  it("unknown nested field, also deep inside the OpenAPI schema", () => {
    const bad = mutate(sample(), (o) => setAt(o, `${SPEC}.properties.image.maxLenght`, 10));
    expect(admit(def, bad).unknown).toEqual([`${errPath("spec", "image")}.maxLenght`]);
    const bad2 = mutate(sample(), (o) => setAt(o, "spec.names.plurals", "crontabs"));
    expect(admit(def, bad2).unknown).toEqual(["spec.names.plurals"]);
  });

  it("wrong type", () => {
    expect(errorPaths(mutate(sample(), (o) => setAt(o, `${V0}.served`, "yes")))).toEqual([`${V0}.served`]);
    expect(errorPaths(mutate(sample(), (o) => setAt(o, `${SPEC}.required`, "cronSpec")))).toEqual([`${errPath("spec")}.required`]);
    // `items` must be one schema, not an array of schemas.
    expect(errorPaths(mutate(sample(), (o) => setAt(o, `${SPEC}.properties.env.items`, [{ type: "string" }])))).toEqual([
      `${errPath("spec", "env")}.items`,
    ]);
  });

  it("missing required fields", () => {
    expect(errorPaths(mutate(sample(), (o) => deleteAt(o, "spec.scope")))).toEqual(["spec.scope"]);
    expect(errorPaths(mutate(sample(), (o) => deleteAt(o, "spec.names.kind")))).toEqual(["spec.names.kind"]);
    expect(errorPaths(mutate(sample(), (o) => deleteAt(o, `${V0}.storage`)))).toEqual([`${V0}.storage`, "spec.versions"]);
    expect(errorPaths(mutate(sample(), (o) => deleteAt(o, `${V0}.schema`)))).toEqual([`${V0}.schema.openAPIV3Schema`]);
    expect(errorPaths(mutate(sample(), (o) => deleteAt(o, `${V0}.additionalPrinterColumns[0].jsonPath`)))).toEqual([
      `${V0}.additionalPrinterColumns[0].jsonPath`,
    ]);
  });

  it("bad enums", () => {
    const e = admit(def, mutate(sample(), (o) => setAt(o, "spec.scope", "Global"))).errors;
    expect(paths(e)).toEqual(["spec.scope"]);
    expect(e[0].message).toBe('Unsupported value: "Global": supported values: "Cluster", "Namespaced"');
    expect(errorPaths(mutate(sample(), (o) => setAt(o, `${SPEC}.properties.image.type`, "text")))).toEqual([`${errPath("spec", "image")}.type`]);
    expect(errorPaths(mutate(sample(), (o) => setAt(o, `${V0}.additionalPrinterColumns[0].type`, "time")))).toEqual([
      `${V0}.additionalPrinterColumns[0].type`,
    ]);
    expect(errorPaths(mutate(sample(), (o) => setAt(o, "spec.conversion", { strategy: "Custom" })))).toEqual(["spec.conversion.strategy"]);
    expect(errorPaths(mutate(sample(), (o) => setAt(o, `${SPEC}.properties.env.${ext.listType}`, "list")))).toEqual([
      `${errPath("spec", "env")}.${ext.listType}`,
    ]);
  });

  it("names: metadata.name is <plural>.<group>; group has a dot; kind differs from listKind", () => {
    const e = admit(def, mutate(sample(), (o) => setAt(o, "metadata.name", "crontab.stable.example.com"))).errors;
    expect(paths(e)).toEqual(["metadata.name"]);
    expect(e[0].message).toContain('must be spec.names.plural+"."+spec.group');
    const noDot = mutate(sample(), (o) => {
      setAt(o, "spec.group", "stable");
      setAt(o, "metadata.name", "crontabs.stable");
    });
    expect(errorPaths(noDot)).toEqual(["spec.group"]);
    expect(errorPaths(mutate(sample(), (o) => setAt(o, "spec.names.listKind", "CronTab")))).toEqual(["spec.names.listKind"]);
    expect(errorPaths(mutate(sample(), (o) => setAt(o, "spec.names.shortNames[0]", "C_T")))).toEqual(["spec.names.shortNames[0]"]);
    expect(errorPaths(mutate(sample(), (o) => setAt(o, `${V0}.name`, "V1")))).toEqual([`${V0}.name`]);
  });

  it("versions: exactly one storage version, unique names, deprecation warning only when deprecated", () => {
    expect(errorPaths(mutate(sample(), (o) => setAt(o, "spec.versions[1].storage", true)))).toEqual(["spec.versions"]);
    expect(errorPaths(mutate(sample(), (o) => setAt(o, "spec.versions[1].name", "v1")))).toEqual(["spec.versions"]);
    expect(errorPaths(mutate(sample(), (o) => setAt(o, "spec.versions[1].deprecated", false)))).toEqual(["spec.versions[1].deprecationWarning"]);
    expect(errorPaths(mutate(sample(), (o) => setAt(o, "spec.versions", [])))).toEqual(["spec.versions"]);
  });

  it("structural schema rules", () => {
    expect(errorPaths(mutate(sample(), (o) => setAt(o, `${ROOT}.type`, "array")))).toEqual([`${ROOT}.type`]);
    expect(errorPaths(mutate(sample(), (o) => deleteAt(o, `${SPEC}.properties.image.type`)))).toEqual([`${errPath("spec", "image")}.type`]);
    expect(errorPaths(mutate(sample(), (o) => deleteAt(o, `${SPEC}.properties.env.items.type`)))).toEqual([`${errPath("spec", "env")}.items.type`]);
    expect(errorPaths(mutate(sample(), (o) => setAt(o, `${SPEC}.properties.podTemplate.${ext.preserveUnknownFields}`, false)))).toEqual([
      `${errPath("spec", "podTemplate")}.${ext.preserveUnknownFields}`,
    ]);
    // Without a type, a field needs preserve-unknown-fields or int-or-string.
    expect(errorPaths(mutate(sample(), (o) => deleteAt(o, `${SPEC}.properties.port.${ext.intOrString}`)))).toEqual([`${errPath("spec", "port")}.type`]);
    expect(errorPaths(mutate(sample(), (o) => setAt(o, `${SPEC}.additionalProperties`, false)))).toEqual([`${errPath("spec")}.additionalProperties`]);
  });

  it("preserveUnknownFields may not be true in v1; the message names the profile's extension", () => {
    const e = admit(def, mutate(sample(), (o) => setAt(o, "spec.preserveUnknownFields", true))).errors;
    expect(paths(e)).toEqual(["spec.preserveUnknownFields"]);
    expect(e[0].message).toContain(ext.preserveUnknownFields);
  });

  it("conversion: webhook required for the Webhook strategy and forbidden otherwise", () => {
    expect(errorPaths(mutate(sample(), (o) => setAt(o, "spec.conversion", { strategy: "Webhook" })))).toEqual(["spec.conversion.webhook"]);
    const http = mutate(sample(), (o) =>
      setAt(o, "spec.conversion", { strategy: "Webhook", webhook: { clientConfig: { url: "http://conv.example.com" }, conversionReviewVersions: ["v1"] } }),
    );
    expect(errorPaths(http)).toEqual(["spec.conversion.webhook.clientConfig.url"]);
    const noVersions = mutate(sample(), (o) => setAt(o, "spec.conversion", { strategy: "Webhook", webhook: { clientConfig: { url: "https://conv.example.com" } } }));
    expect(errorPaths(noVersions)).toEqual(["spec.conversion.webhook.conversionReviewVersions"]);
    const stray = mutate(sample(), (o) => setAt(o, "spec.conversion", { strategy: "None", webhook: { conversionReviewVersions: ["v1"] } }));
    expect(errorPaths(stray)).toEqual(["spec.conversion.webhook"]);
  });

  it("scale subresource paths", () => {
    expect(errorPaths(mutate(sample(), (o) => setAt(o, `${V0}.subresources.scale.specReplicasPath`, ".status.replicas")))).toEqual([
      `${V0}.subresources.scale.specReplicasPath`,
    ]);
    expect(errorPaths(mutate(sample(), (o) => deleteAt(o, `${V0}.subresources.scale.statusReplicasPath`)))).toEqual([
      `${V0}.subresources.scale.statusReplicasPath`,
    ]);
  });
});
