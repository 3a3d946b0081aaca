import SwaggerParser from "@apidevtools/swagger-parser";
import { describe, expect, it } from "vitest";
import { condition, deleteOptions, labelSelector, listMeta, objectKind, status } from "../api/groups/meta-v1.ts";
import { getProfile } from "../platform/index.ts";
import { anyValue, int32, intOrString, list, mapOf, named, obj, quantity, str, withOpts } from "./build.ts";
import { openapiV2, openapiV3 } from "./openapi.ts";
import type { KindDefinition } from "./types.ts";

type Json = Record<string, unknown>;
const plat = getProfile("plat");
const kube = getProfile("kubernetes");

const containerPort = named("core", "v1", "ContainerPort", obj({ name: str(), containerPort: int32(), protocol: str({ default: "TCP" }) }, { required: ["containerPort"] }));
const container = named(
  "core",
  "v1",
  "Container",
  obj(
    {
      name: str(),
      image: str(),
      ports: list(containerPort, { listType: "map", mapKeys: ["containerPort", "protocol"], patchStrategy: "merge", patchMergeKey: "containerPort" }),
      resources: obj({ limits: mapOf(quantity()) }, { mapType: "atomic" }),
    },
    { required: ["name"] },
  ),
);
/** A recursive type: its definition must terminate. */
const node = named("apps", "v1", "WidgetNode", obj({ name: str() }));
(node.properties as Record<string, typeof node>).children = list(node);

const widget: KindDefinition = {
  group: "apps",
  version: "v1",
  kind: "Widget",
  plural: "widgets",
  singular: "widget",
  namespaced: true,
  subresources: ["status", "scale"],
  schema: objectKind({
    spec: obj({
      replicas: int32({ default: 1 }),
      selector: withOpts(labelSelector, { description: "Which pods belong to this widget." }),
      maxSurge: intOrString(),
      containers: list(container, { patchStrategy: "merge", patchMergeKey: "name" }),
      finalizers: list(str(), { listType: "set" }),
      template: obj({ spec: anyValue() }, { embeddedResource: true, preserveUnknownFields: true }),
      tree: node,
      strategy: withOpts(named("apps", "v1", "WidgetStrategy", obj({ type: str() })), { patchStrategy: "retainKeys", nullable: true }),
    }),
    status: obj({ conditions: list(condition, { listType: "map", mapKeys: ["type"] }) }),
  }),
};
const gadget: KindDefinition = {
  group: "core",
  version: "v1",
  kind: "Gadget",
  plural: "gadgets",
  singular: "gadget",
  namespaced: false,
  verbs: ["get", "list", "create", "delete"],
  schema: objectKind({ spec: obj({ size: quantity() }) }),
};
const review: KindDefinition = {
  group: "authorization",
  version: "v1",
  kind: "WidgetReview",
  plural: "widgetreviews",
  singular: "widgetreview",
  namespaced: false,
  virtual: true,
  schema: objectKind({ spec: obj({ user: str() }), status: obj({ allowed: { type: "boolean" } }) }),
};
const kinds = [widget, gadget, review];
const common = { listMeta, status, deleteOptions };

function defs(doc: Json): Record<string, Json> {
  return (doc.definitions ?? (doc.components as Json).schemas) as Record<string, Json>;
}
function props(def: Json): Record<string, Json> {
  return def.properties as Record<string, Json>;
}

describe.each([
  ["plat", plat],
  ["kubernetes", kube],
])("openapi (%s profile)", (_id, profile) => {
  const x = profile.ext;
  const v2 = openapiV2(kinds, profile, { common, version: "v1.35.0" });
  const v3 = openapiV3(kinds, profile, "apps", "v1", { common });
  const name = (g: Parameters<typeof profile.definitionName>[0], v: string, k: string) => profile.definitionName(g, v, k);

  it("v2 is a valid Swagger 2.0 document", async () => {
    await expect(SwaggerParser.validate(structuredClone(v2) as never)).resolves.toBeTruthy();
    expect(v2.swagger).toBe("2.0");
    expect(v2.info).toEqual({ title: profile.openapiTitle, version: "v1.35.0" });
  });

  it("v3 is a valid OpenAPI 3.0 document", async () => {
    await expect(SwaggerParser.validate(structuredClone(v3) as never)).resolves.toBeTruthy();
    expect(v3.openapi).toBe("3.0.0");
  });

  it("defines every named schema reached, keyed by the profile's definition names", () => {
    const d = defs(v2);
    for (const [g, v, k] of [
      ["apps", "v1", "Widget"],
      ["apps", "v1", "WidgetList"],
      ["core", "v1", "Container"],
      ["core", "v1", "ContainerPort"],
      ["core", "v1", "Gadget"],
      ["apps", "v1", "WidgetNode"],
      ["meta", "v1", "ObjectMeta"],
      ["meta", "v1", "ListMeta"],
      ["meta", "v1", "LabelSelector"],
      ["meta", "v1", "LabelSelectorRequirement"],
      ["meta", "v1", "Condition"],
      ["meta", "v1", "OwnerReference"],
      ["meta", "v1", "ManagedFieldsEntry"],
      ["meta", "v1", "Status"],
      ["meta", "v1", "DeleteOptions"],
      ["autoscaling", "v1", "Scale"],
    ] as const) {
      expect(d, `${g}/${v}/${k}`).toHaveProperty([name(g, v, k)]);
    }
    expect(props(d[name("core", "v1", "Gadget")]).metadata).toEqual({ $ref: `#/definitions/${name("meta", "v1", "ObjectMeta")}` });
    expect(props(d[name("apps", "v1", "WidgetNode")]).children).toEqual({ type: "array", items: { $ref: `#/definitions/${name("apps", "v1", "WidgetNode")}` } });
  });

  it("marks each top-level kind with its group, version and kind", () => {
    const d = defs(v2);
    expect(d[name("apps", "v1", "Widget")][x.groupVersionKind]).toEqual([{ group: "apps", version: "v1", kind: "Widget" }]);
    expect(d[name("core", "v1", "Gadget")][x.groupVersionKind]).toEqual([{ group: "", version: "v1", kind: "Gadget" }]);
    expect(d[name("apps", "v1", "WidgetList")][x.groupVersionKind]).toEqual([{ group: "apps", version: "v1", kind: "WidgetList" }]);
    expect(d[name("authorization", "v1", "WidgetReview")][x.groupVersionKind]).toEqual([{ group: profile.group("authorization"), version: "v1", kind: "WidgetReview" }]);
    expect(d[name("core", "v1", "Container")][x.groupVersionKind]).toBeUndefined();
  });

  it("emits the merge extensions", () => {
    const d = defs(v2);
    const spec = props(props(d[name("apps", "v1", "Widget")]).spec);
    expect(spec.containers).toMatchObject({ [x.listType]: "map", [x.listMapKeys]: ["name"], [x.patchStrategy]: "merge", [x.patchMergeKey]: "name" });
    expect(spec.finalizers).toMatchObject({ type: "array", [x.listType]: "set" });
    expect(props(d[name("core", "v1", "Container")]).ports).toMatchObject({ [x.listType]: "map", [x.listMapKeys]: ["containerPort", "protocol"] });
    expect(props(d[name("core", "v1", "Container")]).resources).toMatchObject({ [x.mapType]: "atomic" });
    expect(d[name("meta", "v1", "LabelSelector")][x.mapType]).toBe("atomic");
    expect(spec.template).toMatchObject({ type: "object", [x.embeddedResource]: true, [x.preserveUnknownFields]: true });
    expect(props(spec.template).spec).toEqual({ [x.preserveUnknownFields]: true });
  });

  it("writes int-or-string per version", () => {
    expect(props(props(defs(v2)[name("apps", "v1", "Widget")]).spec).maxSurge).toEqual({ type: "string", format: "int-or-string", [x.intOrString]: true });
    expect(props(props(defs(v3)[name("apps", "v1", "Widget")]).spec).maxSurge).toEqual({ anyOf: [{ type: "integer" }, { type: "string" }], [x.intOrString]: true });
  });

  it("keeps use-site keywords beside the $ref (v2) or wraps them in allOf (v3)", () => {
    const selectorRef = name("meta", "v1", "LabelSelector");
    const strategyRef = name("apps", "v1", "WidgetStrategy");
    const spec2 = props(props(defs(v2)[name("apps", "v1", "Widget")]).spec);
    const spec3 = props(props(defs(v3)[name("apps", "v1", "Widget")]).spec);
    expect(spec2.selector).toEqual({ $ref: `#/definitions/${selectorRef}`, description: "Which pods belong to this widget." });
    expect(spec3.selector).toEqual({ allOf: [{ $ref: `#/components/schemas/${selectorRef}` }], description: "Which pods belong to this widget." });
    expect(spec3.strategy).toEqual({ allOf: [{ $ref: `#/components/schemas/${strategyRef}` }], nullable: true, [x.patchStrategy]: "retainKeys" });
    expect(spec2.strategy).toEqual({ $ref: `#/definitions/${strategyRef}`, [x.patchStrategy]: "retainKeys" });
    expect(spec3.tree).toEqual({ $ref: `#/components/schemas/${name("apps", "v1", "WidgetNode")}` });
  });

  it("serves collection, item and subresource paths with their verbs", () => {
    const paths = v2.paths as Record<string, Record<string, Json>>;
    const apps = `/apis/apps/v1`;
    expect(Object.keys(paths[`${apps}/namespaces/{namespace}/widgets`]).sort()).toEqual(["delete", "get", "parameters", "post"]);
    expect(Object.keys(paths[`${apps}/namespaces/{namespace}/widgets/{name}`]).sort()).toEqual(["delete", "get", "parameters", "patch", "put"]);
    expect(Object.keys(paths[`${apps}/namespaces/{namespace}/widgets/{name}/status`]).sort()).toEqual(["get", "parameters", "patch", "put"]);
    expect(paths[`${apps}/namespaces/{namespace}/widgets/{name}/scale`].get.responses).toMatchObject({ "200": { schema: { $ref: `#/definitions/${name("autoscaling", "v1", "Scale")}` } } });
    expect(Object.keys(paths[`${apps}/widgets`]).sort()).toEqual(["get", "parameters"]);
    expect(Object.keys(paths["/api/v1/gadgets"]).sort()).toEqual(["get", "parameters", "post"]);
    expect(Object.keys(paths["/api/v1/gadgets/{name}"]).sort()).toEqual(["delete", "get", "parameters"]);
    expect(Object.keys(paths[`/apis/${profile.group("authorization")}/v1/widgetreviews`]).sort()).toEqual(["parameters", "post"]);
    expect(paths[`/apis/${profile.group("authorization")}/v1/widgetreviews/{name}`]).toBeUndefined();
    const list = paths[`${apps}/namespaces/{namespace}/widgets`].get;
    expect(list).toMatchObject({
      operationId: "listAppsV1NamespacedWidget",
      [x.action]: "list",
      [x.groupVersionKind]: { group: "apps", version: "v1", kind: "Widget" },
      responses: { "200": { schema: { $ref: `#/definitions/${name("apps", "v1", "WidgetList")}` } } },
    });
    expect(paths["/api/v1/gadgets"].get.operationId).toBe("listCoreV1Gadget");
    expect(paths[`/apis/${profile.group("authorization")}/v1/widgetreviews`].post.operationId).toBe("createAuthorizationV1WidgetReview");
    expect((paths[`${apps}/namespaces/{namespace}/widgets/{name}`].patch as Json).consumes).toContain("application/apply-patch+yaml");
  });

  it("v3 holds only the requested group version's paths, with the schemas they reach", () => {
    const paths = Object.keys(v3.paths as Json);
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.every((p) => p.startsWith("/apis/apps/v1/"))).toBe(true);
    const schemas = defs(v3);
    expect(schemas).toHaveProperty([name("meta", "v1", "ObjectMeta")]);
    expect(schemas).not.toHaveProperty([name("core", "v1", "Gadget")]);
    const op = ((v3.paths as Json)["/apis/apps/v1/namespaces/{namespace}/widgets"] as Record<string, Json>).post;
    expect(op.requestBody).toMatchObject({ required: true, content: { "application/json": { schema: { $ref: `#/components/schemas/${name("apps", "v1", "Widget")}` } } } });
  });

  it("is deterministic", () => {
    expect(openapiV2(kinds, profile, { common, version: "v1.35.0" })).toEqual(v2);
    expect(JSON.stringify(openapiV3(kinds, profile, "apps", "v1", { common }))).toBe(JSON.stringify(v3));
  });
});

describe("openapi without shared schemas", () => {
  it("stands in minimal definitions so the documents stay valid", async () => {
    await expect(SwaggerParser.validate(structuredClone(openapiV2(kinds, plat)) as never)).resolves.toBeTruthy();
    await expect(SwaggerParser.validate(structuredClone(openapiV3(kinds, plat, "core", "v1")) as never)).resolves.toBeTruthy();
  });

  it("spells no extension outside the profile", () => {
    const text = JSON.stringify(openapiV2(kinds, plat, { common }));
    const prefixes = new Set([...text.matchAll(/"(x-[a-z]+-)/g)].map((m) => m[1]));
    expect([...prefixes]).toEqual([plat.extensionPrefix]);
  });
});
